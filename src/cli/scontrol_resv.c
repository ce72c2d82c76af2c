/* scontrol_resv.c - scontrol create|update|delete|show reservation, in
 * Slurm's words and layout (ctld/resv.h does the work). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cli/call.h"
#include "cli/scontrol.h"
#include "common/resv_flags.h"
#include "common/states.h"
#include "common/timefmt.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "common/common.h"
#include "common/time_parse.h"

#define MSG_CREATE "No reservation created."
#define MSG_UPDATE "No reservation update."

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scontrol: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* tag (as long as it is, at least min bytes) abbreviates word */
static int tag_is(const char *tag, size_t len, const char *word, size_t min)
{
	return len >= min && len <= strlen(word) && !strncasecmp(tag, word, len);
}

/* The K=V (K+=V, K-=V) arguments into q.  0, or 1 after an error printed. */
static int parse_args(int argc, char **argv, const char *msg, struct resv_desc *q)
{
	time_t now = time(NULL);

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = strchr(a, '=');
		size_t len;
		char pm = 0;
		if (!val) {
			if (!strncasecmp(a, "res", 3))
				continue; /* "create reservation ..." */
			err("Misformatted parameter '%s', most options have a parameter "
			    "after '='.  %s",
			    a, msg);
			return 1;
		}
		len = (size_t)(val - a);
		if (len && (val[-1] == '+' || val[-1] == '-')) {
			pm = val[-1];
			len--;
		}
		val++;
		if (pm && !tag_is(a, len, "Users", 1) && !tag_is(a, len, "Accounts", 1) &&
		    !tag_is(a, len, "Flags", 2)) {
			err("The +=/-= notation is not supported when updating %.*s.  %s",
			    (int)len, a, msg);
			return 1;
		}
		if (tag_is(a, len, "ReservationName", 1)) {
			q->name = (char *)val;
		} else if (tag_is(a, len, "StartTime", 2)) {
			time_t t;
			if (time_parse(val, now, 0, &t, NULL) < 0) {
				err("Invalid start time %s.  %s", a, msg);
				return 1;
			}
			q->start = t;
		} else if (tag_is(a, len, "EndTime", 1)) {
			time_t t;
			if (time_parse(val, now, 0, &t, NULL) < 0) {
				err("Invalid end time %s.  %s", a, msg);
				return 1;
			}
			q->end = t;
		} else if (tag_is(a, len, "Duration", 1)) {
			uint32_t m;
			if (timefmt_parse_limit(val, &m) < 0) {
				err("Invalid duration %s.  %s", a, msg);
				return 1;
			}
			q->duration = m == TIME_INFINITE ? INFINITE32 : m;
		} else if (tag_is(a, len, "Nodes", 5)) {
			q->nodes = (char *)val;
		} else if (tag_is(a, len, "NodeCnt", 5) ||
		           tag_is(a, len, "NodeCount", 5)) {
			char *end;
			unsigned long n = strtoul(val, &end, 10);
			if (*end || end == val || n > 100000) {
				err("Invalid node count %s.  %s", a, msg);
				return 1;
			}
			q->node_cnt = (uint32_t)n;
		} else if (tag_is(a, len, "PartitionName", 1) ||
		           tag_is(a, len, "Partition", 1)) {
			q->partition = (char *)val;
		} else if (tag_is(a, len, "Users", 1)) {
			q->users = (char *)val;
			q->users_op = pm == '+'   ? RESV_LIST_ADD
			              : pm == '-' ? RESV_LIST_DEL
			                          : 0;
		} else if (tag_is(a, len, "Accounts", 1)) {
			q->accounts = (char *)val;
			q->accounts_op = pm == '+'   ? RESV_LIST_ADD
			                 : pm == '-' ? RESV_LIST_DEL
			                             : 0;
		} else if (tag_is(a, len, "Licenses", 2)) {
			q->licenses = (char *)val;
		} else if (tag_is(a, len, "Flags", 2)) {
			uint32_t add, del, purge;
			char bad[64];
			if (resv_flags_parse(val, &add, &del, &purge, bad, sizeof(bad)) <
			    0) {
				err("Error parsing flags %s.  %s", val, msg);
				return 1;
			}
			if (pm == '-') { /* Flags-=A,B */
				del |= add;
				add = 0;
			}
			if (!pm && !del) {
				q->flags = add;
				q->flags_set = 1;
			} else {
				q->flags_add |= add;
			}
			q->flags_del |= del;
			if (purge)
				q->purge_comp = purge;
		} else if (tag_is(a, len, "CoreCnt", 2)) {
			if (!*val || strspn(val, "0123456789,") != strlen(val)) {
				err("Invalid core count %s.  %s", a, msg);
				return 1;
			}
			q->core_cnt = (char *)val;
		} else if (tag_is(a, len, "CPUCnt", 2) || tag_is(a, len, "Groups", 1) ||
		           tag_is(a, len, "BurstBuffer", 2) ||
		           tag_is(a, len, "Watts", 1) || tag_is(a, len, "TRES", 1) ||
		           tag_is(a, len, "Features", 2) ||
		           tag_is(a, len, "MaxStartDelay", 2)) {
			err("%.*s is not supported by Rota's reservations (Nodes=, "
			    "NodeCnt=, CoreCnt=; Users= or Accounts=).  %s",
			    (int)len, a, msg);
			return 1;
		} else {
			err("Unknown parameter %s.  %s", a, msg);
			return 1;
		}
	}
	return 0;
}

static void desc_init(struct resv_desc *q, uint32_t op)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->duration = NO_VAL;
	q->node_cnt = NO_VAL;
}

static int send(const struct resv_desc *q, const char *what)
{
	struct resv_resp *resp = NULL;
	char *msg = NULL;
	int rc = call_ctld(MSG_RESV_UPDATE_REQ, q,
	                   q->op == RESV_OP_DELETE ? MSG_RC : MSG_RESV_UPDATE_RESP,
	                   (void **)&resp, &msg);

	if (rc) {
		fprintf(stderr, "%s: %s\n", what, msg ? msg : slurm_strerror(rc));
		if (q->op == RESV_OP_CREATE &&
		    (rc == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE ||
		     rc == ESLURM_NODES_BUSY))
			printf(
			    "Note, unless nodes are directly requested a reservation "
			    "must "
			    "exist in a single partition.\nIf no partition is requested "
			    "the default partition is assumed.\n");
		free(msg);
		return 1;
	}
	if (q->op == RESV_OP_CREATE)
		printf("Reservation created: %s\n", resp && resp->name ? resp->name : "");
	else if (q->op == RESV_OP_UPDATE)
		printf("Reservation updated.\n");
	if (resp)
		msg_body_free(MSG_RESV_UPDATE_RESP, resp);
	free(msg);
	return 0;
}

int scontrol_resv_create(int argc, char **argv)
{
	struct resv_desc q;

	desc_init(&q, RESV_OP_CREATE);
	if (parse_args(argc, argv, MSG_CREATE, &q))
		return 1;
	if (!q.start) {
		err("A start time must be given.  %s", MSG_CREATE);
		return 1;
	}
	if (!q.end && q.duration == NO_VAL) {
		err("An end time or duration must be given.  %s", MSG_CREATE);
		return 1;
	}
	if (q.end && q.duration != NO_VAL && q.duration != INFINITE32 &&
	    q.start + (int64_t)q.duration * 60 != q.end) {
		err("StartTime + Duration does not equal EndTime.  %s", MSG_CREATE);
		return 1;
	}
	if (q.end && q.start > q.end) {
		err("Start time cannot be after end time.  %s", MSG_CREATE);
		return 1;
	}
	/* Nodes=ALL in a partition: its nodes (PART_NODES), which asks for
	 * both */
	if (q.partition && q.nodes && !strcasecmp(q.nodes, "ALL"))
		q.flags |= RESV_F_PART_NODES;
	if (((q.flags | q.flags_add) & RESV_F_PART_NODES) &&
	    (!q.partition || !q.nodes || strcasecmp(q.nodes, "ALL"))) {
		err("PART_NODES flag requires specifying a Partition and ALL nodes.  %s",
		    MSG_CREATE);
		return 1;
	}
	if ((!q.nodes || !*q.nodes) && (q.node_cnt == NO_VAL || !q.node_cnt) &&
	    (!q.licenses || !*q.licenses) && !q.core_cnt) {
		if (!q.partition) {
			err("CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts "
			    "must be specified.  %s",
			    MSG_CREATE);
			return 1;
		}
		q.flags |= RESV_F_PART_NODES; /* a partition alone: all of it */
		q.nodes = "ALL";
	}
	if ((!q.users || !*q.users) && (!q.accounts || !*q.accounts)) {
		err("Either Users/Groups and/or Accounts must be specified.  %s",
		    MSG_CREATE);
		return 1;
	}
	return send(&q, "Error creating the reservation");
}

int scontrol_resv_update(int argc, char **argv)
{
	struct resv_desc q;

	desc_init(&q, RESV_OP_UPDATE);
	if (parse_args(argc, argv, MSG_UPDATE, &q))
		return 1;
	if (!q.name) {
		err("Reservation must be given.  %s", MSG_UPDATE);
		return 1;
	}
	return send(&q, "Error updating the reservation");
}

int scontrol_resv_delete(const char *tag, const char *name)
{
	struct resv_desc q;
	char what[96];

	desc_init(&q, RESV_OP_DELETE);
	q.name = (char *)name;
	snprintf(what, sizeof(what), "delete_reservation %s", tag);
	return send(&q, what);
}

int scontrol_resv_load(const char *name, struct resv_info_resp **ret)
{
	struct resv_info_req req = {.name = (char *)name};
	char *msg = NULL;

	*ret = NULL;
	if (call_ctld(MSG_RESV_INFO_REQ, &req, MSG_RESV_INFO_RESP, (void **)ret, &msg)) {
		fprintf(stderr, "slurm_load_reservations error: %s\n", msg);
		free(msg);
		return -1;
	}
	return 0;
}

static const char *nul(const char *s)
{
	return s ? s : "(null)";
}

void scontrol_resv_print(const struct resv_info *r, time_t now, int oneliner)
{
	const char *le = oneliner ? " " : "\n   ";
	char s[32], e[32], d[32], f[256];

	timefmt_iso(r->start, s, sizeof(s));
	timefmt_iso(r->end, e, sizeof(e));
	if (r->end >= r->start)
		timefmt_duration((long)(r->end - r->start), d, sizeof(d));
	else
		snprintf(d, sizeof(d), "N/A");
	resv_flags_format(r->flags, r->purge_comp, f, sizeof(f));
	printf("ReservationName=%s StartTime=%s EndTime=%s Duration=%s%s", r->name, s, e,
	       d, le);
	printf(
	    "Nodes=%s NodeCnt=%u CoreCnt=%u Features=(null) PartitionName=%s Flags=%s%s",
	    nul(r->nodes), r->node_cnt, r->core_cnt, nul(r->partition), f, le);
	printf("TRES=%s%s", nul(r->tres), le);
	printf(
	    "Users=%s Groups=(null) Accounts=%s Licenses=%s State=%s BurstBuffer=(null) "
	    "Watts=n/a%s",
	    nul(r->users), nul(r->accounts), nul(r->licenses),
	    r->start <= now && now < r->end ? "ACTIVE" : "INACTIVE", le);
	printf("MaxStartDelay=(null)\n%s", oneliner ? "" : "\n");
}

int scontrol_resv_show(const struct scontrol_opts *o, const char *name)
{
	struct resv_info_resp *r;
	int rc = 0;

	if (scontrol_resv_load(name, &r) < 0)
		return 1;
	if (!r->resvs_count) {
		if (name) /* an error, as Slurm's */
			printf("Reservation %s not found\n", name);
		else
			printf("No reservations in the system\n");
		rc = name != NULL;
	}
	for (uint32_t i = 0; i < r->resvs_count; i++)
		scontrol_resv_print(&r->resvs[i], (time_t)r->time, o->oneliner);
	msg_body_free(MSG_RESV_INFO_RESP, r);
	return rc;
}
