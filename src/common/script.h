/* script.h - run an administrator's script (Prolog, Epilog, TaskProlog) and wait
 * for it with a time limit.  Used by rotastepd (prolog) and rotad (epilog): both
 * run it as root with a small environment describing the job. */
#ifndef ROTA_SCRIPT_H
#define ROTA_SCRIPT_H

#include <stdint.h>
#include <sys/types.h>

/* Start path with argv {path, NULL} and env (borrowed), stdin /dev/null, stdout
 * and stderr to out_fd (or /dev/null when out_fd < 0).  Returns the pid or -errno. */
pid_t script_spawn(const char *path, char *const *env, int out_fd);

/* Wait for pid at most timeout_s seconds (then SIGKILL it).  Returns its wait
 * status, or -ETIMEDOUT after killing it. */
int script_wait(pid_t pid, int timeout_s);

/* What a Prolog or Epilog is told of its job (each string NULL when unknown);
 * owned by whoever made it (script_job_dup/script_job_free for a copy). */
struct script_job {
	uint32_t job_id, uid, gid;
	uint32_t ntasks, nnodes, restart_cnt;
	char *user, *nodes, *partition, *account, *comment, *constraints;
	char *reservation, *work_dir, *cpus_per_node; /* "2(x3),1" */
	char *std_out, *std_err, *std_in;             /* a batch job's */
	char *gpus; /* the indexes of the job's GPUs on the node: "0,2" */
};

/* A deep copy of j; script_job_free() releases it (NULL allowed). */
struct script_job *script_job_dup(const struct script_job *j);
void script_job_free(struct script_job *j);

/* The environment Slurm gives prolog/epilog scripts (SLURM_SCRIPT_CONTEXT is
 * context: "prolog_slurmd", "epilog_slurmd"); caller strv_free()s. */
char **script_env(const char *context, const struct script_job *j, const char *node_name,
                  const char *cluster, const char *conf_path);

#endif
