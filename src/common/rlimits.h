/* rlimits.h - the resource limits a job takes from where it was submitted
 * (slurm.conf PropagateResourceLimits / PropagateResourceLimitsExcept,
 * sbatch and srun --propagate).
 *
 * The submitting command reads its own soft limits of the kinds propagated
 * and puts each in the job's (or step's) environment, as Slurm does:
 * SLURM_RLIMIT_<NAME>=<value>, with a 'U' before the value when --propagate
 * named it (RLIMITS_ENV_PREFIX).  The step daemon gives every task those soft limits,
 * each at most the node's hard limit (a limit the node cannot give is said on the task's
 * stderr when --propagate named it, and passed over otherwise), and takes the variables
 * out of the tasks' environment.
 */
#ifndef ROTA_COMMON_RLIMITS_H
#define ROTA_COMMON_RLIMITS_H

#include <stdint.h>
#include <sys/resource.h>

struct conf;
struct rota_error;

#define RLIMITS_ENV_PREFIX "SLURM_RLIMIT_"
#define RLIMITS_KINDS      10
#define RLIMITS_ALL        ((1u << RLIMITS_KINDS) - 1)

/* A list of names (ALL, NONE, AS, CORE, CPU, DATA, FSIZE, MEMLOCK, NOFILE,
 * NPROC, RSS, STACK; any case, comma separated) as a set of kinds (bit k:
 * kind k).  NULL or "" is ALL.  Returns 0, or -1 with err naming the word. */
int rlimits_parse(const char *list, unsigned *ret, struct rota_error *err);

/* The kinds the site propagates: PropagateResourceLimits (ALL when unset),
 * or all but PropagateResourceLimitsExcept's (the two keys exclude each
 * other; both were checked when slurm.conf was read). */
unsigned rlimits_conf(const struct conf *conf);

/* env with SLURM_RLIMIT_* of the caller's soft limits of kinds (user: they
 * were named by --propagate); returns the vector. */
char **rlimits_to_env(char **env, unsigned kinds, int user);

/* The limits an environment carries, to give a task. */
struct rlimits_want {
	unsigned kinds, user; /* bit k: kind k carried, named by --propagate */
	rlim_t value[RLIMITS_KINDS];
};

/* Read SLURM_RLIMIT_* of env into w (values that do not parse are left out). */
void rlimits_from_env(char *const *env, struct rlimits_want *w);

/* In the task, before exec: set each soft limit of w, at most the hard
 * limit.  For each named by --propagate that the node cannot give, say(arg,
 * text) is called with a line to show the user. */
void rlimits_apply(const struct rlimits_want *w, void (*say)(void *arg, const char *text),
                   void *arg);

#endif
