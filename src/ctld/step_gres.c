/* step_gres.c - which of its job's GRES devices a step gets (step_alloc.h).
 *
 * The job holds devices per node (its allocation strings, common/gres_req.h).
 * A step that asks for GRES (srun --gres, --gpus, --gpus-per-node,
 * --gpus-per-task) takes that many of the devices no other running step
 * holds, lowest index first; one that asks nothing gets all of the job's
 * devices on its nodes, as Slurm gives a step by default.  Steps hold what
 * they get (concurrent steps get disjoint GPUs), except --overlap steps, which
 * hold nothing and see all.  GRES the job holds without device indexes
 * (counts only) go to every step.  Pure: no I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/gres.h"
#include "common/gres_req.h"
#include "common/states.h"
#include "ctld/step_alloc.h"
#include "common/common.h"

/* One device of the job on a node. */
struct dev {
	char name[GRES_NAME_MAX], type[GRES_NAME_MAX];
	uint32_t idx;
	int held; /* by another step */
	int take; /* by this one */
};

struct node_devs {
	struct dev *d;
	size_t n;
};

/* The job's devices on job node k, with those other steps hold marked. */
static int devs_of(const struct job *job, uint32_t k, struct node_devs *nd)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	size_t n = 0, total = 0;

	nd->d = NULL;
	nd->n = 0;
	if (!job->run->gres || !job->run->gres[k] ||
	    gres_alloc_parse(job->run->gres[k], it, GRES_MAX_ITEMS, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		total += it[i].nidx;
	nd->d = xcalloc(total + 1, sizeof(*nd->d));
	for (size_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < it[i].nidx; j++) {
			struct dev *d = &nd->d[nd->n++];
			memcpy(d->name, it[i].name, sizeof(d->name));
			memcpy(d->type, it[i].type, sizeof(d->type));
			d->idx = it[i].idx[j];
		}
	for (const struct step *s = job->run->steps; s; s = s->next) {
		if (s->overlap || !s->gres)
			continue;
		for (uint32_t i = 0; i < s->nnodes; i++) {
			size_t m = 0;
			if (s->node_idx[i] != job->run->node_idx[k] || !s->gres[i] ||
			    gres_alloc_parse(s->gres[i], it, GRES_MAX_ITEMS, &m) < 0)
				continue;
			for (size_t a = 0; a < m; a++)
				for (uint32_t j = 0; j < it[a].nidx; j++)
					for (size_t b = 0; b < nd->n; b++)
						if (nd->d[b].idx == it[a].idx[j] &&
						    !strcmp(nd->d[b].name, it[a].name))
							nd->d[b].held = 1;
		}
	}
	return 0;
}

/* Take count devices of name[:type] (type "" any) on nd: 0, -ESLURM_NODES_BUSY
 * (the job has them, others hold them) or -ESLURM_INVALID_GRES. */
static int take(struct node_devs *nd, const char *name, const char *type, uint64_t count)
{
	uint64_t have = 0, free_now = 0;

	for (size_t i = 0; i < nd->n; i++) {
		const struct dev *d = &nd->d[i];
		if (strcmp(d->name, name) || (*type && strcmp(d->type, type)) || d->take)
			continue;
		have++;
		free_now += !d->held;
	}
	if (have < count)
		return -ESLURM_INVALID_GRES;
	if (free_now < count)
		return -ESLURM_NODES_BUSY;
	for (size_t i = 0; i < nd->n && count; i++) {
		struct dev *d = &nd->d[i];
		if (strcmp(d->name, name) || (*type && strcmp(d->type, type)) ||
		    d->take || d->held)
			continue;
		d->take = 1;
		count--;
	}
	return 0;
}

/* The allocation string of what nd takes (all of it with all set), plus the
 * job's count-only items (no indexes) of node string job_s. */
static char *taken_str(const struct node_devs *nd, int all, const char *job_s)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	char *out = xstrdup("");
	size_t n = 0;

	for (size_t i = 0; i < nd->n; i++) {
		uint32_t idx[64];
		size_t k = 0;
		char *ranges, *next;
		int first = 1;
		/* one item per name:type, at its first device */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(nd->d[j].name, nd->d[i].name) &&
			    !strcmp(nd->d[j].type, nd->d[i].type))
				first = 0;
		if (!first)
			continue;
		for (size_t j = i; j < nd->n && k < 64; j++)
			if (!strcmp(nd->d[j].name, nd->d[i].name) &&
			    !strcmp(nd->d[j].type, nd->d[i].type) &&
			    (all || nd->d[j].take))
				idx[k++] = nd->d[j].idx;
		if (!k)
			continue;
		ranges = gres_idx_ranges(idx, k);
		next = xasprintf("%s%s%s%s%s:%zu(IDX:%s)", out, *out ? "," : "",
		                 nd->d[i].name, *nd->d[i].type ? ":" : "", nd->d[i].type,
		                 k, ranges);
		free(ranges);
		free(out);
		out = next;
	}
	if (job_s && gres_alloc_parse(job_s, it, GRES_MAX_ITEMS, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			char *next;
			if (it[i].nidx)
				continue;
			next =
			    xasprintf("%s%s%s%s%s:%u", out, *out ? "," : "", it[i].name,
			              *it[i].type ? ":" : "", it[i].type, it[i].count);
			free(out);
			out = next;
		}
	return out;
}

/* What the step asks on its i-th node; per-job GPUs (--gpus) spread over its
 * nodes from the first on, as many as each has free. */
static int node_request(const struct step_create_req *req, const struct step_layout *l,
                        uint32_t i, struct node_devs *nd, uint64_t *jobwide_left)
{
	struct gres_item items[GRES_MAX_ITEMS];
	size_t n = 0;
	char type[GRES_NAME_MAX];
	uint32_t c;
	int rc;

	if (req->gres && gres_parse(req->gres, items, &n, NULL) < 0)
		return -ESLURM_INVALID_GRES;
	for (size_t k = 0; k < n; k++)
		if ((rc = take(nd, items[k].name, items[k].type, items[k].count)))
			return rc;
	if (req->gpus_per_node) {
		if (gres_gpu_parse(req->gpus_per_node, type, &c, NULL) < 0)
			return -ESLURM_INVALID_GRES;
		if ((rc = take(nd, "gpu", type, c)))
			return rc;
	}
	if (req->gpus_per_task) {
		if (gres_gpu_parse(req->gpus_per_task, type, &c, NULL) < 0)
			return -ESLURM_INVALID_GRES;
		if ((rc = take(nd, "gpu", type, (uint64_t)c * l->tasks[i])))
			return rc;
	}
	if (req->gpus && *jobwide_left) {
		uint64_t here = 0;
		if (gres_gpu_parse(req->gpus, type, &c, NULL) < 0)
			return -ESLURM_INVALID_GRES;
		for (size_t k = 0; k < nd->n; k++)
			here += !strcmp(nd->d[k].name, "gpu") &&
			        (!*type || !strcmp(nd->d[k].type, type)) &&
			        !nd->d[k].held && !nd->d[k].take;
		if (here > *jobwide_left)
			here = *jobwide_left;
		if (here && (rc = take(nd, "gpu", type, here)))
			return rc;
		*jobwide_left -= here;
	}
	return 0;
}

int step_gres_alloc(const struct job *job, const struct step_create_req *req,
                    struct step_layout *l)
{
	int asks = req->gres || req->gpus || req->gpus_per_node || req->gpus_per_task;
	int overlap = !!(req->flags & STEP_F_OVERLAP);
	uint64_t jobwide = 0, jobwide_all = 0;
	char type[GRES_NAME_MAX];
	uint32_t c;
	int rc = 0;

	if (!job->run->gres) /* a job without GRES: a step cannot ask for any */
		return asks ? -ESLURM_INVALID_GRES : 0;
	if (req->gpus) {
		if (gres_gpu_parse(req->gpus, type, &c, NULL) < 0)
			return -ESLURM_INVALID_GRES;
		jobwide = jobwide_all = c;
	}
	l->gres = xcalloc(l->n + 1, sizeof(char *));
	for (uint32_t i = 0; i < l->n && !rc; i++) {
		struct node_devs nd;
		const char *job_s = job->run->gres[l->pos[i]];
		devs_of(job, l->pos[i], &nd);
		if (!asks) {
			/* all of the job's here; held unless --overlap */
			for (size_t k = 0; k < nd.n && !overlap; k++)
				if (nd.d[k].held)
					rc = -ESLURM_NODES_BUSY;
			l->gres[i] = rc ? NULL : taken_str(&nd, 1, job_s);
		} else {
			if (overlap)
				for (size_t k = 0; k < nd.n; k++)
					nd.d[k].held = 0;
			rc = node_request(req, l, i, &nd, &jobwide);
			l->gres[i] = rc ? NULL : taken_str(&nd, 0, job_s);
		}
		free(nd.d);
	}
	if (!rc && jobwide) {
		/* not enough free on the step's nodes: busy if the job has them */
		uint64_t have = 0;
		for (uint32_t i = 0; i < l->n; i++)
			have += gres_alloc_count(job->run->gres[l->pos[i]], "gpu");
		rc = have >= jobwide_all ? -ESLURM_NODES_BUSY : -ESLURM_INVALID_GRES;
	}
	return rc;
}
