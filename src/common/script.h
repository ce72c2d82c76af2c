/* script.h - run an administrator's script (Prolog, Epilog, TaskProlog) and wait
 * for it with a time limit.  Used by rotastepd (prolog) and rotad (epilog): both
 * run it as root with a small environment describing the job. */
#ifndef ROTA_SCRIPT_H
#define ROTA_SCRIPT_H

#include <sys/types.h>

/* Start path with argv {path, NULL} and env (borrowed), stdin /dev/null, stdout
 * and stderr to out_fd (or /dev/null when out_fd < 0).  Returns the pid or -errno. */
pid_t script_spawn(const char *path, char *const *env, int out_fd);

/* Wait for pid at most timeout_s seconds (then SIGKILL it).  Returns its wait
 * status, or -ETIMEDOUT after killing it. */
int script_wait(pid_t pid, int timeout_s);

/* The environment Slurm gives prolog/epilog scripts (caller strv_free()s). */
struct launch_req;
char **script_env(const char *context, unsigned job_id, unsigned uid, unsigned gid,
                  const char *user, const char *nodes, const char *partition,
                  const char *node_name, const char *cluster, const char *conf_path);

#endif
