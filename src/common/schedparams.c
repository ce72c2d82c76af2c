#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/schedparams.h"
#include "common/common.h"

struct num_key {
	const char *name;
	size_t off;
	uint32_t min, max;
};

static const struct num_key num_keys[] = {
    {"bf_interval", offsetof(struct sched_params, bf_interval), 1, 10800},
    {"bf_job_part_count_reserve", offsetof(struct sched_params, bf_part_reserve), 0,
     100000},
    {"bf_max_job_test", offsetof(struct sched_params, bf_max_job_test), 1, 1000000},
    {"bf_resolution", offsetof(struct sched_params, bf_resolution), 1, 3600},
    {"bf_window", offsetof(struct sched_params, bf_window), 1, 43200},
    {"bf_yield_interval", offsetof(struct sched_params, bf_yield_interval), 1, 10000000},
    {"default_queue_depth", offsetof(struct sched_params, default_queue_depth), 1,
     1000000},
    {"journal_compact_mb", offsetof(struct sched_params, journal_compact_mb), 1, 65536},
    {"max_switch_wait", offsetof(struct sched_params, max_switch_wait), 0, 100000000},
};

/* The keys parse_one acts on, numbers and words: a key not here is skipped
 * before parse_one looks closer, so a new key must be listed, and the man
 * page generated from this list (common/conf_doc.h) names it. */
static const char *const known_keys[] = {
    "bf_interval",         "bf_job_part_count_reserve",
    "bf_max_job_test",     "bf_resolution",
    "bf_window",           "bf_yield_interval",
    "default_queue_depth", "journal_compact_mb",
    "max_switch_wait",     "bf_continue",
    "kill_invalid_depend", "enable_user_top",
    "replicate_sync",      "sched_order",
    "bf_estimate",         "whole_hetjob",
    "whole_pack",          "nohold_on_prolog_fail",
};

const char *const *sched_params_keys(size_t *ret_n)
{
	*ret_n = sizeof(known_keys) / sizeof(*known_keys);
	return known_keys;
}

static void set_num(struct sched_params *sp, const struct num_key *k, const char *v,
                    size_t len)
{
	char buf[24], *end;
	unsigned long n;

	if (!len || len >= sizeof(buf))
		return;
	memcpy(buf, v, len);
	buf[len] = 0;
	n = strtoul(buf, &end, 10);
	if (*end || buf[0] == '-')
		return;
	if (n < k->min)
		n = k->min;
	if (n > k->max)
		n = k->max;
	*(uint32_t *)((char *)sp + k->off) = (uint32_t)n;
}

static int word_is(const char *p, size_t len, const char *w)
{
	return strlen(w) == len && !strncasecmp(p, w, len);
}

enum { SET_RESERVE = 1, SET_ORDER = 2, SET_BEST = 4 };

static void parse_one(struct sched_params *sp, const char *p, size_t len, unsigned *set)
{
	const char *eq = memchr(p, '=', len);
	size_t klen = eq ? (size_t)(eq - p) : len;
	const char *v = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - klen - 1 : 0;
	size_t i;

	for (i = 0; i < sizeof(known_keys) / sizeof(*known_keys); i++)
		if (word_is(p, klen, known_keys[i]))
			break;
	if (i == sizeof(known_keys) / sizeof(*known_keys))
		return; /* a Slurm key Rota does not act on */
	for (i = 0; i < sizeof(num_keys) / sizeof(num_keys[0]); i++)
		if (v && word_is(p, klen, num_keys[i].name))
			set_num(sp, &num_keys[i], v, vlen);
	if (word_is(p, klen, "bf_job_part_count_reserve"))
		*set |= SET_RESERVE;
	if (word_is(p, klen, "bf_continue"))
		sp->bf_continue = 1;
	else if (word_is(p, klen, "kill_invalid_depend"))
		sp->kill_invalid_depend = 1;
	else if (word_is(p, klen, "enable_user_top"))
		sp->enable_user_top = 1;
	else if (word_is(p, klen, "replicate_sync"))
		sp->replicate_sync = 1;
	else if (word_is(p, klen, "whole_hetjob") || word_is(p, klen, "whole_pack"))
		sp->whole_hetjob = 1;
	else if (word_is(p, klen, "nohold_on_prolog_fail"))
		sp->nohold_on_prolog_fail = 1;
	else if (word_is(p, klen, "sched_order") && v) {
		sp->sched_order =
		    word_is(v, vlen, "saf_aged") || word_is(v, vlen, "saf-aged")
		        ? SCHED_ORDER_SAF_AGED
		        : SCHED_ORDER_PRIORITY;
		*set |= SET_ORDER;
	} else if (word_is(p, klen, "bf_estimate") && v) {
		sp->bf_predict =
		    word_is(v, vlen, "predict") || word_is(v, vlen, "user-mean2")
		        ? BF_ESTIMATE_PREDICT
		    : word_is(v, vlen, "learned") || word_is(v, vlen, "best")
		        ? BF_ESTIMATE_LEARNED
		        : BF_ESTIMATE_LIMIT;
		if (word_is(v, vlen, "best"))
			*set |= SET_BEST;
		else
			*set &= ~(unsigned)SET_BEST;
	}
}

void sched_params_parse(const char *text, struct sched_params *sp)
{
	*sp = (struct sched_params){
	    .bf_interval = 30,
	    .bf_max_job_test = 500,
	    .bf_resolution = 60,
	    .bf_window = 1440,
	    .bf_yield_interval = 50000,
	    .default_queue_depth = 100,
	    .journal_compact_mb = 64,
	    .max_switch_wait = 300,
	};
	unsigned set = 0;

	while (text && *text) {
		size_t len = strcspn(text, ",");
		parse_one(sp, text, len, &set);
		text += len + (text[len] ? 1 : 0);
	}
	/* bf_estimate=best: the whole policy, where not set otherwise */
	if ((set & SET_BEST) && !(set & SET_ORDER))
		sp->sched_order = SCHED_ORDER_SAF_AGED;
	if ((set & SET_BEST) && !(set & SET_RESERVE))
		sp->bf_part_reserve = 1;
}
