/* resv_pick.c - the nodes a reservation request takes (Nodes=, NodeCnt=,
 * CoreCnt=, a partition alone), checked against running jobs and the
 * other reservations, and REPLACE's replenishing (see resv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/resv_flags.h"
#include "common/states.h"
#include "common/strv.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/resv.h"
#include "ctld/resv_impl.h"
#include "proto/messages.h"
#include "common/common.h"

/* Occurrences of a repeating reservation looked at for an overlap. */
#define RESV_REPEAT_STEPS 10000

/* Do r's windows and [s, e) meet?  As Slurm, a week of the repeats of
 * either (one repeating for ever meets one far ahead too). */
static int windows_meet(const struct resv *r, time_t s, time_t e, uint32_t flags)
{
	int outer = !(flags & RESV_F_REPEATS) ? 1 : (flags & RESV_F_HOURLY) ? 7 * 24 : 7;

	for (int i = 0; i < outer; i++) {
		time_t rs = r->start, re = r->end;
		for (int j = 0; j < RESV_REPEAT_STEPS && rs < e; j++) {
			time_t len = re - rs;
			if (s < re)
				return 1;
			if (!(r->flags & RESV_F_REPEATS))
				break;
			rs = resv_next_start(rs, r->flags);
			re = rs + len;
		}
		if (i + 1 < outer) {
			time_t len = e - s;
			s = resv_next_start(s, flags);
			e = s + len;
		}
	}
	return 0;
}

/* Does another reservation hold node i over the window (one that may not
 * be overlapped)? */
static int node_reserved(const struct pick *p, size_t i)
{
	for (struct resv *r = resv_mgr_of(p->ctld)->head; r; r = r->next) {
		if (r == p->self || (p->flags & RESV_F_OVERLAP) ||
		    (r->flags & (RESV_F_MAINT | RESV_F_OVERLAP)))
			continue;
		resv_members(p->ctld, r);
		if (i < r->nmember && r->member[i] &&
		    windows_meet(r, p->start, p->end, p->flags))
			return 1;
	}
	return 0;
}

/* Does running job j (not of this reservation) hold its nodes past start? */
static int holds_past_start(const struct pick *p, const struct job *j)
{
	int64_t end;

	const char *in = p->self ? resv_job_name(p->ctld, j) : NULL;

	if (!job_is_running(j) || (in && !strcmp(in, p->self->name)))
		return 0;
	end = j->time_limit == INFINITE32
	          ? INT64_MAX
	          : (int64_t)j->run->start_time + (int64_t)j->time_limit * 60;
	return end > p->start;
}

/* Does a running job (not of this reservation) hold node i past start? */
static int node_busy(const struct pick *p, size_t i)
{
	if (p->flags & RESV_F_IGNORE_JOBS)
		return 0;
	for (struct job *j = job_first_active(p->ctld->jobs); j; j = j->lnext) {
		if (!holds_past_start(p, j))
			continue;
		for (uint32_t k = 0; k < j->run->nnodes; k++)
			if (j->run->node_idx[k] == i)
				return 1;
	}
	return 0;
}

/* The CPUs on node i that running jobs (not of this reservation) hold
 * past start. */
static uint32_t node_busy_cpus(const struct pick *p, size_t i)
{
	uint32_t busy = 0;

	for (struct job *j = job_first_active(p->ctld->jobs); j; j = j->lnext) {
		if (!holds_past_start(p, j))
			continue;
		for (uint32_t k = 0; k < j->run->nnodes; k++)
			if (j->run->node_idx[k] == i)
				busy += j->run->cpus[k];
	}
	return busy;
}

/* Nodes=: every name known; busy or reserved ones refused. */
static int pick_named(const struct pick *p, const char *expr, const struct part *part,
                      char **ret)
{
	struct node_mgr *nm = p->ctld->nodes;
	char **names = NULL, **out;
	size_t count = 0, k = 0;
	int rc = 0;

	if (!strcasecmp(expr, "ALL")) {
		out = xcalloc(node_mgr_count(nm) + 1, sizeof(char *));
		for (size_t i = 0; i < node_mgr_count(nm); i++)
			if (!part || part_has_node(part, (uint32_t)i))
				out[k++] = node_mgr_get(nm, i)->cfg->name;
	} else {
		if (hostlist_expand(expr, &names, &count, NULL) < 0 || !count)
			return -ESLURM_INVALID_NODE_NAME;
		out = xcalloc(count + 1, sizeof(char *));
		for (size_t i = 0; i < count; i++) {
			int idx = node_mgr_find(nm, names[i]);
			if (idx < 0) {
				rc = -ESLURM_INVALID_NODE_NAME;
				break;
			}
			out[k++] = node_mgr_get(nm, (size_t)idx)->cfg->name;
		}
	}
	for (size_t i = 0; !rc && i < k; i++) {
		size_t idx = (size_t)node_mgr_find(nm, out[i]);
		if (node_reserved(p, idx))
			rc = -ESLURM_RESERVATION_OVERLAP;
		else if (node_busy(p, idx))
			rc = -ESLURM_NODES_BUSY;
	}
	if (!rc && !k)
		rc = -ESLURM_INVALID_NODE_NAME;
	if (!rc)
		*ret = hostlist_compress(out, k);
	free(out);
	hostlist_free(names);
	return rc;
}

/* NodeCnt=: that many of the partition's nodes that are up, free of jobs
 * over the window and of other reservations, lowest index first. */
static int pick_count(const struct pick *p, uint32_t want, const struct part *part,
                      char **ret)
{
	struct node_mgr *nm = p->ctld->nodes;
	char **out = xcalloc(part->nnodes + 1, sizeof(char *));
	size_t k = 0;

	for (size_t j = 0; j < part->nnodes && k < want; j++) {
		size_t i = part->node_idx[j];
		struct node *n = node_mgr_get(nm, i);
		if (n->down || (n->flags & (NODE_DRAIN | NODE_FAIL)) ||
		    node_reserved(p, i) || node_busy(p, i))
			continue;
		out[k++] = n->cfg->name;
	}
	if (k < want) {
		free(out);
		return -ESLURM_NODES_BUSY;
	}
	*ret = hostlist_compress(out, k);
	free(out);
	return 0;
}

/* CoreCnt=: the CPUs on each node.  spec: "N" in all, spread evenly over
 * the nodes named (expr), else taken from the partition's nodes in order,
 * as many as each has free (at most node_cnt nodes, NO_VAL: any); or "a,b"
 * one count a node named.  Into r->nodes and r->cores_given. */
int resv_pick_cores(const struct pick *p, const char *spec, const char *expr,
                    uint32_t node_cnt, const struct part *part, struct resv *r)
{
	struct node_mgr *nm = p->ctld->nodes;
	size_t n = node_mgr_count(nm), nc = 0, k = 0;
	uint32_t *want = xcalloc(n ? n : 1, sizeof(uint32_t));
	uint32_t *counts = NULL, total = 0;
	char **names = NULL, **out = xcalloc(n + 1, sizeof(char *)), **sorted = NULL;
	size_t count = 0;
	int rc = 0;

	/* the counts */
	for (const char *s = spec; *s;) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || v == 0 || v > 1u << 20 || (*end && *end != ',')) {
			rc = -ESLURM_INVALID_CPU_COUNT;
			goto out;
		}
		counts = xrealloc(counts, (nc + 1) * sizeof(*counts));
		counts[nc++] = (uint32_t)v;
		total += (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	if (!nc || total > 1u << 20 || (nc > 1 && !expr)) {
		rc = -ESLURM_INVALID_CPU_COUNT;
		goto out;
	}
	if (expr) {
		if (!strcasecmp(expr, "ALL")) {
			for (size_t i = 0; i < n; i++)
				if (!part || part_has_node(part, (uint32_t)i))
					names = strv_append(
					    names, node_mgr_get(nm, i)->cfg->name);
			count = strv_len(names);
		} else if (hostlist_expand(expr, &names, &count, NULL) < 0 || !count) {
			rc = -ESLURM_INVALID_NODE_NAME;
			goto out;
		}
		if (nc > 1 && nc != count) {
			rc = -ESLURM_INVALID_CPU_COUNT;
			goto out;
		}
		for (size_t j = 0; j < count; j++) {
			int idx = node_mgr_find(nm, names[j]);
			if (idx < 0) {
				rc = -ESLURM_INVALID_NODE_NAME;
				goto out;
			}
			want[idx] = nc > 1 ? counts[j]
			                   : total / count + (j < total % count ? 1 : 0);
		}
	} else {
		uint32_t left = total;
		for (size_t j = 0; j < part->nnodes && left && k < node_cnt; j++) {
			size_t i = part->node_idx[j];
			struct node *nd = node_mgr_get(nm, i);
			uint32_t busy = node_busy_cpus(p, i);
			uint32_t free_cpus = (p->flags & RESV_F_IGNORE_JOBS) ? nd->cpus
			                     : busy >= nd->cpus              ? 0
			                                        : nd->cpus - busy;
			if (nd->down || (nd->flags & (NODE_DRAIN | NODE_FAIL)) ||
			    node_reserved(p, i) || !free_cpus)
				continue;
			want[i] = free_cpus < left ? free_cpus : left;
			left -= want[i];
			k++;
		}
		if (left) {
			rc = -ESLURM_NODES_BUSY;
			goto out;
		}
	}
	/* each node: as many free as it is to hold (unless IGNORE_JOBS) */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		struct node *nd = node_mgr_get(nm, i);
		if (!want[i])
			continue;
		if (want[i] > nd->cpus) {
			rc = -ESLURM_INVALID_CPU_COUNT;
			goto out;
		}
		if (node_reserved(p, i))
			rc = -ESLURM_RESERVATION_OVERLAP;
		else if (!(p->flags & RESV_F_IGNORE_JOBS) &&
		         node_busy_cpus(p, i) + want[i] > nd->cpus)
			rc = -ESLURM_NODES_BUSY;
		if (rc)
			goto out;
		out[k++] = nd->cfg->name;
	}
	if (!k) {
		rc = -ESLURM_INVALID_CPU_COUNT;
		goto out;
	}
	free(r->nodes);
	r->nodes = hostlist_compress(out, k);
	/* the counts in the order the list expands to */
	hostlist_expand(r->nodes, &sorted, &count, NULL);
	free(r->cores_given);
	r->cores_given = xcalloc(count ? count : 1, sizeof(uint32_t));
	r->ncores_given = count;
	for (size_t j = 0; j < count; j++)
		r->cores_given[j] = want[node_mgr_find(nm, sorted[j])];
out:
	hostlist_free(sorted);
	hostlist_free(names);
	free(out);
	free(counts);
	free(want);
	return rc;
}

int resv_flags_check(const struct resv_desc *q, const struct resv *cur)
{
	uint32_t f = q->flags | q->flags_add;
	int all = q->nodes && !strcasecmp(q->nodes, "ALL");

	if (f & RESV_F_REPLACES) { /* a NodeCnt= reservation's */
		if (!cur && q->nodes && *q->nodes)
			return -ESLURM_INVALID_NODE_NAME;
		if (!cur && q->core_cnt && *q->core_cnt)
			return -ESLURM_INVALID_CPU_COUNT;
		if (cur && ((cur->flags & RESV_F_SPEC_NODES) || cur->cores_given))
			return -ESLURM_NOT_SUPPORTED;
	}
	if (f & RESV_F_PART_NODES) { /* a partition and Nodes=ALL */
		if (!(cur && cur->partition) && !(q->partition && *q->partition))
			return -ESLURM_INVALID_PARTITION_NAME;
		if (!all)
			return -ESLURM_INVALID_NODE_NAME;
		if (cur && (cur->flags & RESV_F_REPLACES))
			return -ESLURM_NOT_SUPPORTED;
	}
	if (cur && q->nodes && *q->nodes && ((cur->flags | f) & RESV_F_REPLACES))
		return -ESLURM_NOT_SUPPORTED;
	/* no day is both: such a reservation would never come back */
	if (((cur ? cur->flags : 0) | f) & RESV_F_WEEKDAY &&
	    ((cur ? cur->flags : 0) | f) & RESV_F_WEEKEND)
		return -ESLURM_INVALID_ARGUMENT;
	return 0;
}

static void set_nodes(struct resv *r, char *nodes)
{
	free(r->nodes);
	r->nodes = nodes;
}

/* Nodes=: named ones, ALL of the partition (PART_NODES) or of the
 * cluster (ALL_NODES). */
static int where_named(const struct pick *p, const char *nodes, const struct part *part,
                       struct resv *r)
{
	char *out = NULL;
	int rc;

	r->flags |= RESV_F_SPEC_NODES;
	r->flags &= ~RESV_F_ALL_NODES;
	if (!strcasecmp(nodes, "ALL") && part && (r->flags & RESV_F_PART_NODES)) {
		rc = pick_named(p, "ALL", part, &out);
	} else {
		r->flags &= ~RESV_F_PART_NODES;
		if (!strcasecmp(nodes, "ALL"))
			r->flags |= RESV_F_ALL_NODES;
		rc = pick_named(p, nodes, NULL, &out);
	}
	if (!rc)
		set_nodes(r, out);
	return rc;
}

int resv_where(const struct pick *p, const struct resv_desc *q, const struct resv *cur,
               const struct part *part, struct resv *r)
{
	struct node_mgr *nm = p->ctld->nodes;
	uint32_t cnt = q->node_cnt == NO_VAL ? 0 : q->node_cnt;
	const char *nodes = q->nodes;
	char *out = NULL;
	int rc = 0;

	if (nodes && !*nodes) { /* Nodes= lets them go: a count takes anew */
		if (!cur)
			return -ESLURM_INVALID_NODE_NAME;
		r->flags &= ~(RESV_F_SPEC_NODES | RESV_F_ALL_NODES);
		if (!cnt)
			cnt = (uint32_t)cur->node_cnt;
		nodes = NULL;
		set_nodes(r, NULL);
	}
	if (nodes) {
		rc = where_named(p, nodes, part, r);
	} else if (!cur && (r->flags & RESV_F_ANY_NODES)) {
		set_nodes(r, NULL); /* licenses alone, whatever the count */
		r->flags &= ~RESV_F_PART_NODES;
	} else if (cnt) {
		r->flags &= ~(RESV_F_PART_NODES | RESV_F_ALL_NODES);
		if (!part && !(part = node_mgr_part_default(nm)))
			return -ESLURM_DEFAULT_PARTITION_NOT_SET;
		if (!r->partition)
			r->partition = xstrdup(part->cfg->name);
		if (cnt > part->nnodes)
			return -ESLURM_INVALID_NODE_COUNT;
		rc = pick_count(p, cnt, part, &out);
		if (!rc)
			set_nodes(r, out);
	} else if (!cur && !r->licenses) {
		if (!part)
			return -ESLURM_INVALID_NODE_COUNT;
		r->flags |= RESV_F_PART_NODES; /* a partition alone: all of it */
		rc = where_named(p, "ALL", part, r);
	} else if (cur && r->nodes && (q->start || q->end || q->duration != NO_VAL)) {
		/* moved: its nodes must be free at the new time too */
		rc = pick_named(p, r->nodes, NULL, &out);
		if (!rc)
			set_nodes(r, out);
	}
	if (rc)
		return rc;
	/* no nodes: licenses alone (ANY_NODES) */
	if (!r->nodes && !r->licenses)
		return -ESLURM_RESERVATION_INVALID;
	return 0;
}

/* An idle node of r's partition (of the cluster without one) that is not
 * r's, up, and free of jobs and other reservations over the rest of r. */
static int replacement_ok(const struct pick *p, const struct resv *r, size_t i)
{
	const struct node *nd = node_mgr_get(p->ctld->nodes, i);

	return !(i < r->nmember && r->member[i]) && !nd->down &&
	       !(nd->flags & (NODE_DRAIN | NODE_FAIL)) && !nd->alloc_cpus &&
	       !node_reserved(p, i) && !node_busy(p, i);
}

int resv_replenish(struct ctld *ctld, struct resv *r, const uint32_t *gone, size_t ngone,
                   time_t now)
{
	struct node_mgr *nm = ctld->nodes;
	const struct part *part;
	struct pick p = {.ctld = ctld, .self = r, .end = r->end};
	size_t total = node_mgr_count(nm), k = 0, lost = 0, found = 0;
	uint8_t *drop;
	char **out = NULL;
	struct resv moved;

	if (!(r->flags & RESV_F_REPLACES) || r->cores_given || !r->nodes || r->end <= now)
		return 0;
	part = r->partition ? node_mgr_part_find(nm, r->partition) : NULL;
	p.start = r->start > now ? r->start : now;
	p.flags = r->flags & ~RESV_F_IGNORE_JOBS;
	resv_members(ctld, r);
	drop = xcalloc(total ? total : 1, 1);
	for (size_t j = 0; (r->flags & RESV_F_REPLACE) && j < ngone; j++)
		if (gone[j] < r->nmember && r->member[gone[j]] && !drop[gone[j]]) {
			drop[gone[j]] = 1;
			lost++;
		}
	for (size_t i = 0; i < r->nmember; i++) {
		const struct node *nd = node_mgr_get(nm, i);
		if (r->member[i] && !drop[i] &&
		    (nd->down || (nd->flags & (NODE_DRAIN | NODE_FAIL)))) {
			drop[i] = 1;
			lost++;
		}
	}
	/* the replacements, as many as there are (marked 2) ... */
	for (size_t j = 0; lost && found < lost && j < (part ? part->nnodes : total);
	     j++) {
		size_t i = part ? part->node_idx[j] : j;
		if (replacement_ok(&p, r, i)) {
			drop[i] = 2;
			found++;
		}
	}
	/* ... and its own, the lost ones kept where none took their place,
	 * in node order */
	lost -= found;
	out = xcalloc(total + 1, sizeof(char *));
	for (size_t i = 0; found && i < total; i++) {
		int mine = i < r->nmember && r->member[i];
		if ((!mine && drop[i] != 2) || (mine && drop[i] && !lost))
			continue;
		if (mine && drop[i])
			lost--;
		out[k++] = node_mgr_get(nm, i)->cfg->name;
	}
	if (found) {
		moved = *r;
		moved.nodes = hostlist_compress(out, k);
		log_info("reservation %s: %s replaces %zu node(s): %s", r->name,
		         (r->flags & RESV_F_REPLACE) ? "REPLACE" : "REPLACE_DOWN", found,
		         moved.nodes);
		resv_commit(ctld, &moved, 0, now);
		free(moved.nodes);
	}
	free(out);
	free(drop);
	return found > 0;
}
