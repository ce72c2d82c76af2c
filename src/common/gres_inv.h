/* gres_inv.h - a node's generic resources: per name and type a count, and per
 * device (a GRES with File=) its file, the cores it is close to and its links.
 *
 * One inventory describes either what the configuration says a node has
 * (slurm.conf Gres= plus gres.conf, common/gres_conf.h) or what rotad found
 * there (device files that exist, NVML).  Devices are numbered per name in
 * the order added: the index shown in GresUsed's "(IDX:0-3)".
 *
 * Limits: GRES_MAX_ITEMS names/types (common/gres.h), GRES_DEVS_MAX devices,
 * file paths of GRES_PATH_MAX-1 bytes, core ids below GRES_CORES_MAX, links
 * of GRES_LINKS_MAX-1 bytes, flags of GRES_FLAGS_MAX-1 bytes.  Pure: no I/O.
 */
#ifndef ROTA_GRES_INV_H
#define ROTA_GRES_INV_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "common/gres.h"

#define GRES_DEVS_MAX  128
#define GRES_PATH_MAX  256
#define GRES_CORES_MAX 1024
#define GRES_LINKS_MAX 128
#define GRES_FLAGS_MAX 64

#define GRES_CORE_WORDS (GRES_CORES_MAX / 64)

struct gres_ent {
	char name[GRES_NAME_MAX];
	char type[GRES_NAME_MAX];   /* "" when none */
	char flags[GRES_FLAGS_MAX]; /* Flags= as written, "" when none */
	uint64_t count;
};

struct gres_dev {
	uint32_t ent; /* index into gres_inv.ent */
	char file[GRES_PATH_MAX];
	uint64_t cores[GRES_CORE_WORDS]; /* bit i: core i; all zero: any core */
	char links[GRES_LINKS_MAX];      /* Links= as written, "" when none */
};

struct gres_inv {
	struct gres_ent ent[GRES_MAX_ITEMS];
	size_t nent;
	struct gres_dev dev[GRES_DEVS_MAX];
	size_t ndev;
};

/* An empty inventory (caller frees with gres_inv_destroy), or NULL (ENOMEM). */
struct gres_inv *gres_inv_create(void);
void gres_inv_destroy(struct gres_inv *inv); /* NULL allowed */

/* Add count of name:type (type "" for none) to the entry of that name and
 * type, made if new; flags (NULL: none) replaces the entry's.  Returns the
 * entry's index, or -E2BIG (GRES_MAX_ITEMS) with err. */
int gres_inv_add(struct gres_inv *inv, const char *name, const char *type, uint64_t count,
                 const char *flags, struct rota_error *err);

/* Add one device of name:type (its count grows by one).  cores (NULL: none)
 * is copied; links may be NULL.  Returns 0, or -E2BIG / -ENAMETOOLONG with
 * err. */
int gres_inv_add_dev(struct gres_inv *inv, const char *name, const char *type,
                     const char *file, const uint64_t *cores, const char *links,
                     struct rota_error *err);

/* Add the items of a node's Gres= (slurm.conf, "(S:0-1)" allowed).
 * Returns 0, or -EINVAL / -E2BIG with err. */
int gres_inv_add_spec(struct gres_inv *inv, const char *spec, struct rota_error *err);

/* How many of name (and of type, when not "") inv has. */
uint64_t gres_inv_count(const struct gres_inv *inv, const char *name, const char *type);

/* Whether inv has an entry named name (any type). */
int gres_inv_has_name(const struct gres_inv *inv, const char *name);

/* "gpu:h100:8,nic:2" into buf[len] ("" when empty).  Returns 0, or -ENOSPC
 * (buf then holds a truncated string). */
int gres_inv_format(const struct gres_inv *inv, char *buf, size_t len);

/* Parse a core list "0-15,32" into cores (GRES_CORE_WORDS words, cleared
 * first).  Returns 0 or -EINVAL (a core id at or over GRES_CORES_MAX
 * included). */
int gres_cores_parse(const char *s, uint64_t *cores);

/* Format cores as "0-15,32" into buf[len]; "" when none. */
void gres_cores_format(const uint64_t *cores, char *buf, size_t len);

/* Compare what a node's slurm.conf Gres= says (configured, NULL: none) with
 * what the node found: 0 when every configured name has at least its count
 * (all types together), else -1 with reason filled in Slurm's words
 * ("gres/gpu count reported lower than configured (1 < 4)").  A configured
 * spec that does not parse is not checked (slurm.conf was checked at load). */
int gres_inv_check(const char *configured, const struct gres_inv *found, char *reason,
                   size_t len);

#endif
