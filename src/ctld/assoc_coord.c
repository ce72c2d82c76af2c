/* assoc_coord.c - account coordinators: users an account names may manage
 * it and every account below it (Slurm's coordinators).  Who is one, and
 * whether a change sacctmgr asked for stays inside what they coordinate. */
#include <string.h>
#include <strings.h>
#include "ctld/assoc.h"
#include "ctld/assoc_impl.h"
#include "ctld/job_event.h"
#include "common/strv.h"

int assoc_is_coord(const struct assoc_mgr *m, const char *user)
{
	for (size_t i = 0; user && i < m->naccounts; i++)
		if (strv_has(m->accounts[i].coordinators, user, 1))
			return 1;
	return 0;
}

/* The parent of account a after the change: the event's record for it, else
 * the current one's. */
static const char *parent_after(const struct assoc_mgr *m, const struct ev_assoc *ev,
                                const char *a)
{
	const struct assoc_rec *r;

	for (size_t i = 0; i < ev->assocs_count; i++) {
		r = &ev->assocs[i];
		if (!r->user && !r->partition && !strcasecmp(r->account, a))
			return r->parent;
	}
	r = assoc_find(m, a, NULL, NULL);
	return r ? r->parent : NULL;
}

int assoc_coord_covers(const struct assoc_mgr *m, const char *a, const char *user)
{
	for (int depth = 0; a && depth < 1000; depth++) {
		const struct assoc_account *acc = assoc_find_account(m, a);
		const struct assoc_rec *r = assoc_find(m, a, NULL, NULL);
		if (acc && strv_has(acc->coordinators, user, 1))
			return 1;
		a = r ? r->parent : NULL;
	}
	return 0;
}

static int users_ok(const struct assoc_mgr *m, const struct ev_assoc *ev,
                    const char *user)
{
	if (ev->del_users && ev->del_users[0])
		return 0; /* a user removed whole: an operator's */
	for (size_t i = 0; i < ev->users_count; i++) {
		const struct assoc_user *x = &ev->users[i];
		const struct assoc_user *cur = assoc_find_user(m, x->name);
		if (x->admin_level != (cur ? cur->admin_level : ADMIN_NONE))
			return 0;
		if (cur && cur->default_account && x->default_account &&
		    !strcasecmp(cur->default_account, x->default_account))
			continue;
		/* another user's DefaultAccount is theirs or an operator's */
		if (cur && strcasecmp(x->name, user))
			return 0;
		if (!x->default_account ||
		    !assoc_coord_covers(m, x->default_account, user))
			return 0;
	}
	return 1;
}

static int accounts_ok(const struct assoc_mgr *m, const struct ev_assoc *ev,
                       const char *user)
{
	for (size_t i = 0; i < ev->accounts_count; i++) {
		const char *a = ev->accounts[i].name;
		if (assoc_find_account(m, a)
		        ? !assoc_coord_covers(m, a, user)
		        : !assoc_coord_covers(m, parent_after(m, ev, a), user))
			return 0;
	}
	/* below what they coordinate, not what they were given */
	for (size_t i = 0; ev->del_accounts && ev->del_accounts[i]; i++)
		if (!assoc_coord_covers(m, parent_after(m, ev, ev->del_accounts[i]),
		                        user))
			return 0;
	return 1;
}

/* May user hand out QOS q: is it one of an account it coordinates? */
static int qos_granted(const struct assoc_mgr *m, const char *q, const char *user)
{
	for (size_t i = 0; i < m->naccounts; i++) {
		const struct assoc_rec *r;
		if (!strv_has(m->accounts[i].coordinators, user, 1))
			continue;
		r = assoc_find(m, m->accounts[i].name, NULL, NULL);
		if (r && strv_has(assoc_qos_list(m, r), q, 1))
			return 1;
	}
	return 0;
}

/* The QOS r gains over what it has (all of them for a new record), and a
 * DefaultQOS set anew: only those of the accounts user coordinates. */
static int qos_ok(const struct assoc_mgr *m, const struct assoc_rec *r, const char *user)
{
	const struct assoc_rec *cur = assoc_find(m, r->account, r->user, r->partition);

	for (size_t i = 0; r->qos && r->qos[i]; i++)
		if (!(cur && strv_has(cur->qos, r->qos[i], 1)) &&
		    !qos_granted(m, r->qos[i], user))
			return 0;
	if (r->def_qos && *r->def_qos &&
	    !(cur && cur->def_qos && !strcasecmp(cur->def_qos, r->def_qos)) &&
	    !qos_granted(m, r->def_qos, user))
		return 0;
	return 1;
}

static int assocs_ok(const struct assoc_mgr *m, const struct ev_assoc *ev,
                     const char *user)
{
	for (size_t i = 0; i < ev->assocs_count; i++) {
		const struct assoc_rec *r = &ev->assocs[i];
		if (!qos_ok(m, r, user))
			return 0;
		if (r->user) {
			if (!assoc_coord_covers(m, r->account, user))
				return 0;
		} else if (assoc_find(m, r->account, NULL, NULL)) {
			/* moved: to a parent inside too */
			if (!assoc_coord_covers(m, r->account, user) ||
			    (r->parent && !assoc_coord_covers(m, r->parent, user)))
				return 0;
		} else if (!r->parent || !assoc_coord_covers(m, r->parent, user)) {
			return 0;
		}
	}
	for (size_t i = 0; i < ev->del_assocs_count; i++)
		if (!assoc_coord_covers(m, ev->del_assocs[i].account, user))
			return 0;
	return 1;
}

int assoc_coord_allows(const struct assoc_mgr *m, const struct ev_assoc *ev,
                       const char *user)
{
	if (ev->qos_count || (ev->del_qos && ev->del_qos[0]))
		return 0; /* QOS are an operator's */
	if (ev->res_count || (ev->del_res && ev->del_res[0]))
		return 0; /* and resources */
	return users_ok(m, ev, user) && accounts_ok(m, ev, user) &&
	       assocs_ok(m, ev, user);
}
