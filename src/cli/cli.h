/* cli.h - the one multi-call CLI binary: rota, sbatch, srun, salloc, squeue, sinfo,
 * scancel, scontrol, sprio, sdiag, sacct, sacctmgr, sreport.  main.c dispatches on
 * argv[0]'s basename (or `rota CMD`). */
#ifndef ROTA_CLI_H
#define ROTA_CLI_H

#include <stddef.h>
#include <stdint.h>

struct conf;

int cmd_sbatch(int argc, char **argv);
int cmd_srun(int argc, char **argv);
int cmd_salloc(int argc, char **argv);
int cmd_squeue(int argc, char **argv);
int cmd_sinfo(int argc, char **argv);
int cmd_scancel(int argc, char **argv);
int cmd_scontrol(int argc, char **argv);
int cmd_sprio(int argc, char **argv);
int cmd_sdiag(int argc, char **argv);
int cmd_sacct(int argc, char **argv);
int cmd_sacctmgr(int argc, char **argv);
int cmd_sshare(int argc, char **argv);
int cmd_sreport(int argc, char **argv);
int cmd_sstat(int argc, char **argv);
int cmd_sbcast(int argc, char **argv);
int cmd_strigger(int argc, char **argv);
int cmd_sattach(int argc, char **argv);
int cmd_scrontab(int argc, char **argv);
int cmd_rota(int argc, char **argv); /* rota up|down|... */

/* ---- helpers shared by the commands (cli_common.c) ---- */

/* Program name for messages ("sbatch").  Set by main. */
extern const char *cli_prog;

/* Load slurm.conf from conf_default_path(); on failure print
 * "PROG: error: ..." and exit(1).  Cached: later calls return the same object. */
struct conf *cli_conf(void);

/* -M/--clusters (or SLURM_CLUSTERS, isenv): every name must be this
 * cluster's (or "all"); else Slurm's words and exit 1. */
void cli_clusters_check(const char *names, int isenv);

/* --json and --yaml: print doc (Slurm's document) as JSON (indented, its
 * keys in order) or as YAML (proto/yamlw.h). */
enum { CLI_DOC_JSON = 1, CLI_DOC_YAML = 2 };
typedef struct json_t json_t;
void cli_print_doc(json_t *doc, int as);

/* What a job in partition (the first of a list) holding cpus, mem_mb and
 * nodes is billed: its TRESBillingWeights in slurm.conf (common/billing.h). */
uint32_t cli_billing(const char *partition, uint32_t cpus, uint64_t mem_mb,
                     uint32_t nodes);

/* Connect to the controller; on failure print Slurm's
 * "PROG: error: Unable to contact slurm controller (connect failure)" and exit 1. */
int cli_connect(void);

/* Connect without printing or exiting (the reason goes to the debug log, but
 * for "Permission denied", which is said once: "PROG: error: connect PATH:
 * Permission denied"); returns an fd or -1. */
int cli_try_connect(void);

/* Say once why connecting failed when the reason is the user's own (the
 * controller's socket is out of reach: rc -EACCES/-EPERM); rc and err are what
 * client_connect returned. */
struct rota_error;
void cli_connect_why(int rc, const struct rota_error *err);

/* One request/response round trip on a new connection.  Returns 0 and sets
 * *ret_type and *ret_body, or prints the connection error and exits 1. */
void cli_rpc(uint16_t type, const void *body, uint16_t *ret_type, void **ret_body);

/* If (type, body) is MSG_RC return its rc (and msg via *ret_msg, borrowed),
 * else 0.  Asked for the msg of a refusal (the caller reports it), it first
 * prints the controller's detail line, if any, as "prog: error: DETAIL". */
int cli_rc(uint16_t type, const void *body, const char **ret_msg);

/* "PROG: error: <fmt>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The exit status of sbatch, srun and salloc on a Slurm error:
 * SLURM_EXIT_ERROR, else 1; and of --immediate giving up:
 * SLURM_EXIT_IMMEDIATE, else 1 (Slurm's input environment). */
int cli_exit_error(void);
int cli_exit_immediate(void);

/* scontrol notify's MSG_USER_MSG body, said on stderr as "prog: TEXT". */
void cli_user_msg(const void *body);

/* A command's input variables that stand for its options (SQUEUE_USERS for
 * --user...): var set gives "--opt=value", or "--opt" for a flag (whatever
 * its value, as Slurm).  cli_env_argv() makes an argument vector of
 * them after argv0, for the command's own parser to take before its command
 * line; *ret_argc its length.  Caller frees with cli_env_argv_free(). */
struct cli_env_opt {
	const char *var, *opt;
	int flag;
};
char **cli_env_argv(const char *argv0, const struct cli_env_opt *t, size_t n,
                    int *ret_argc);
void cli_env_argv_free(char **v);

/* Parse a non-negative integer fully; -1 on error. */
long cli_parse_long(const char *s);

#endif
