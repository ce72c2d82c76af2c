/* gres.h - generic resources as written in --gres and in a node's Gres=.
 *
 * A list is comma separated items "name[:type][:count]" (a node's items may
 * carry a "(S:0-1)" socket binding, ignored here); "gres/" before the name is
 * allowed, count defaults to 1 and takes a k/m/g suffix (x1024).  Only which
 * GRES a node has is checked: how many of them jobs already hold is not tracked
 * yet (GPU scheduling is a later issue).
 *
 * Limits: at most GRES_MAX_ITEMS items, names and types of GRES_NAME_MAX-1 bytes.
 */
#ifndef ROTA_GRES_H
#define ROTA_GRES_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

#define GRES_MAX_ITEMS 32
#define GRES_NAME_MAX  64

struct gres_item {
	char name[GRES_NAME_MAX];
	char type[GRES_NAME_MAX]; /* "" when not given */
	uint64_t count;
};

/* Parse spec into items[0..*ret_n) (caller's array of GRES_MAX_ITEMS).
 * Returns 0, or -EINVAL with err saying why (a zero count included). */
int gres_parse(const char *spec, struct gres_item *items, size_t *ret_n,
               struct rota_error *err);

/* spec less its items that ask for none ("craynetwork:0", "gpu:a100:0"), as
 * Slurm's commands take them: a new string, or NULL when no item is left. */
char *gres_drop_zero(const char *spec);

/* A count s[0..len) with an optional k/m/g suffix (x1024); 0 when malformed
 * or out of range (over 64 bits included). */
uint64_t gres_count_parse(const char *s, size_t len);

/* Copy the name or type s[0..len) (letters, digits, "_-.", 1 to
 * GRES_NAME_MAX-1 bytes) into dst[GRES_NAME_MAX].  Returns 0 or -1. */
int gres_word_copy(char *dst, const char *s, size_t len);

/* Parse a node's Gres= (slurm.conf): as gres_parse, "(S:0-1)" socket
 * bindings dropped first (at most 1,023 bytes in all). */
int gres_parse_node(const char *node_gres, struct gres_item *items, size_t *ret_n,
                    struct rota_error *err);

/* How many of name (and type, when not "") node_gres (a node's Gres=, NULL
 * for none) has; 0 if none or if node_gres does not parse. */
uint64_t gres_node_count(const char *node_gres, const char *name, const char *type);

/* Whether a node with node_gres has every item of the request req (which
 * parses) in the count asked. */
int gres_node_has(const char *req, const char *node_gres);

#endif
