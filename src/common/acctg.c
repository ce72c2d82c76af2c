#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/acctg.h"

/* One "kind=N" or "N" word of len bytes: the number, or -1. */
static long freq_word(const char *w, size_t len, const char **ret_kind, size_t *kind_len)
{
	const char *eq = memchr(w, '=', len);
	char num[16];
	char *end;
	size_t nlen;
	long v;

	*ret_kind = eq ? w : NULL;
	*kind_len = eq ? (size_t)(eq - w) : 0;
	if (eq) {
		nlen = len - (size_t)(eq + 1 - w);
		w = eq + 1;
	} else {
		nlen = len;
	}
	if (!nlen || nlen >= sizeof(num))
		return -1;
	memcpy(num, w, nlen);
	num[nlen] = '\0';
	errno = 0;
	v = strtol(num, &end, 10);
	if (errno || *end || v < 0 || v > (long)ACCTG_FREQ_MAX)
		return -1;
	return v;
}

static int kind_is(const char *kind, size_t len, const char *name)
{
	return strlen(name) == len && !strncasecmp(kind, name, len);
}

int acctg_freq_parse(const char *s, uint32_t *ret_secs)
{
	uint32_t task = ACCTG_FREQ_DEFAULT;

	if (!s || !*s) {
		*ret_secs = task;
		return 0;
	}
	while (*s) {
		size_t len = strcspn(s, ",");
		const char *kind;
		size_t klen;
		long v = freq_word(s, len, &kind, &klen);

		if (v < 0)
			return -1;
		if (!kind || kind_is(kind, klen, "task"))
			task = (uint32_t)v;
		else if (!kind_is(kind, klen, "energy") &&
		         !kind_is(kind, klen, "network") &&
		         !kind_is(kind, klen, "filesystem"))
			return -1;
		s += len;
		if (*s == ',' && !*++s)
			return -1;
	}
	*ret_secs = task;
	return 0;
}

int acctg_type_parse(const char *s, enum acctg_type *ret)
{
	static const struct {
		const char *name;
		enum acctg_type type;
	} types[] = {
	    {"jobacct_gather/cgroup", ACCTG_CGROUP},
	    {"jobacct_gather/linux", ACCTG_LINUX},
	    {"jobacct_gather/none", ACCTG_NONE},
	};

	if (!s || !*s) {
		*ret = ACCTG_CGROUP;
		return 0;
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcasecmp(s, types[i].name)) {
			*ret = types[i].type;
			return 0;
		}
	return -1;
}

const char *acctg_size(uint64_t value, int unit, enum acctg_convert conv, char *buf,
                       size_t len)
{
	static const char units[] = "\0KMGTP";
	double num = (double)value;

	if (!value) {
		snprintf(buf, len, "0");
		return buf;
	}
	/* EXACT, as Slurm does it: divide while the value is a multiple of half
	 * the divisor, so 2048K is "2M" and 1536K "1.50M", but 1000K stays */
	while (conv == ACCTG_CONVERT_EXACT && num >= 1024 && (uint64_t)num % 512 == 0 &&
	       unit < 5) {
		num /= 1024;
		unit++;
	}
	if (unit < 0 || unit > 5)
		unit = 0;
	if ((double)(uint64_t)num == num)
		snprintf(buf, len, "%" PRIu64 "%.*s", (uint64_t)num, unit ? 1 : 0,
		         &units[unit]);
	else
		snprintf(buf, len, "%.2f%.*s", num, unit ? 1 : 0, &units[unit]);
	return buf;
}
