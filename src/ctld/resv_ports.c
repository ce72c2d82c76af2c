#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/mpiparams.h"
#include "ctld/ctld.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "ctld/resv_ports.h"
#include "ctld/step_alloc.h"
#include "common/common.h"

/* Mark in used[] (bit p - min) the ports of "a-b,c,...", those in range. */
static void mark_ports(const char *s, uint32_t min, uint32_t max, uint8_t *used)
{
	while (s && *s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long p = a; p <= b && p <= max; p++)
			if (p >= min)
				used[(p - min) >> 3] |= (uint8_t)(1u << ((p - min) & 7));
		s = *end == ',' ? end + 1 : NULL;
	}
}

/* Does a step on these nodes (mine: 1 for each of the new step's nodes)
 * share one with st? */
static int shares_node(const struct step *st, const uint8_t *mine)
{
	for (uint32_t i = 0; i < st->nnodes; i++)
		if (mine[st->node_idx[i]])
			return 1;
	return 0;
}

/* The ports the running steps on the new step's nodes hold. */
static void ports_in_use(struct ctld *ctld, const uint8_t *mine, uint32_t min,
                         uint32_t max, uint8_t *used)
{
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		if (!job_is_running(j))
			continue;
		for (const struct step *st = j->run->steps; st; st = st->next)
			if (st->resv_ports && shares_node(st, mine))
				mark_ports(st->resv_ports, min, max, used);
	}
}

/* "a-b,c" of the n ports in got[] (ascending). */
static char *ports_text(const uint32_t *got, uint32_t n)
{
	size_t cap = (size_t)n * 12 + 1, len = 0;
	char *s = xcalloc(cap, 1);

	for (uint32_t i = 0; i < n;) {
		uint32_t k = i;
		while (k + 1 < n && got[k + 1] == got[k] + 1)
			k++;
		len +=
		    (size_t)snprintf(s + len, cap - len, "%s%u", len ? "," : "", got[i]);
		if (k > i)
			len += (size_t)snprintf(s + len, cap - len, "-%u", got[k]);
		i = k + 1;
	}
	return s;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* How many the step asks: --resv-ports=N, else with ports configured its
 * most tasks on a node plus one. */
static uint32_t ports_wanted(const struct step_create_req *req,
                             const struct step_layout *l, int configured)
{
	uint32_t most = 0;

	if (req->flags & STEP_F_RESV_PORTS)
		return req->resv_ports;
	if (!configured)
		return 0;
	for (uint32_t i = 0; i < l->n; i++)
		if (l->tasks[i] > most)
			most = l->tasks[i];
	return most + 1;
}

int resv_ports_alloc(struct ctld *ctld, const struct job *job,
                     const struct step_create_req *req, struct step_layout *l)
{
	struct rota_error err = {""};
	uint32_t min = 0, max = 0, range, want, n = 0, *got;
	int configured = mpi_params_ports(ctld->conf->mpi_params, &min, &max, &err) > 0;
	uint8_t *mine, *used;

	want = ports_wanted(req, l, configured);
	if (!want)
		return 0;
	range = configured ? max - min + 1 : 0;
	if (want > range)
		return -ESLURM_PORTS_INVALID;
	mine = xcalloc(node_mgr_count(ctld->nodes) + 1, 1);
	for (uint32_t i = 0; i < l->n; i++)
		mine[job->run->node_idx[l->pos[i]]] = 1;
	used = xcalloc(range / 8 + 1, 1);
	ports_in_use(ctld, mine, min, max, used);
	got = xcalloc(want, sizeof(uint32_t));
	for (uint32_t k = 0; k < range && n < want; k++) {
		uint32_t off = (ctld->resv_port_next + k) % range;
		if (!(used[off >> 3] & (1u << (off & 7))))
			got[n++] = min + off;
	}
	if (n == want) {
		ctld->resv_port_next = (got[n - 1] - min + 1) % range;
		qsort(got, n, sizeof(*got), cmp_u32);
		l->resv_ports = ports_text(got, n);
	}
	free(got);
	free(used);
	free(mine);
	return n == want ? 0 : -ESLURM_PORTS_BUSY;
}
