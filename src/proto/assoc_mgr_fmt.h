/* assoc_mgr_fmt.h - scontrol show assoc_mgr's text: the controller's answer
 * (MSG_ASSOC_MGR_RESP) printed as Slurm 22.05 prints it.
 *
 * "Current Association Manager state", then "User Records", "Association
 * Records" and "QOS Records", each record a block of lines indented by four
 * (one line with -o).  A kind asked for that has no record says "No users
 * currently cached in Slurm." (associations, QOS alike).  A limit prints
 * as its number or N, with what is used of it in parentheses:
 * "GrpJobs=N(1)", "GrpTRES=cpu=3(1),mem=N(500),...".  Pure: no I/O but f.
 */
#ifndef ROTA_PROTO_ASSOC_MGR_FMT_H
#define ROTA_PROTO_ASSOC_MGR_FMT_H

#include <stdint.h>
#include <stdio.h>

struct assoc_mgr_resp;
struct tres_use;

/* A user's uid (NO_VAL when none): the caller looks it up. */
typedef uint32_t (*assoc_mgr_uid_f)(const char *user, void *arg);

struct assoc_mgr_fmt {
	unsigned flags;         /* ASSOC_MGR_F_* asked for (0: all) */
	int oneliner;           /* -o */
	assoc_mgr_uid_f uid_of; /* NULL: every uid NO_VAL */
	void *arg;
};

/* The whole answer r (borrowed) to f. */
void assoc_mgr_print(FILE *f, const struct assoc_mgr_resp *r,
                     const struct assoc_mgr_fmt *o);

/* One TRES line: "label=" then each of names[0..n) that has a limit
 * ("cpu=6"), or with used set every one, "cpu=N(0)"; v borrowed. */
void assoc_mgr_tres(FILE *f, const char *label, char *const *names,
                    const struct tres_use *v, size_t n, int used);

#endif
