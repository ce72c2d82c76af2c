/* licenses.c - licenses counted by the scheduler (licenses.h). */
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/licenses.h"
#include "common/log.h"
#include "common/states.h"
#include "ctld/assoc.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/licenses.h"
#include "ctld/resv.h"
#include "proto/messages.h"
#include "common/common.h"

/* What an active reservation holds of a license (Licenses=): its own jobs
 * may take it, no other. */
struct lic_resv {
	const char *resv; /* borrowed from the reservation table for the pass */
	int k;
	uint32_t reserved, unused;
};

struct lic_pool {
	struct lic have[LIC_MAX]; /* configured totals */
	uint64_t used[LIC_MAX];   /* held by running jobs (a job's may exceed a
	                           * total lowered since it started) */
	int n, nlocal;            /* have[nlocal..n-1]: remote (resources) */
	struct lic_resv *resv;
	size_t nresv;
};

static void add_resv(void *arg, const char *resv, const char *lic, uint32_t reserved,
                     uint32_t unused)
{
	struct lic_pool *p = arg;
	int k = lic_find(p->have, p->n, lic);

	if (k < 0)
		return;
	p->resv = xrealloc(p->resv, (p->nresv + 1) * sizeof(*p->resv));
	p->resv[p->nresv++] = (struct lic_resv){resv, k, reserved, unused};
}

/* What reservations other than the job's own keep of license k. */
static uint64_t kept_from(const struct lic_pool *p, int k, const char *own)
{
	uint64_t u = 0;

	for (size_t i = 0; i < p->nresv; i++)
		if (p->resv[i].k == k && (!own || strcmp(own, p->resv[i].resv)))
			u += p->resv[i].unused;
	return u;
}

int lic_have(const struct ctld *ctld, struct lic *have, int *ret_nlocal)
{
	int n = ctld->conf->licenses ? lic_parse(ctld->conf->licenses, have, 1, NULL) : 0;

	if (n < 0)
		n = 0;
	if (ret_nlocal)
		*ret_nlocal = n;
	return ctld->assoc
	           ? assoc_res_licenses(ctld->assoc, ctld->conf->cluster_name, have, n)
	           : n;
}

int lic_desc_check(const struct ctld *ctld, struct job_desc *d)
{
	struct lic have[LIC_MAX], want[LIC_MAX];
	struct rota_error err = {{0}};
	int nh, nw;

	if (!d->ext || !d->ext->licenses)
		return 0;
	nh = lic_have(ctld, have, NULL);
	nw = lic_parse(d->ext->licenses, want, 0, &err);
	if (nw < 0) {
		log_info("submit rejected: --licenses=%.64s: %s", d->ext->licenses,
		         err.text);
		return -ESLURM_INVALID_LICENSES;
	}
	for (int i = 0; i < nw; i++) {
		int k = nh > 0 ? lic_find(have, nh, want[i].name) : -1;

		if (k < 0 || want[i].count > have[k].count) {
			log_info("submit rejected: license %s:%u: %s", want[i].name,
			         want[i].count,
			         k < 0 ? "not configured" : "more than there are");
			return -ESLURM_INVALID_LICENSES;
		}
	}
	free(d->ext->licenses);
	d->ext->licenses = nw ? lic_format(want, nw) : NULL;
	return 0;
}

/* What job holds of license k of p (0 when it names none). */
static uint32_t held(const struct lic_pool *p, int k, const struct lic *want, int nw)
{
	int i = lic_find(want, nw, p->have[k].name);

	return i < 0 ? 0 : want[i].count;
}

static int job_lics(const struct job *job, struct lic *want)
{
	int n = job_x(job)->licenses ? lic_parse(job_x(job)->licenses, want, 0, NULL) : 0;

	return n < 0 ? 0 : n;
}

struct lic_pool *lic_pool_begin(struct ctld *ctld)
{
	struct lic_pool *p = xcalloc(1, sizeof(*p));
	struct lic want[LIC_MAX];

	p->n = lic_have(ctld, p->have, &p->nlocal);
	if (!p->n) {
		free(p);
		return NULL;
	}
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		int nw;
		if (!job_is_running(j) || !(nw = job_lics(j, want)))
			continue;
		for (int k = 0; k < p->n; k++)
			p->used[k] += held(p, k, want, nw);
	}
	resv_lic_each(ctld, time(NULL), add_resv, p);
	return p;
}

uint32_t lic_pool_check(const struct lic_pool *p, const struct job *job)
{
	struct lic want[LIC_MAX];
	int nw;

	if (!job_x(job)->licenses)
		return 0;
	if (!(nw = job_lics(job, want)))
		return 0;
	/* Licenses= no longer names one it asks for: it waits, as in Slurm */
	if (!p)
		return WAIT_LICENSES;
	for (int i = 0; i < nw; i++) {
		int k = lic_find(p->have, p->n, want[i].name);
		if (k < 0 || p->used[k] + kept_from(p, k, job_x(job)->reservation) +
		                     want[i].count >
		                 p->have[k].count)
			return WAIT_LICENSES;
	}
	return 0;
}

void lic_pool_take(struct lic_pool *p, const struct job *job)
{
	struct lic want[LIC_MAX];
	int nw;

	if (!p || !job_x(job)->licenses || !(nw = job_lics(job, want)))
		return;
	for (int k = 0; k < p->n; k++)
		p->used[k] += held(p, k, want, nw);
	for (size_t i = 0; job_x(job)->reservation && i < p->nresv; i++) {
		struct lic_resv *r = &p->resv[i];
		uint32_t h = (uint32_t)held(p, r->k, want, nw);
		if (!strcmp(r->resv, job_x(job)->reservation))
			r->unused -= h < r->unused ? h : r->unused;
	}
}

void lic_pool_end(struct lic_pool *p)
{
	if (p)
		free(p->resv);
	free(p);
}

void lic_info(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	struct lic_pool *p = lic_pool_begin(ctld);
	struct lic_info_resp r = {0};

	(void)who;
	if (p && p->n) {
		r.lics = xcalloc((size_t)p->n, sizeof(*r.lics));
		for (int k = 0; k < p->n; k++) {
			r.lics[k].name = p->have[k].name;
			r.lics[k].total = p->have[k].count;
			r.lics[k].remote = k >= p->nlocal;
			r.lics[k].used =
			    (uint32_t)(p->used[k] < UINT32_MAX ? p->used[k] : UINT32_MAX);
			for (size_t i = 0; i < p->nresv; i++)
				if (p->resv[i].k == k)
					r.lics[k].reserved += p->resv[i].reserved;
		}
		r.lics_count = (uint32_t)p->n;
	}
	chan_send(ch, MSG_LIC_INFO_RESP, &r);
	free(r.lics);
	lic_pool_end(p);
}
