/* mailtype.c - --mail-type's words (see mailtype.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "common/mailtype.h"
#include "common/common.h"

/* In the order Slurm prints them. */
static const struct {
	const char *name;
	uint32_t bits;
} words[] = {
    {"ARRAY_TASKS", MAIL_ARRAY_TASKS},
    {"INVALID_DEPEND", MAIL_INVALID_DEPEND},
    {"BEGIN", MAIL_BEGIN},
    {"END", MAIL_END},
    {"FAIL", MAIL_FAIL},
    {"REQUEUE", MAIL_REQUEUE},
    {"STAGE_OUT", MAIL_STAGE_OUT},
    {"TIME_LIMIT_50", MAIL_TIME50},
    {"TIME_LIMIT_80", MAIL_TIME80},
    {"TIME_LIMIT_90", MAIL_TIME90},
    {"TIME_LIMIT", MAIL_TIME100},
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

long mail_type_parse(const char *s)
{
	long bits = 0;

	if (!s || !*s)
		return -1;
	while (*s) {
		size_t n = strcspn(s, ",");
		size_t i;
		if (n == 4 && !strncasecmp(s, "NONE", 4))
			return 0;
		if (n == 3 && !strncasecmp(s, "ALL", 3)) {
			bits |= MAIL_ALL;
		} else {
			for (i = 0; i < NWORDS; i++)
				if (strlen(words[i].name) == n &&
				    !strncasecmp(s, words[i].name, n))
					break;
			if (i == NWORDS)
				return -1;
			bits |= words[i].bits;
		}
		s += n;
		s += *s == ',';
	}
	return bits;
}

const char *mail_type_str(uint32_t type, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!type) {
		snprintf(buf, len, "NONE");
		return buf;
	}
	for (size_t i = 0; i < NWORDS && off < len; i++)
		if (type & words[i].bits) {
			int w = snprintf(buf + off, len - off, "%s%s", off ? "," : "",
			                 words[i].name);
			if (w > 0)
				off += (size_t)w;
		}
	return buf;
}
