/* scontrol_assoc.c - scontrol show assoc_mgr (or cache) [users=U,...]
 * [accounts=A,...] [qos=Q,...] [flags=users,assoc,qos]: what the controller
 * holds of accounting's records and what jobs use of their limits
 * (MSG_ASSOC_MGR_REQ, ctld/assoc_info.c), printed by proto/assoc_mgr_fmt.h.
 * The words, and the exit status of each mistake, are Slurm's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/call.h"
#include "cli/scontrol.h"
#include "proto/assoc_mgr_fmt.h"
#include "proto/messages.h"
#include "common/strv.h"
#include "common/uid.h"
#include "common/common.h"

/* Names looked up so far (a user has a line per association): NSS once each. */
struct uid_cache {
	char **names;
	uint32_t *uids;
	size_t n;
};

static uint32_t uid_of(const char *user, void *arg)
{
	struct uid_cache *c = arg;
	uid_t uid;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], user))
			return c->uids[i];
	c->names = strv_append(c->names, user);
	c->uids = xrealloc(c->uids, (c->n + 1) * sizeof(*c->uids));
	c->uids[c->n] = name_to_uid(user, &uid) == 0 ? (uint32_t)uid : NO_VAL;
	return c->uids[c->n++];
}

/* "a,b" added to *v, each once. */
static void names_add(char ***v, const char *val)
{
	char **items = strv_split(val, ",");

	for (size_t i = 0; items[i]; i++)
		if (*items[i] && !strv_has(*v, items[i], 1))
			*v = strv_append(*v, items[i]);
	strv_free(items);
}

/* The flags a flags= value names (Slurm looks for the words anywhere in it). */
static uint32_t flags_of(const char *val)
{
	uint32_t f = 0;

	if (strcasestr(val, "users"))
		f |= ASSOC_MGR_F_USERS;
	if (strcasestr(val, "assoc"))
		f |= ASSOC_MGR_F_ASSOC;
	if (strcasestr(val, "qos"))
		f |= ASSOC_MGR_F_QOS;
	return f;
}

/* The request from the words; 0, or the exit status after an error said. */
static int parse(const struct scontrol_opts *o, int argc, char **argv,
                 struct assoc_mgr_req *req, int *ret_status)
{
	for (int i = 0; i < argc; i++) {
		const char *val = strchr(argv[i], '=');
		size_t len = val ? (size_t)(val - argv[i]) : strlen(argv[i]);
		char tag[64];

		if (val)
			val++;
		snprintf(tag, sizeof(tag), "%.*s", (int)(len < sizeof(tag) ? len : 0),
		         argv[i]);
		if (!val || !*val) { /* Slurm says it and exits 0 */
			fprintf(stderr, "No value given for option %s\n", argv[i]);
			*ret_status = 0;
			return -1;
		}
		if (*tag && scontrol_abbrev(tag, "accounts", 1)) {
			names_add(&req->accounts, val);
		} else if (*tag && scontrol_abbrev(tag, "flags", 1)) {
			req->flags |= flags_of(val);
			if (!req->flags) {
				fprintf(
				    stderr,
				    "invalid flag '%s', valid options are 'Assoc, QOS, "
				    "and/or Users'\n",
				    val);
				*ret_status = 0;
				return -1;
			}
		} else if (*tag && scontrol_abbrev(tag, "qos", 1)) {
			names_add(&req->qos, val);
		} else if (*tag && scontrol_abbrev(tag, "users", 1)) {
			names_add(&req->users, val);
		} else {
			if (!o->quiet)
				fprintf(stderr,
				        "invalid entity: %s for keyword:show assoc_mgr\n",
				        argv[i]);
			*ret_status = 1;
			return -1;
		}
	}
	return 0;
}

int scontrol_assoc_mgr(const struct scontrol_opts *o, int argc, char **argv)
{
	struct assoc_mgr_req req = {0};
	struct assoc_mgr_resp *r = NULL;
	struct uid_cache uids = {0};
	char *msg = NULL;
	int status = 0;

	if (parse(o, argc, argv, &req, &status) < 0)
		goto out;
	if (!req.flags)
		req.flags = ASSOC_MGR_F_USERS | ASSOC_MGR_F_ASSOC | ASSOC_MGR_F_QOS;
	if (call_ctld(MSG_ASSOC_MGR_REQ, &req, MSG_ASSOC_MGR_RESP, (void **)&r, &msg)) {
		if (!o->quiet)
			fprintf(stderr, "slurm_load_assoc_mgr_info error: %s\n", msg);
		status = 1;
		goto out;
	}
	assoc_mgr_print(stdout, r,
	                &(struct assoc_mgr_fmt){.flags = req.flags,
	                                        .oneliner = o->oneliner,
	                                        .uid_of = uid_of,
	                                        .arg = &uids});
out:
	strv_free(uids.names);
	free(uids.uids);
	msg_body_free(MSG_ASSOC_MGR_RESP, r);
	free(msg);
	strv_free(req.users);
	strv_free(req.accounts);
	strv_free(req.qos);
	return status;
}
