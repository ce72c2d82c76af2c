/* batch_feat.h - sbatch --batch: the node features of the batch host.
 *
 * As Slurm documents it: feature names joined by '&' (AND) and '|' (OR),
 * applied left to right without precedence ("a|b&c" is "(a|b)&c"); no
 * brackets, parentheses or counts.  Each name must be one of the job's
 * --constraint names (the batch host is one of the job's nodes, so --batch
 * can only narrow -C).  Pure: no daemon state.
 */
#ifndef ROTA_BATCH_FEAT_H
#define ROTA_BATCH_FEAT_H

#include <stddef.h>

#define BATCH_FEAT_MAX_LEN 1024 /* characters, as CONSTRAINT_MAX_LEN */

struct constraint;

/* Is spec (borrowed) well formed, every name one of cons's (borrowed; NULL:
 * the job has no -C, which no --batch is a subset of)?  0 or -EINVAL. */
int batch_feat_check(const char *spec, const struct constraint *cons);

/* Does a node with the comma-separated feature list `features` (borrowed;
 * NULL: none) satisfy spec?  1 or 0 (0 for a malformed spec). */
int batch_feat_match(const char *spec, const char *features);

#endif
