/* stats.c - rotadbd's request counts (stats.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/uid.h"
#include "dbd/stats.h"
#include "proto/messages.h"
#include "common/common.h"

#define OTHER_USER ((uid_t)-1)

/* The requests rotadbd answers, by the names slurmdbd gives the same ones. */
static const struct {
	uint16_t type;
	const char *name;
} kinds[] = {
    {MSG_ACCT_QUERY, "DBD_GET_JOBS_COND"},  {MSG_ACCT_REPORT_REQ, "DBD_GET_ASSOC_USAGE"},
    {MSG_DBD_DIAG_REQ, "DBD_GET_STATS"},    {MSG_ACCT_JOB_MODIFY, "DBD_MODIFY_JOB"},
    {MSG_DBD_CONFIG_REQ, "DBD_GET_CONFIG"}, {MSG_DBD_STATS_CLEAR, "DBD_CLEAR_STATS"},
    {DBD_STATS_FINI, "DBD_FINI"},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

struct tally {
	uint32_t count;
	uint64_t usec;
};

struct user_tally {
	uid_t uid;
	struct tally t;
};

struct dbd_stats {
	int64_t time_start;
	struct tally by_kind[NKINDS];
	struct user_tally *users;
	size_t nusers;
};

struct dbd_stats *dbd_stats_create(int64_t now)
{
	struct dbd_stats *s = xcalloc(1, sizeof(*s));

	s->time_start = now;
	return s;
}

void dbd_stats_destroy(struct dbd_stats *s)
{
	if (!s)
		return;
	free(s->users);
	free(s);
}

void dbd_stats_clear(struct dbd_stats *s, int64_t now)
{
	free(s->users);
	memset(s, 0, sizeof(*s));
	s->time_start = now;
}

static void add(struct tally *t, uint64_t usec)
{
	t->count++;
	t->usec += usec;
}

void dbd_stats_count(struct dbd_stats *s, uint16_t type, uid_t uid, uint64_t usec)
{
	size_t i;

	for (i = 0; i < NKINDS && kinds[i].type != type; i++)
		;
	if (i == NKINDS)
		return; /* refused: not a request rotadbd answers */
	add(&s->by_kind[i], usec);
	if (s->nusers >= DBD_STATS_MAX_USERS)
		uid = OTHER_USER;
	for (i = 0; i < s->nusers && s->users[i].uid != uid; i++)
		;
	if (i == s->nusers) {
		s->users = xrealloc(s->users, (s->nusers + 1) * sizeof(*s->users));
		s->users[s->nusers++] = (struct user_tally){.uid = uid};
	}
	add(&s->users[i].t, usec);
}

static void row(struct rpc_stat *r, const char *name, uint32_t id, const struct tally *t)
{
	r->name = xstrdup(name);
	r->id = id;
	r->count = t->count;
	r->total_us = t->usec;
}

void dbd_stats_fill(const struct dbd_stats *s, struct dbd_diag *out)
{
	char name[64];

	out->time_start = s->time_start;
	out->rpcs = xcalloc(NKINDS, sizeof(*out->rpcs));
	for (size_t i = 0; i < NKINDS; i++)
		if (s->by_kind[i].count)
			row(&out->rpcs[out->rpcs_count++], kinds[i].name, kinds[i].type,
			    &s->by_kind[i]);
	out->users = xcalloc(s->nusers + 1, sizeof(*out->users));
	for (size_t i = 0; i < s->nusers; i++) {
		uid_t uid = s->users[i].uid;
		if (uid == OTHER_USER)
			snprintf(name, sizeof(name), "other");
		else if (uid_to_name(uid, name, sizeof(name)) < 0)
			snprintf(name, sizeof(name), "%u", (unsigned)uid);
		row(&out->users[out->users_count++], name, (uint32_t)uid, &s->users[i].t);
	}
}
