/* gpubind.c - --gpu-bind parsing and per-task GPUs; see gpubind.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/gpubind.h"
#include "common/xmalloc.h"
#include "common/common.h"

/* "N" (1..65535) after a "word:" of len bytes. */
static int count_after(const char *p, size_t len, uint32_t *ret)
{
	char *end;
	unsigned long v;

	if (!p[len] || p[len] < '0' || p[len] > '9')
		return -EINVAL;
	v = strtoul(p + len, &end, 10);
	if (*end || v == 0 || v > 65535)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/* One token (a list runs to the end of arg: Slurm puts it last). */
static int token_parse(const char *p, size_t *len, struct gpubind *b)
{
	static const struct {
		const char *word;
		enum gpubind_type type;
	} fixed[] = {{"closest", GPUBIND_CLOSEST}, {"none", GPUBIND_NONE}};

	if (!strncasecmp(p, "map_gpu:", 8) || !strncasecmp(p, "mask_gpu:", 9)) {
		int mask = !strncasecmp(p, "mask_gpu:", 9);
		*len = strlen(p);
		b->type = mask ? GPUBIND_MASK : GPUBIND_MAP;
		return cpubind_list_parse(p + (mask ? 9 : 8), mask, &b->list);
	}
	if (!strncasecmp(p, "single:", 7) || !strncasecmp(p, "per_task:", 9)) {
		int single = !strncasecmp(p, "single:", 7);
		*len = strlen(p);
		b->type = single ? GPUBIND_SINGLE : GPUBIND_PER_TASK;
		return count_after(p, single ? 7 : 9, &b->n);
	}
	*len = strcspn(p, ",");
	if (*len == 7 && !strncasecmp(p, "verbose", 7)) {
		b->verbose = 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i].word) == *len &&
		    !strncasecmp(p, fixed[i].word, *len)) {
			b->type = fixed[i].type;
			return 0;
		}
	return -EINVAL;
}

int gpubind_parse(const char *arg, struct gpubind *out, struct rota_error *err)
{
	struct gpubind b = {0};
	const char *p = arg ? arg : "";

	while (*p) {
		size_t len = 0;
		if (token_parse(p, &len, &b) < 0) {
			gpubind_release(&b);
			errprintf(err, "Invalid --gpu-bind argument: %s", arg);
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*out = b;
	return 0;
}

void gpubind_release(struct gpubind *b)
{
	cpubind_release(&b->list);
	memset(b, 0, sizeof(*b));
}

/* The position of GPU id (relative or a node index) among n's; -1: none. */
static int position(const struct gpubind_node *n, uint32_t id)
{
	if (n->relative)
		return id < n->ngpus ? (int)id : -1;
	for (uint32_t p = 0; p < n->ngpus; p++)
		if (n->idx[p] == id)
			return (int)p;
	return -1;
}

uint64_t gpubind_task(const struct gpubind *b, const struct gpubind_node *n,
                      uint32_t ltid, uint64_t close)
{
	uint32_t ngpus = n->ngpus < GPUBIND_MAX_GPUS ? n->ngpus : GPUBIND_MAX_GPUS;
	uint64_t all = ngpus == 64 ? ~0ull : (1ull << ngpus) - 1, got = 0;

	if (!ngpus)
		return 0;
	close &= all;
	switch (b->type) {
	case GPUBIND_CLOSEST:
		got = close;
		break;
	case GPUBIND_SINGLE: { /* a block of n tasks on each GPU near them */
		uint64_t from = close ? close : all;
		uint32_t m = (uint32_t)__builtin_popcountll(from), k = (ltid / b->n) % m;
		for (uint32_t p = 0; p < ngpus; p++)
			if ((from >> p & 1) && k-- == 0) {
				got = 1ull << p;
				break;
			}
		break;
	}
	case GPUBIND_PER_TASK:
		for (uint32_t i = 0; i < b->n && i < ngpus; i++)
			got |= 1ull << (((uint64_t)ltid * b->n + i) % ngpus);
		break;
	case GPUBIND_MAP:
	case GPUBIND_MASK:
		if (!b->list.n)
			break;
		for (uint32_t i = 0; i < b->list.cnt[ltid % b->list.n]; i++) {
			int p = position(n, b->list.ids[ltid % b->list.n][i]);
			if (p >= 0 && p < (int)ngpus)
				got |= 1ull << p;
		}
		break;
	default:
		break;
	}
	return got ? got : all;
}

char *gpubind_list(const struct gpubind_node *n, uint64_t bits, int relative)
{
	size_t cap = (size_t)GPUBIND_MAX_GPUS * 11 + 1, len = 0;
	char *s = xcalloc(cap, 1);

	for (uint32_t p = 0; p < n->ngpus && p < GPUBIND_MAX_GPUS; p++)
		if (bits >> p & 1)
			len += (size_t)snprintf(s + len, cap - len, "%s%u",
			                        len ? "," : "", relative ? p : n->idx[p]);
	return s;
}
