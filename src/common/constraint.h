/* constraint.h - node feature expressions (sbatch/srun/salloc -C/--constraint).
 *
 * Syntax, as Slurm's --constraint documents it:
 *   NAME           a node feature (letters, digits, '_', '-', '.', ':', '=', '+',
 *                  '/', '@')
 *   A&B  (or A,B)  AND: the node has both
 *   A|B            OR: the node has either
 *   (EXPR)         grouping
 *   [A|B|...]      matching OR: every allocated node has the same alternative;
 *                  at most one such group, each alternative a NAME or a (EXPR)
 * Operators are applied left to right without precedence, as Slurm does:
 * "a|b&c" is "(a|b)&c".  Node counts ("NAME*N") are refused.  Pure: no daemon
 * state.
 */
#ifndef ROTA_CONSTRAINT_H
#define ROTA_CONSTRAINT_H

#include <stddef.h>
#include "common/error.h"

#define CONSTRAINT_MAX_LEN   1024 /* characters in an expression */
#define CONSTRAINT_MAX_TERMS 64   /* feature names in an expression */

struct constraint;

/* Parse spec.  On success *ret gets a new constraint (caller frees with
 * constraint_destroy) and 0 is returned; on failure returns -EINVAL (err says
 * why) or -ENOMEM, and *ret is untouched. */
int constraint_parse(const char *spec, struct constraint **ret, struct rota_error *err);

/* NULL allowed. */
void constraint_destroy(struct constraint *c);

/* How many matching-OR alternatives: 1 when there is no [..] group. */
size_t constraint_alternatives(const struct constraint *c);

/* Does a node with the comma-separated feature list `features` (borrowed; NULL:
 * none) satisfy c, taking alternative `alt` (< constraint_alternatives()) of
 * the matching-OR group?  1 or 0. */
int constraint_match(const struct constraint *c, size_t alt, const char *features);

/* Does it match with any alternative? */
int constraint_match_any(const struct constraint *c, const char *features);

/* The feature names used, in order of appearance (borrowed, valid until
 * constraint_destroy); returns how many. */
size_t constraint_names(const struct constraint *c, const char *const **ret);

/* Is `name` in the comma-separated list `features` (NULL: empty)? */
int feature_list_has(const char *features, const char *name);

#endif
