/* membind.c - --mem-bind (see membind.h). */
#include <ctype.h>
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

/* "map_mem:", "map_mem=", "mapmem:", "mask_mem:"...: the list's offset, or
 * 0 when p is none of them. */
static size_t list_word(const char *p)
{
	static const char *const words[] = {"map_mem", "mapmem", "mask_mem", "maskmem"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);
		if (!strncasecmp(p, words[i], n) && (p[n] == ':' || p[n] == '='))
			return n + 1;
	}
	return 0;
}

/* Options after a list ("0,1,verbose,prefer"): taken into b and cut off l. */
static void trailing_options(char *l, struct membind *b)
{
	for (;;) {
		char *c = strrchr(l, ',');
		const char *w = c ? c + 1 : NULL;
		size_t n = w ? strlen(w) : 0;
		if (!w)
			return;
		if (word_is(w, n, "verbose", "v"))
			b->verbose = 1;
		else if (word_is(w, n, "quiet", "q"))
			b->verbose = 0;
		else if (word_is(w, n, "prefer", "p"))
			b->prefer = 1;
		else if (!word_is(w, n, "sort", NULL) && !word_is(w, n, "nosort", NULL))
			return;
		*c = '\0';
	}
}

int membind_parse(const char *arg, struct membind *out, struct rota_error *err)
{
	const char *p = arg;

	memset(out, 0, sizeof(*out));
	if (!p || !*p)
		return bad(out, err);
	while (*p) {
		size_t n = strcspn(p, ","), skip;
		int list = 0;

		if (word_is(p, n, "help", NULL)) {
			membind_release(out);
			return 1;
		} else if (word_is(p, n, "quiet", "q")) {
			out->verbose = 0;
		} else if (word_is(p, n, "verbose", "v")) {
			out->verbose = 1;
		} else if (word_is(p, n, "prefer", "p")) {
			out->prefer = 1;
		} else if (word_is(p, n, "sort", NULL) || word_is(p, n, "nosort", NULL)) {
			/* page randomization: nothing to do here */
		} else if (word_is(p, n, "none", "no")) {
			out->type = MEMBIND_NONE;
		} else if (word_is(p, n, "local", NULL)) {
			out->type = MEMBIND_LOCAL;
		} else if (word_is(p, n, "rank", NULL)) {
			out->type = MEMBIND_RANK;
		} else if ((skip = list_word(p)) > 0) {
			int mask = tolower((unsigned char)p[2]) == 's'; /* mask_mem */
			char *l = xstrdup(p + skip);
			out->type = mask ? MEMBIND_MASK : MEMBIND_MAP;
			cpubind_release(&out->list);
			/* the list is the rest, its entries comma separated, but
			 * for options after it (Slurm takes "map_mem:0,1,v") */
			trailing_options(l, out);
			if (cpubind_list_parse(l, mask, &out->list) < 0) {
				free(l);
				return bad(out, err);
			}
			free(l);
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

int membind_nodes(const struct membind *b, uint32_t ltid, uint32_t nnodes, uint64_t *ret)
{
	uint64_t all = nnodes >= 64 ? ~0ull : (1ull << nnodes) - 1, m = 0;

	*ret = 0;
	switch (b->type) {
	case MEMBIND_RANK: /* node n for local task n (Slurm's) */
		m = ltid < 64 ? 1ull << ltid : 0;
		break;
	case MEMBIND_MAP:
	case MEMBIND_MASK: {
		uint32_t e;
		if (!b->list.n)
			return 0;
		e = ltid % b->list.n;
		for (uint32_t k = 0; k < b->list.cnt[e]; k++)
			m |= 1ull << b->list.ids[e][k];
		break;
	}
	default:
		return 0;
	}
	*ret = m;
	return m && !(m & ~all) ? 0 : -1;
}

const char *membind_word(const struct membind *b)
{
	switch (b->type) {
	case MEMBIND_NONE:
		return "NONE";
	case MEMBIND_LOCAL:
		return "LOC";
	case MEMBIND_RANK:
		return "RANK";
	case MEMBIND_MAP:
		return "MAP";
	case MEMBIND_MASK:
		return "MASK";
	default:
		return "NULL";
	}
}
