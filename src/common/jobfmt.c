#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/jobfmt.h"
#include "common/common.h"

#define JOBFMT_STEP_BATCH 0xfffffffbu /* same value as STEP_BATCH in messages.h */
#define JOBFMT_WIDTH_MAX  10
#define JOBFMT_NO_VAL     0xfffffffeu /* same value as NO_VAL in messages.h */

/* A small growable string that reports ENOMEM instead of aborting. */
struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sbuf_str(struct sbuf *b, const char *s)
{
	if (s)
		sbuf_add(b, s, strlen(s));
}

static void sbuf_num(struct sbuf *b, unsigned width, uint32_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%0*u", (int)width, v);
	sbuf_add(b, tmp, (size_t)n);
}

char *jobfmt_counts(const uint32_t *v, size_t n)
{
	struct sbuf b = {0};

	sbuf_add(&b, "", 0);
	for (size_t i = 0; i < n;) {
		size_t run = 1;
		char tmp[48];
		int len;

		while (i + run < n && v[i + run] == v[i])
			run++;
		if (run > 1)
			len = snprintf(tmp, sizeof(tmp), "%s%u(x%zu)", i ? "," : "", v[i],
			               run);
		else
			len = snprintf(tmp, sizeof(tmp), "%s%u", i ? "," : "", v[i]);
		sbuf_add(&b, tmp, (size_t)len);
		i += run;
	}
	if (b.err) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

int jobfmt_spread_tasks(uint32_t ntasks, const uint32_t *cap, size_t n, uint32_t *out)
{
	uint32_t placed = 0;
	int over = 0;

	if (n == 0)
		return -EINVAL;
	memset(out, 0, n * sizeof(*out));
	/* Count as if cyclic (round j gives one task to every node with room for
	 * j+1), so heterogeneous nodes fill evenly; tasks are then numbered in
	 * blocks by the caller. */
	for (uint32_t j = 0; placed < ntasks; j++) {
		int room_left = 0;
		for (size_t i = 0; i < n && placed < ntasks; i++) {
			if (j < cap[i] || over) {
				out[i]++;
				placed++;
				if (j + 1 < cap[i])
					room_left = 1;
			}
		}
		if (!room_left)
			over = 1;
	}
	return 0;
}

void jobfmt_node_cpus(const uint32_t *v, size_t vn, uint32_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = i < vn ? v[i] : vn == 1 ? v[0] : 1;
}

static int jobfmt_given(uint32_t v)
{
	return v && v != JOBFMT_NO_VAL;
}

char *jobfmt_tasks_per_node(const struct jobfmt_tasks *t, const uint32_t *cpus, size_t n)
{
	uint32_t cpt = jobfmt_given(t->cpus_per_task) ? t->cpus_per_task : 1;
	uint32_t *cap = n ? calloc(n, sizeof(*cap)) : NULL;
	uint32_t *out = n ? calloc(n, sizeof(*out)) : NULL;
	uint64_t ntasks = 0;
	char *s = NULL;

	if (!cap || !out)
		goto out;
	for (size_t i = 0; i < n; i++) {
		cap[i] = cpus[i] / cpt;
		ntasks += cap[i];
	}
	if (jobfmt_given(t->num_tasks))
		ntasks = t->num_tasks;
	else if (jobfmt_given(t->ntasks_per_node))
		ntasks = (uint64_t)t->ntasks_per_node * n;
	if (ntasks < n)
		ntasks = n;
	if (ntasks > UINT32_MAX)
		ntasks = UINT32_MAX;
	jobfmt_spread_tasks((uint32_t)ntasks, cap, n, out);
	s = jobfmt_counts(out, n);
out:
	free(cap);
	free(out);
	return s;
}

/* Append the expansion of one conversion letter. */
static void expand_one(struct sbuf *b, char c, unsigned w, const struct jobfmt_ids *ids)
{
	switch (c) {
	case 'j':
	case 'J':
		sbuf_num(b, w, ids->job_id);
		if (c == 'J' && ids->step_id != JOBFMT_STEP_BATCH) {
			sbuf_add(b, ".", 1);
			sbuf_num(b, 0, ids->step_id);
		}
		break;
	case 's':
		if (ids->step_id == JOBFMT_STEP_BATCH)
			sbuf_str(b, "batch");
		else
			sbuf_num(b, w, ids->step_id);
		break;
	case 'A':
		sbuf_num(b, w, ids->array_job_id ? ids->array_job_id : ids->job_id);
		break;
	case 'a':
		sbuf_num(b, w, ids->array_task_id);
		break;
	case 'n':
		sbuf_num(b, w, ids->node_index);
		break;
	case 't':
		sbuf_num(b, w, ids->task_id);
		break;
	case 'u':
		sbuf_str(b, ids->user);
		break;
	case 'x':
		sbuf_str(b, ids->job_name);
		break;
	case 'N':
		sbuf_str(b, ids->node_name);
		break;
	default:
		break;
	}
}

static int is_conversion(char c)
{
	return c && strchr("jJsAantuxN", c) != NULL;
}

static void expand_literal(struct sbuf *b, const char *p)
{
	for (; *p; p++)
		if (*p != '\\')
			sbuf_add(b, p, 1);
}

int jobfmt_filename(const char *pattern, const struct jobfmt_ids *ids, char **ret)
{
	struct sbuf b = {0};
	const char *p = pattern;

	sbuf_add(&b, "", 0);
	if (strchr(pattern, '\\'))
		expand_literal(&b, pattern);
	while (!strchr(pattern, '\\') && *p && b.len <= JOBFMT_NAME_MAX) {
		const char *q = p + 1;
		unsigned w = 0;

		if (*p != '%') {
			sbuf_add(&b, p++, 1);
			continue;
		}
		if (*q == '%') {
			sbuf_add(&b, "%", 1);
			p = q + 1;
			continue;
		}
		while (*q >= '0' && *q <= '9') {
			if (w < 1000)
				w = w * 10 + (unsigned)(*q - '0');
			q++;
		}
		if (!is_conversion(*q)) { /* not ours: keep the text as written */
			sbuf_add(&b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		expand_one(&b, *q, w > JOBFMT_WIDTH_MAX ? JOBFMT_WIDTH_MAX : w, ids);
		p = q + 1;
	}
	if (b.err || b.len > JOBFMT_NAME_MAX) {
		free(b.s);
		return b.err ? b.err : -ENAMETOOLONG;
	}
	*ret = b.s;
	return 0;
}
