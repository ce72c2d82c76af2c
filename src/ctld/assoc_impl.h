/* assoc_impl.h - inside the association manager (assoc.c, assoc_update.c). */
#ifndef ROTA_CTLD_ASSOC_IMPL_H
#define ROTA_CTLD_ASSOC_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "proto/messages.h"

struct assoc_mgr {
	struct assoc_account *accounts;
	size_t naccounts;
	struct assoc_user *users;
	size_t nusers;
	struct assoc_rec *assocs;
	size_t nassocs;
	struct assoc_qos *qos;
	size_t nqos;
	struct assoc_res *res; /* resources, by name@server */
	size_t nres;
	uint64_t gen; /* bumped by every change (fairshare.c's cache) */
	/* assoc_find's index of assocs (open addressing, cap a power of 2;
	 * rebuilt when stale, not while an EV_ASSOC is being applied) */
	int32_t *index;
	size_t index_cap;
	int index_valid, applying;
	struct fairshare *fs; /* usage and the factors (fairshare.c); NULL: none */
};

struct ev_assoc;
/* Does some account name user as a coordinator?  Does the change ev stay
 * inside the accounts user coordinates (and those below them): users and
 * associations in them, accounts added below them, no QOS, no user removed
 * whole, no AdminLevel changed (assoc_coord.c)? */
int assoc_is_coord(const struct assoc_mgr *m, const char *user);
int assoc_coord_allows(const struct assoc_mgr *m, const struct ev_assoc *ev,
                       const char *user);
/* Is account a (as it is now) one user coordinates, or below one? */
int assoc_coord_covers(const struct assoc_mgr *m, const char *a, const char *user);

/* The association above r: its account's for a user's, its parent's for an
 * account's (NULL for root).  Is account a, or one above it, top? */
const struct assoc_rec *assoc_parent(const struct assoc_mgr *m,
                                     const struct assoc_rec *r);
int assoc_below(const struct assoc_mgr *m, const char *a, const char *top);

/* Every limit unset (NO_VAL), shares 1. */
void assoc_rec_init(struct assoc_rec *r);
void assoc_qos_init(struct assoc_qos *q);

/* By name (case-insensitive, as Slurm's database keeps them), or NULL.  A
 * NULL or empty user or partition matches only itself. */
struct assoc_account *assoc_find_account(const struct assoc_mgr *m, const char *name);
struct assoc_user *assoc_find_user(const struct assoc_mgr *m, const char *name);
struct assoc_rec *assoc_find(const struct assoc_mgr *m, const char *account,
                             const char *user, const char *partition);
struct assoc_qos *assoc_find_qos(const struct assoc_mgr *m, const char *name);
/* key: "name@server" (case-insensitive, as Slurm's database). */
struct assoc_res *assoc_find_res(const struct assoc_mgr *m, const char *key);

struct assoc_update;
/* sacctmgr add|modify|delete resource (assoc_res.c): the change into ev and
 * the lines sacctmgr prints (Slurm's, whole) into *changed; 0, or -1 with
 * *rc (SLURM_ERROR or ESLURM_*) and *text (caller frees) saying why, as
 * Slurm's sacctmgr prints it ("Nothing ..." without its leading blank). */
int assoc_res_update(const struct assoc_mgr *m, const char *cluster,
                     const struct assoc_update *req, struct ev_assoc *ev, char ***changed,
                     int *rc, char **text);

#endif
