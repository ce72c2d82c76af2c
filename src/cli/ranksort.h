/* ranksort.h - sort records by several keys, each reduced to a number once.
 *
 * squeue sorts tens of thousands of rows by keys such as "P,t,-p"; compared
 * field by field, every comparison of two rows costs a strcmp for each string
 * key.  Here each row's key is read once: a numeric key is its value, a string
 * key its rank among the distinct strings of that key (ordered by the key's
 * comparator, equal ones sharing a rank), and the sort compares numbers only.
 * The order is the one comparing the fields would give, ties broken by the
 * tiebreak number, lowest first.
 */
#ifndef ROTA_CLI_RANKSORT_H
#define ROTA_CLI_RANKSORT_H

#include <stddef.h>
#include <stdint.h>

struct rank_key {
	/* NULL: a numeric key; else how its strings compare (strcmp, ...) */
	int (*str_cmp)(const char *a, const char *b);
	int desc; /* highest first */
};

/* Key i of row: a string key's string (NULL reads as ""; it may be put in
 * buf, of len bytes), or for a numeric key NULL with *num set. */
typedef const char *(*rank_value_f)(const void *row, size_t i, char *buf, size_t len,
                                    uint64_t *num, void *arg);

/* Sort rows[0..n) (pointers to records) by keys[0..nkeys), then by
 * tiebreak(row).  Returns 0 or -ENOMEM (rows unchanged). */
int rank_sort(const void **rows, size_t n, const struct rank_key *keys, size_t nkeys,
              rank_value_f value, uint64_t (*tiebreak)(const void *row), void *arg);

#endif
