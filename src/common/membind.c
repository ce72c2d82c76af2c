/* membind.c - --mem-bind (see membind.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/membind.h"
#include "common/common.h"

static int word_is(const char *p, size_t n, const char *w, const char *abbrev)
{
	return (strlen(w) == n && !strncasecmp(p, w, n)) ||
	       (abbrev && strlen(abbrev) == n && !strncasecmp(p, abbrev, n));
}

static int bad(struct membind *out, struct rota_error *err)
{
	membind_release(out);
	return errprintf(err, "Invalid --mem-bind specification"), -EINVAL;
}

int membind_parse(const char *arg, struct membind *out, struct rota_error *err)
{
	const char *p = arg;

	memset(out, 0, sizeof(*out));
	if (!p || !*p)
		return bad(out, err);
	while (*p) {
		size_t n = strcspn(p, ",");
		int list = 0;

		if (word_is(p, n, "help", NULL)) {
			membind_release(out);
			return 1;
		} else if (word_is(p, n, "quiet", "q")) {
			out->verbose = 0;
		} else if (word_is(p, n, "verbose", "v")) {
			out->verbose = 1;
		} else if (word_is(p, n, "prefer", NULL)) {
			out->prefer = 1;
		} else if (word_is(p, n, "sort", NULL) || word_is(p, n, "nosort", NULL)) {
			/* page randomization: nothing to do here */
		} else if (word_is(p, n, "none", "no")) {
			out->type = MEMBIND_NONE;
		} else if (word_is(p, n, "local", NULL)) {
			out->type = MEMBIND_LOCAL;
		} else if (word_is(p, n, "rank", NULL)) {
			out->type = MEMBIND_RANK;
		} else if (!strncasecmp(p, "map_mem:", 8) ||
		           !strncasecmp(p, "mask_mem:", 9)) {
			int mask = !strncasecmp(p, "mask_mem:", 9);
			out->type = mask ? MEMBIND_MASK : MEMBIND_MAP;
			cpubind_release(&out->list);
			/* the list is the rest: its entries are comma separated */
			if (cpubind_list_parse(p + (mask ? 9 : 8), mask, &out->list) < 0)
				return bad(out, err);
			list = 1;
		} else {
			return bad(out, err);
		}
		if (list)
			break;
		p += n;
		if (*p == ',')
			p++;
	}
	for (uint32_t i = 0; i < out->list.n; i++)
		for (uint32_t k = 0; k < out->list.cnt[i]; k++)
			if (out->list.ids[i][k] >= MEMBIND_MAX_NODE)
				return bad(out, err);
	return 0;
}

void membind_release(struct membind *b)
{
	cpubind_release(&b->list);
	memset(b, 0, sizeof(*b));
}

uint64_t membind_nodes(const struct membind *b, uint32_t ltid, uint32_t nnodes)
{
	uint64_t all = nnodes >= 64 ? ~0ull : (1ull << nnodes) - 1, m = 0;

	switch (b->type) {
	case MEMBIND_RANK:
		return nnodes ? 1ull << (ltid % (nnodes < 64 ? nnodes : 64)) : 0;
	case MEMBIND_MAP:
	case MEMBIND_MASK: {
		uint32_t e;
		if (!b->list.n)
			return 0;
		e = ltid % b->list.n;
		for (uint32_t k = 0; k < b->list.cnt[e]; k++)
			m |= 1ull << b->list.ids[e][k];
		return m & all;
	}
	default:
		return 0;
	}
}

const char *membind_word(const struct membind *b)
{
	switch (b->type) {
	case MEMBIND_NONE:
		return "NONE";
	case MEMBIND_LOCAL:
		return "LOC ";
	case MEMBIND_RANK:
		return "RANK";
	case MEMBIND_MAP:
		return "MAP ";
	case MEMBIND_MASK:
		return "MASK";
	default:
		return "DEF ";
	}
}
