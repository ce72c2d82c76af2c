/* constraint.h - node feature expressions (sbatch/srun/salloc -C/--constraint).
 *
 * Syntax, as Slurm's --constraint documents it:
 *   NAME           a node feature (letters, digits, '_', '-', '.', ':', '=', '+',
 *                  '/', '@')
 *   A&B  (or A,B)  AND: the node has both
 *   A|B            OR: the node has either
 *   (EXPR)         grouping
 *   [A|B|...]      matching OR: every allocated node has the same alternative;
 *                  each alternative a NAME or a (EXPR)
 *   TERM*N         node count: at least N of the job's nodes match TERM (a
 *                  NAME or a (EXPR)); the other nodes need not.  Only as an
 *                  operand of AND outside parentheses ("a*2&b": at least 2
 *                  nodes have a, every node has b)
 *   [A*N&B*M&...]  counts on nodes of their own: N nodes match A and M other
 *                  nodes match B (each term needs its count)
 * At most one [...] group.  Operators are applied left to right without
 * precedence, as Slurm does: "a|b&c" is "(a|b)&c".  Pure: no daemon state.
 */
#ifndef ROTA_CONSTRAINT_H
#define ROTA_CONSTRAINT_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define CONSTRAINT_MAX_LEN    1024   /* characters in an expression */
#define CONSTRAINT_MAX_TERMS  64     /* feature names in an expression */
#define CONSTRAINT_MAX_COUNTS 16     /* node counts ("*N") in an expression */
#define CONSTRAINT_MAX_COUNT  100000 /* the largest N of a "*N" */

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
 * none) satisfy c (a counted TERM always does: constraint_count_match()), taking
 * alternative `alt` (< constraint_alternatives()) of the matching-OR group?  1 or 0. */
int constraint_match(const struct constraint *c, size_t alt, const char *features);

/* Does it match with any alternative? */
int constraint_match_any(const struct constraint *c, const char *features);

/* A node count of the expression ("TERM*N"). */
struct constraint_count {
	uint32_t nodes; /* N: at least that many of the job's nodes match */
	int own;        /* in [A*N&B*M]: on nodes no other such count takes */
};

/* How many node counts c has (0: none), at most CONSTRAINT_MAX_COUNTS. */
size_t constraint_counts(const struct constraint *c);

/* Count k (< constraint_counts()). */
struct constraint_count constraint_count(const struct constraint *c, size_t k);

/* Does a node with features (as constraint_match) match count k's TERM? */
int constraint_count_match(const struct constraint *c, size_t k, const char *features);

/* The fewest nodes the counts need: the largest count, or the sum of the
 * [A*N&B*M] ones when more; 0 when there are none. */
uint32_t constraint_count_nodes(const struct constraint *c);

/* The feature names used, in order of appearance (borrowed, valid until
 * constraint_destroy); returns how many. */
size_t constraint_names(const struct constraint *c, const char *const **ret);

/* Is `name` in the comma-separated list `features` (NULL: empty)? */
int feature_list_has(const char *features, const char *name);

#endif
