/* ranksort.h - sort records by several keys, each reduced to a number once.
 *
 * squeue sorts tens of thousands of rows by keys such as "P,t,-p"; compared
 * field by field, every comparison of two rows costs a strcmp for each string
 * key.  Here each row's key is read once: a numeric key is its value, a string
 * key its rank among the distinct strings of that key (ordered by the key's
 * comparator, equal ones sharing a rank), and the sort compares numbers only.
 * When a row's keys fit in 64 bits together they are packed into one number
 * and radix-sorted.  The order is the one comparing the fields would give,
 * ties broken by the tiebreak number, lowest first.
 *
 * A ranker takes rows one at a time (the controller reads each job once, into
 * a slot it reuses); rank_sort() sorts an array of records in place.
 */
#ifndef ROTA_COMMON_RANKSORT_H
#define ROTA_COMMON_RANKSORT_H

#include <stddef.h>
#include <stdint.h>

#define RANK_MAX_KEYS 16

struct rank_key {
	/* NULL: a numeric key; else how its strings compare (strcmp, ...) */
	int (*str_cmp)(const char *a, const char *b);
	int desc; /* highest first */
};

/* Key i of row: a string key's string (NULL reads as ""; it may be put in
 * buf, of len bytes), or for a numeric key NULL with *num set. */
typedef const char *(*rank_value_f)(const void *row, size_t i, char *buf, size_t len,
                                    uint64_t *num, void *arg);

/* Order names as people expect node names ordered: runs of digits compare by
 * value ("n2" < "n10"), then by length ("n01" after "n1"); other bytes as strcmp.
 * A comparator for string keys. */
int rank_natural_cmp(const char *a, const char *b);

struct ranker;

/* A ranker for keys[0..nkeys) (copied; at most RANK_MAX_KEYS).  NULL on ENOMEM
 * or too many keys. */
struct ranker *ranker_create(const struct rank_key *keys, size_t nkeys);
void ranker_destroy(struct ranker *r); /* NULL allowed */

/* Read row's keys now (the row need not outlive the call); it is row number
 * ranker_count() before the call.  Returns 0 or -ENOMEM. */
int ranker_add(struct ranker *r, const void *row, rank_value_f value, uint64_t tiebreak,
               void *arg);
size_t ranker_count(const struct ranker *r);

/* The row numbers in sorted order: *ret holds ranker_count() of them (caller
 * frees).  Returns 0 or -ENOMEM. */
int ranker_order(struct ranker *r, uint32_t **ret);

/* Sort rows[0..n) (pointers to records) by keys[0..nkeys), then by
 * tiebreak(row).  Returns 0 or -ENOMEM (rows unchanged). */
int rank_sort(const void **rows, size_t n, const struct rank_key *keys, size_t nkeys,
              rank_value_f value, uint64_t (*tiebreak)(const void *row), void *arg);

#endif
