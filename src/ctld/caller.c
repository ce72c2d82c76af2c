#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include "common/uid.h"
#include "ctld/caller.h"
#include "ctld/ctld.h"

void caller_init_user(struct caller *who, const struct ctld *ctld, uid_t uid, gid_t gid)
{
	memset(who, 0, sizeof(*who));
	who->role = ctld_is_admin(ctld, uid) ? CALLER_ADMIN : CALLER_USER;
	who->uid = uid;
	who->gid = gid;
	who->node_idx = -1;
	who->via = (uid_t)-1;
}

void caller_init_node(struct caller *who, int node_idx, uid_t uid, gid_t gid)
{
	memset(who, 0, sizeof(*who));
	who->role = CALLER_NODE;
	who->uid = uid;
	who->gid = gid;
	who->node_idx = node_idx;
	who->via = (uid_t)-1;
}

void caller_init_peer(struct caller *who, uid_t uid, gid_t gid)
{
	caller_init_node(who, -1, uid, gid);
	who->role = CALLER_PEER;
}

int caller_init_relayed(struct caller *who, const struct ctld *ctld,
                        const struct caller *daemon, uid_t uid, gid_t gid)
{
	if (!caller_is_admin(daemon) || uid == (uid_t)-1)
		return -EPERM;
	caller_init_user(who, ctld, uid, gid);
	who->via = daemon->uid;
	return 0;
}

bool caller_in_group(struct caller *who, gid_t gid)
{
	if (gid == who->gid)
		return true;
	if (!who->gids_known) {
		struct passwd *pw = getpwuid(who->uid);
		int n = CALLER_MAX_GIDS;

		who->gids_known = true;
		who->ngids = 0;
		if (pw && getgrouplist(pw->pw_name, who->gid, who->gids, &n) >= 0)
			who->ngids = n;
		else if (pw)
			who->ngids = CALLER_MAX_GIDS; /* the first ones it filled */
	}
	for (int i = 0; i < who->ngids; i++)
		if (who->gids[i] == gid)
			return true;
	return false;
}

const char *caller_user(struct caller *who)
{
	if (!who->user_known) {
		who->user_known = true;
		if (uid_to_name(who->uid, who->user, sizeof(who->user)) != 0)
			who->user[0] = '\0';
	}
	return who->user[0] ? who->user : NULL;
}

const char *caller_name(const struct caller *who, char *buf, size_t len)
{
	if (who->role == CALLER_NODE)
		snprintf(buf, len, "node #%d", who->node_idx);
	else if (who->role == CALLER_PEER)
		snprintf(buf, len, "controller (uid %u)", (unsigned)who->uid);
	else if (who->via != (uid_t)-1)
		snprintf(buf, len, "uid %u via uid %u", (unsigned)who->uid,
		         (unsigned)who->via);
	else
		snprintf(buf, len, "uid %u", (unsigned)who->uid);
	return buf;
}
