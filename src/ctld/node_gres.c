#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctld/node_gres.h"
#include "common/gres_req.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"

int node_gres_register(struct node *n, struct node_register *reg, char *reason,
                       size_t len)
{
	struct gres_inv *found;
	int rc = 0;

	node_gres_release(n);
	n->gres_found = reg->gres ? reg->gres : xstrdup(n->cfg->gres);
	reg->gres = NULL;
	if (reg->gres_devs_count > GRES_DEVS_MAX) {
		log_err("node %s: %u gres devices, only %d kept", n->cfg->name,
		        reg->gres_devs_count, GRES_DEVS_MAX);
		for (uint32_t d = GRES_DEVS_MAX; d < reg->gres_devs_count; d++)
			codec_release(&gres_dev_info_type, &reg->gres_devs[d]);
		reg->gres_devs_count = GRES_DEVS_MAX;
	}
	n->gres_devs = reg->gres_devs;
	n->ngres_devs = reg->gres_devs_count;
	reg->gres_devs = NULL;
	reg->gres_devs_count = 0;
	if (!n->cfg->gres)
		return 0;
	found = gres_inv_create();
	if (!found)
		return 0;
	/* what does not parse counts as nothing found */
	if (n->gres_found && *n->gres_found)
		gres_inv_add_spec(found, n->gres_found, NULL);
	rc = gres_inv_check(n->cfg->gres, found, reason, len);
	gres_inv_destroy(found);
	return rc;
}

void node_gres_release(struct node *n)
{
	codec_release_list(&gres_dev_info_type, n->gres_devs, n->ngres_devs);
	free(n->gres_found);
	n->gres_devs = NULL;
	n->ngres_devs = 0;
	n->gres_found = NULL;
}

static int has_devices(const struct node *n, const char *name)
{
	for (uint32_t d = 0; d < n->ngres_devs; d++)
		if (n->gres_devs[d].name && !strcmp(n->gres_devs[d].name, name))
			return 1;
	return 0;
}

uint64_t node_gres_used_idx(const struct gres_kinds *gk, const struct node *n,
                            const char *name, const char *type, uint64_t *used)
{
	memset(used, 0, GRES_DEVS_MAX / 8);
	for (size_t k = 0; gk && k < gk->n; k++) {
		const struct gres_use *u = &n->gres_use;
		if (strcmp(gk->k[k].name, name) || strcmp(gk->k[k].type, type))
			continue;
		for (uint32_t i = 0; i < u->count[k] && i < GRES_USE_MAX_DEV; i++) {
			uint32_t bit = u->first[k] + i;
			if ((u->used[k] & (1ull << i)) && bit < GRES_DEVS_MAX)
				used[bit / 64] |= 1ull << (bit % 64);
		}
		return u->alloc[k];
	}
	return 0;
}

/* "(IDX:0-1,3)" for the bits of used, "(IDX:N/A)" when none. */
static void idx_format(const uint64_t *used, char *buf, size_t len)
{
	uint64_t cores[GRES_CORE_WORDS] = {0};
	char list[256];

	memcpy(cores, used, GRES_DEVS_MAX / 8);
	gres_cores_format(cores, list, sizeof(list));
	snprintf(buf, len, "(IDX:%s)", *list ? list : "N/A");
}

char *node_gres_used(const struct gres_kinds *gk, const struct node *n)
{
	struct gres_inv *conf = gres_inv_create();
	uint64_t used[GRES_DEVS_MAX / 64];
	char *out = NULL;
	size_t cap = 0;
	FILE *f;

	if (!conf || !n->cfg->gres || gres_inv_add_spec(conf, n->cfg->gres, NULL) < 0 ||
	    !(f = open_memstream(&out, &cap))) {
		gres_inv_destroy(conf);
		return NULL;
	}
	for (size_t i = 0; i < conf->nent; i++) {
		const struct gres_ent *e = &conf->ent[i];
		uint64_t count = node_gres_used_idx(gk, n, e->name, e->type, used);
		char idx[300];

		/* Slurm shows indexes for GRES with files */
		idx_format(used, idx, sizeof(idx));
		fprintf(f, "%s%s%s%s:%" PRIu64 "%s", i ? "," : "", e->name,
		        *e->type ? ":" : "", e->type, count,
		        has_devices(n, e->name) ? idx : "");
	}
	fclose(f);
	gres_inv_destroy(conf);
	return out;
}

int node_gres_dev_cores(const struct node *n, const char *name, uint32_t index,
                        uint64_t *cores)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n->ngres_devs; i++) {
		const struct gres_dev_info *d = &n->gres_devs[i];
		if (!d->name || strcmp(d->name, name))
			continue;
		if (k++ != index)
			continue;
		return d->cores && *d->cores && gres_cores_parse(d->cores, cores) == 0
		           ? 0
		           : -1;
	}
	return -1;
}

int node_gres_near(const struct node *n, const char *s, uint64_t *near)
{
	struct gres_alloc_item it[GRES_MAX_ITEMS];
	size_t count = 0;
	int any = 0;

	memset(near, 0, GRES_CORE_WORDS * sizeof(*near));
	if (!s || !*s || gres_alloc_parse(s, it, GRES_MAX_ITEMS, &count) < 0)
		return 0;
	for (size_t i = 0; i < count; i++)
		for (uint32_t j = 0; j < it[i].nidx; j++) {
			uint64_t c[GRES_CORE_WORDS];
			if (node_gres_dev_cores(n, it[i].name, it[i].idx[j], c) < 0)
				continue;
			for (size_t w = 0; w < GRES_CORE_WORDS; w++)
				near[w] |= c[w];
			any = 1;
		}
	return any;
}

int node_gres_bind_fits(const struct node *n, const char *s, uint32_t cpus)
{
	uint64_t near[GRES_CORE_WORDS];
	uint32_t free_near = 0;

	if (!node_gres_near(n, s, near))
		return 1;
	for (uint32_t c = 0; c < n->cpus && c < GRES_CORES_MAX; c++)
		free_near += (near[c / 64] >> (c % 64) & 1) && !n->core_used[c];
	return free_near >= cpus;
}
