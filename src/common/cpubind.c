/* cpubind.c - srun --cpu-bind parsing; see cpubind.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/cpubind.h"
#include "common/xmalloc.h"
#include "common/common.h"

static const char *const share_units[] = {
    "cores", "threads", "sockets", "ldoms", "boards", "rank",
    "core",  "thread",  "socket",  "ldom",  "board",  "rank_ldom",
};

/* Is the token p[0..len) a unit each task gets a share of? */
static int is_share_unit(const char *p, size_t len)
{
	for (size_t i = 0; i < sizeof(share_units) / sizeof(share_units[0]); i++)
		if (strlen(share_units[i]) == len && !strncasecmp(p, share_units[i], len))
			return 1;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One entry's CPU ids from "7", "0x7" (map) or "0x6", "6" (mask, hex). */
static int entry_parse(const char *s, size_t len, int mask, uint32_t **ret,
                       uint32_t *ret_n)
{
	uint32_t *ids = NULL, n = 0;
	int hex = mask;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
		hex = 1;
	}
	if (!len)
		return -EINVAL;
	if (mask) {
		/* bit b of the mask is CPU b: the last digit holds CPUs 0-3 */
		if (len * 4 > CPUBIND_MAX_CPU)
			return -EINVAL;
		ids = xcalloc(len * 4, sizeof(uint32_t));
		for (size_t d = 0; d < len; d++) {
			int v = hexval(s[len - 1 - d]);
			if (v < 0) {
				free(ids);
				return -EINVAL;
			}
			for (int b = 0; b < 4; b++)
				if (v & (1 << b))
					ids[n++] = (uint32_t)(d * 4 + (size_t)b);
		}
		if (!n) {
			free(ids);
			return -EINVAL;
		}
	} else {
		unsigned long v = 0;
		for (size_t d = 0; d < len; d++) {
			int x = hexval(s[d]);
			if (x < 0 || (!hex && x > 9))
				return -EINVAL;
			v = v * (hex ? 16 : 10) + (unsigned long)x;
			if (v >= CPUBIND_MAX_CPU)
				return -EINVAL;
		}
		ids = xcalloc(1, sizeof(uint32_t));
		ids[n++] = (uint32_t)v;
	}
	*ret = ids;
	*ret_n = n;
	return 0;
}

/* "ID[*N],ID..." into b's entries. */
int cpubind_list_parse(const char *list, int mask, struct cpubind *b)
{
	const char *p = list;

	if (!*p)
		return -EINVAL;
	while (*p) {
		size_t len = strcspn(p, ",*");
		unsigned long rep = 1;
		uint32_t *ids, n;

		if (entry_parse(p, len, mask, &ids, &n) < 0)
			return -EINVAL;
		p += len;
		if (*p == '*') {
			char *end;
			rep = strtoul(p + 1, &end, 10);
			if (end == p + 1 || rep == 0 || (*end && *end != ',')) {
				free(ids);
				return -EINVAL;
			}
			p = end;
		}
		if (rep > CPUBIND_MAX_ENTRIES - b->n) {
			free(ids);
			return -EINVAL;
		}
		b->cnt = xrealloc(b->cnt, (b->n + rep) * sizeof(uint32_t));
		b->ids = xrealloc(b->ids, (b->n + rep) * sizeof(uint32_t *));
		for (unsigned long r = 0; r < rep; r++) {
			b->cnt[b->n] = n;
			if (r) {
				b->ids[b->n] = xcalloc(n, sizeof(uint32_t));
				memcpy(b->ids[b->n], ids, n * sizeof(uint32_t));
			} else {
				b->ids[b->n] = ids;
			}
			b->n++;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
		if (*p == '\0' && p[-1] == ',')
			return -EINVAL;
	}
	return 0;
}

/* Tokens are split on ',' except inside a map/mask list, which runs to the
 * end (Slurm's syntax puts it last). */
int cpubind_parse(const char *arg, struct cpubind *out, struct rota_error *err)
{
	struct cpubind b = {0};
	const char *p = arg ? arg : "";

	while (*p) {
		size_t len = strcspn(p, ",");
		int rc = 0;

		if (!strncasecmp(p, "map_cpu:", 8) || !strncasecmp(p, "mask_cpu:", 9)) {
			int mask = !strncasecmp(p, "mask_cpu:", 9);
			b.type = mask ? CPUBIND_MASK : CPUBIND_MAP;
			rc = cpubind_list_parse(p + (mask ? 9 : 8), mask, &b);
			len = strlen(p);
		} else if (!strncasecmp(p, "map_ldom:", 9) ||
		           !strncasecmp(p, "mask_ldom:", 10)) {
			b.type = CPUBIND_SHARE; /* a share of the step's CPUs */
			rc = p[strcspn(p, ":") + 1] ? 0 : -EINVAL;
			len = strlen(p);
		} else if ((len == 1 && (*p == 'q' || *p == 'Q')) ||
		           (len == 5 && !strncasecmp(p, "quiet", 5))) {
			b.verbose = 0;
		} else if ((len == 1 && (*p == 'v' || *p == 'V')) ||
		           (len == 7 && !strncasecmp(p, "verbose", 7))) {
			b.verbose = 1;
		} else if (len == 4 && !strncasecmp(p, "help", 4)) {
			cpubind_release(&b);
			return 1;
		} else if ((len == 4 && !strncasecmp(p, "none", 4)) ||
		           (len == 2 && !strncasecmp(p, "no", 2))) {
			b.type = CPUBIND_NONE;
		} else if (is_share_unit(p, len)) {
			b.type = CPUBIND_SHARE;
		} else {
			rc = -EINVAL;
		}
		if (rc < 0) {
			cpubind_release(&b);
			errprintf(err, "Invalid --cpu-bind argument: %s", arg);
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*out = b;
	return 0;
}

void cpubind_release(struct cpubind *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		free(b->ids[i]);
	free(b->ids);
	free(b->cnt);
	memset(b, 0, sizeof(*b));
}

const char *cpubind_word(const struct cpubind *b)
{
	switch (b->type) {
	case CPUBIND_NONE:
		return "NONE";
	case CPUBIND_MAP:
		return "MAP ";
	default:
		return "MASK";
	}
}
