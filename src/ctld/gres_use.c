/* gres_use.c - the cluster's GRES kinds and each node's devices. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "common/gres_req.h"
#include "ctld/gres_use.h"
#include "proto/messages.h"

static int kind_find(const struct gres_kinds *gk, const char *name, const char *type)
{
	for (size_t k = 0; k < gk->n; k++)
		if (!strcmp(gk->k[k].name, name) && !strcmp(gk->k[k].type, type))
			return (int)k;
	return -1;
}

static int kind_add(struct gres_kinds *gk, const char *name, const char *type,
                    const char *node_name)
{
	int k = kind_find(gk, name, type);

	if (k >= 0)
		return k;
	if (gk->n == SCHED_GRES_KINDS) {
		log_err("node %s: gres %s%s%s: more than %d GRES kinds in the cluster; "
		        "it is not scheduled",
		        node_name, name, *type ? ":" : "", type, SCHED_GRES_KINDS);
		return -1;
	}
	memset(&gk->k[gk->n], 0, sizeof(gk->k[gk->n]));
	memcpy(gk->k[gk->n].name, name, strnlen(name, GRES_NAME_MAX - 1));
	memcpy(gk->k[gk->n].type, type, strnlen(type, GRES_NAME_MAX - 1));
	return (int)gk->n++;
}

void gres_use_setup(struct gres_kinds *gk, struct gres_use *ng, const char *node_gres,
                    const char *node_name)
{
	struct gres_item items[GRES_MAX_ITEMS];
	size_t n = 0;

	memset(ng, 0, sizeof(*ng));
	if (!node_gres || !*node_gres || gres_parse_node(node_gres, items, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		int k = kind_add(gk, items[i].name, items[i].type, node_name);
		uint32_t first = 0;
		if (k < 0)
			continue;
		/* devices of one name are numbered on across its types */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(items[j].name, items[i].name))
				first += (uint32_t)items[j].count;
		ng->count[k] += items[i].count > UINT32_MAX / 2
		                    ? UINT32_MAX / 2
		                    : (uint32_t)items[i].count;
		if (!ng->first[k])
			ng->first[k] = first;
	}
}

/* The kinds of name[:type]: one typed kind, every type of an untyped name. */
static uint32_t kinds_of(const struct gres_kinds *gk, const char *name, const char *type)
{
	uint32_t mask = 0;

	for (size_t k = 0; k < gk->n; k++)
		if (!strcmp(gk->k[k].name, name) &&
		    (!*type || !strcmp(gk->k[k].type, type)))
			mask |= 1u << k;
	return mask;
}

static int want_add(const struct gres_kinds *gk, struct sched_req *r, const char *name,
                    const char *type, uint32_t per_node, uint32_t per_task,
                    uint32_t per_job, struct rota_error *err)
{
	uint32_t mask = kinds_of(gk, name, type);

	if (!mask)
		return errprintf(err, "no node has gres %s%s%s", name, *type ? ":" : "",
		                 type),
		       -EINVAL;
	if (r->ngres == SCHED_GRES_WANTS)
		return errprintf(err, "more than %d GRES requested", SCHED_GRES_WANTS),
		       -EINVAL;
	r->gres[r->ngres++] = (struct sched_gres_want){mask, per_node, per_task, per_job};
	return 0;
}

/* One GPU option "[type:]count" as a want; *ret_count gets the count. */
static int gpu_want(const struct gres_kinds *gk, struct sched_req *r, const char *spec,
                    int per, uint32_t *ret_count, struct rota_error *err)
{
	char type[GRES_NAME_MAX];
	uint32_t n;

	if (!spec)
		return 0;
	if (gres_gpu_parse(spec, type, &n, err) < 0)
		return -EINVAL;
	*ret_count = n;
	return want_add(gk, r, "gpu", type, per == 0 ? n : 0, per == 1 ? n : 0,
	                per == 2 ? n : 0, err);
}

/* --gpus-per-socket: that many on each of the --sockets-per-node sockets a
 * node gives the job, counted per node (which socket holds which GPU is not
 * followed). */
static int socket_want(const struct gres_kinds *gk, struct sched_req *r,
                       const struct job_desc *d, uint32_t *ret_count,
                       struct rota_error *err)
{
	const struct job_desc_ext *x = job_desc_X(d);
	char type[GRES_NAME_MAX];
	uint32_t n, sockets = x->sockets_per_node ? x->sockets_per_node : 1;

	if (!x->gpus_per_socket)
		return 0;
	if (gres_gpu_parse(x->gpus_per_socket, type, &n, err) < 0)
		return -EINVAL;
	if ((uint64_t)n * sockets > GRES_REQ_MAX_COUNT)
		return errprintf(err, "--gpus-per-socket: %u x %u sockets is too many", n,
		                 sockets),
		       -EINVAL;
	*ret_count = n * sockets;
	return want_add(gk, r, "gpu", type, n * sockets, 0, 0, err);
}

int gres_use_wants(const struct gres_kinds *gk, const struct job_desc *d,
                   struct sched_req *r, struct rota_error *err)
{
	const struct job_desc_ext *x = job_desc_X(d);
	struct gres_item items[GRES_MAX_ITEMS];
	uint32_t per_node = 0, per_task = 0, per_job = 0, per_socket = 0, gpn = 0;
	size_t n = 0;

	r->ngres = 0;
	if (x->gres && gres_parse(x->gres, items, &n, err) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = items[i].count > GRES_REQ_MAX_COUNT
		                 ? GRES_REQ_MAX_COUNT
		                 : (uint32_t)items[i].count;
		if (want_add(gk, r, items[i].name, items[i].type, c, 0, 0, err) < 0)
			return -EINVAL;
		if (!strcmp(items[i].name, "gpu"))
			gpn += c;
	}
	if (gpu_want(gk, r, x->gpus_per_node, 0, &per_node, err) < 0 ||
	    socket_want(gk, r, d, &per_socket, err) < 0 ||
	    gpu_want(gk, r, x->gpus_per_task, 1, &per_task, err) < 0 ||
	    gpu_want(gk, r, x->gpus, 2, &per_job, err) < 0)
		return -EINVAL;
	gpn += per_node + per_socket;
	if (x->cpus_per_gpu) {
		/* Slurm: CPUs per task follow the task's GPUs; a node's follow its */
		if (per_task && per_task * x->cpus_per_gpu > r->cpus_per_task)
			r->cpus_per_task = per_task * x->cpus_per_gpu;
		if (gpn && gpn * x->cpus_per_gpu > r->min_cpus)
			r->min_cpus = gpn * x->cpus_per_gpu;
		if (per_job) {
			uint32_t per = (per_job + r->min_nodes - 1) / r->min_nodes;
			if (per * x->cpus_per_gpu > r->min_cpus)
				r->min_cpus = per * x->cpus_per_gpu;
		}
	}
	if (x->mem_per_gpu && x->mem_per_gpu != NO_VAL64 && !r->mem_per_node &&
	    !r->mem_per_cpu) {
		uint32_t g = gpn ? gpn : per_task ? per_task : 1;
		if (per_job)
			g = (per_job + r->min_nodes - 1) / r->min_nodes;
		r->mem_per_node = x->mem_per_gpu * g;
	}
	return 0;
}

uint32_t gres_use_wants_items(const struct job_desc *d, const struct sched_req *r)
{
	const struct job_desc_ext *x = job_desc_X(d);
	uint32_t gpu =
	    !!x->gpus_per_node + !!x->gpus_per_socket + !!x->gpus_per_task + !!x->gpus;

	return r->ngres > gpu ? r->ngres - gpu : 0;
}

uint32_t gres_use_rank(const struct gres_use *ng, size_t k, uint32_t take,
                       const uint32_t *score, uint32_t *idx)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ng->count[k] && i < GRES_USE_MAX_DEV; i++) {
		uint32_t j = n++;
		if (ng->used[k] & (1ull << i)) {
			n--;
			continue;
		}
		/* insertion by score, stable: ties keep index order */
		while (score && j > 0 && score[idx[j - 1]] < score[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return n < take ? n : take;
}

char *gres_use_pick(const struct gres_kinds *gk, const struct gres_use *ng,
                    const uint32_t *take, const uint32_t *score)
{
	char *out = xstrdup("");

	for (size_t k = 0; k < gk->n; k++) {
		uint32_t idx[GRES_USE_MAX_DEV], n;
		char *ranges, *next;
		if (!take[k])
			continue;
		n = gres_use_rank(ng, k, take[k],
		                  score ? score + k * GRES_USE_MAX_DEV : NULL, idx);
		for (uint32_t a = 1; a < n; a++) /* ascending, as shown */
			for (uint32_t b = a; b > 0 && idx[b - 1] > idx[b]; b--) {
				uint32_t t = idx[b];
				idx[b] = idx[b - 1];
				idx[b - 1] = t;
			}
		for (uint32_t i = 0; i < n; i++)
			idx[i] += ng->first[k];
		ranges = gres_idx_ranges(idx, n);
		next = xasprintf("%s%s%s%s%s:%u%s%s%s", out, *out ? "," : "",
		                 gk->k[k].name, *gk->k[k].type ? ":" : "", gk->k[k].type,
		                 take[k], n ? "(IDX:" : "", ranges, n ? ")" : "");
		free(ranges);
		free(out);
		out = next;
	}
	return out;
}

/* Hold (on = 1) or give back the devices of allocation s. */
static void claim(const struct gres_kinds *gk, struct gres_use *ng, const char *s, int on)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	size_t n = 0;

	if (!s || !*s || gres_alloc_parse(s, it, GRES_MAX_ITEMS, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		int k = kind_find(gk, it[i].name, it[i].type);
		if (k < 0)
			continue;
		if (on)
			ng->alloc[k] += it[i].count;
		else
			ng->alloc[k] =
			    ng->alloc[k] > it[i].count ? ng->alloc[k] - it[i].count : 0;
		for (uint32_t j = 0; j < it[i].nidx; j++) {
			uint32_t bit = it[i].idx[j] - ng->first[k];
			if (it[i].idx[j] < ng->first[k] || bit >= GRES_USE_MAX_DEV)
				continue;
			if (on)
				ng->used[k] |= 1ull << bit;
			else
				ng->used[k] &= ~(1ull << bit);
		}
	}
}

void gres_use_claim(const struct gres_kinds *gk, struct gres_use *ng, const char *s)
{
	claim(gk, ng, s, 1);
}

void gres_use_release(const struct gres_kinds *gk, struct gres_use *ng, const char *s)
{
	claim(gk, ng, s, 0);
}

void gres_use_counts(const struct gres_kinds *gk, const char *s, uint32_t *take)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	size_t n = 0;

	memset(take, 0, SCHED_GRES_KINDS * sizeof(*take));
	if (!s || !*s || gres_alloc_parse(s, it, GRES_MAX_ITEMS, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		int k = kind_find(gk, it[i].name, it[i].type);
		if (k >= 0)
			take[k] += it[i].count;
	}
}

char *gres_use_str(const struct gres_kinds *gk, const struct gres_use *ng)
{
	char *out = xstrdup("");

	for (size_t k = 0; k < gk->n; k++) {
		uint32_t idx[GRES_USE_MAX_DEV], n = 0;
		char *ranges, *next;
		if (!ng->count[k])
			continue;
		for (uint32_t i = 0; i < ng->count[k] && i < GRES_USE_MAX_DEV; i++)
			if (ng->used[k] & (1ull << i))
				idx[n++] = ng->first[k] + i;
		ranges = n ? gres_idx_ranges(idx, n) : xstrdup("N/A");
		next = xasprintf("%s%s%s%s%s:%u(IDX:%s)", out, *out ? "," : "",
		                 gk->k[k].name, *gk->k[k].type ? ":" : "", gk->k[k].type,
		                 ng->alloc[k], ranges);
		free(ranges);
		free(out);
		out = next;
	}
	return out;
}
