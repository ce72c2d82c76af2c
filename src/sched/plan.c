#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/plan.h"
#include "common/common.h"

#define PLAN_MIN_CAP 16

struct plan {
	int64_t total;
	size_t n; /* steps in use, >= 1 */
	size_t cap;
	int64_t *t;    /* [n] step starts, t[0] == PLAN_TIME_MIN, ascending */
	int64_t *used; /* [n] processors in use during the step */
};

static int plan_reserve(struct plan *p, size_t want)
{
	size_t cap = p->cap;
	int64_t *t, *used;

	if (want <= p->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	t = realloc(p->t, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	p->t = t;
	used = realloc(p->used, cap * sizeof(*used));
	if (!used)
		return -ENOMEM;
	p->used = used;
	p->cap = cap;
	return 0;
}

struct plan *plan_create(int64_t total)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->t = malloc(PLAN_MIN_CAP * sizeof(*p->t));
	p->used = malloc(PLAN_MIN_CAP * sizeof(*p->used));
	if (!p->t || !p->used) {
		plan_destroy(p);
		return NULL;
	}
	p->cap = PLAN_MIN_CAP;
	p->total = total;
	plan_clear(p);
	return p;
}

void plan_destroy(struct plan *p)
{
	if (!p)
		return;
	free(p->t);
	free(p->used);
	free(p);
}

int plan_copy(struct plan *dst, const struct plan *src)
{
	if (plan_reserve(dst, src->n) < 0)
		return -ENOMEM;
	memcpy(dst->t, src->t, src->n * sizeof(*src->t));
	memcpy(dst->used, src->used, src->n * sizeof(*src->used));
	dst->n = src->n;
	dst->total = src->total;
	return 0;
}

void plan_clear(struct plan *p)
{
	p->n = 1;
	p->t[0] = PLAN_TIME_MIN;
	p->used[0] = 0;
}

int64_t plan_total(const struct plan *p)
{
	return p->total;
}

size_t plan_steps(const struct plan *p)
{
	return p->n;
}

/* Index of the step holding time x: the last i with t[i] <= x. */
static size_t plan_find(const struct plan *p, int64_t x)
{
	size_t lo = 0, hi = p->n; /* t[lo] <= x < t[hi] (t[n] = +inf) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Index of a step starting exactly at x, splitting one if needed.  Capacity for
 * one more step must have been reserved.  x == PLAN_TIME_MAX means "the end". */
static size_t plan_split(struct plan *p, int64_t x)
{
	size_t i;

	if (x == PLAN_TIME_MAX)
		return p->n;
	i = plan_find(p, x);
	if (p->t[i] == x)
		return i;
	i++;
	memmove(p->t + i + 1, p->t + i, (p->n - i) * sizeof(*p->t));
	memmove(p->used + i + 1, p->used + i, (p->n - i) * sizeof(*p->used));
	p->t[i] = x;
	p->used[i] = p->used[i - 1];
	p->n++;
	return i;
}

/* Merge step i into step i-1 when they hold the same usage. */
static void plan_merge(struct plan *p, size_t i)
{
	if (i == 0 || i >= p->n || p->used[i] != p->used[i - 1])
		return;
	memmove(p->t + i, p->t + i + 1, (p->n - i - 1) * sizeof(*p->t));
	memmove(p->used + i, p->used + i + 1, (p->n - i - 1) * sizeof(*p->used));
	p->n--;
}

int plan_add(struct plan *p, int64_t start, int64_t end, int64_t delta)
{
	size_t si, ei;

	if (start >= end)
		return -EINVAL;
	if (!delta)
		return 0;
	if (plan_reserve(p, p->n + 2) < 0)
		return -ENOMEM;
	si = plan_split(p, start);
	ei = plan_split(p, end);
	for (size_t i = si; i < ei; i++)
		p->used[i] += delta;
	plan_merge(p, ei);
	plan_merge(p, si);
	return 0;
}

int64_t plan_free_at(const struct plan *p, int64_t t)
{
	return p->total - p->used[plan_find(p, t)];
}

int64_t plan_min_free(const struct plan *p, int64_t start, int64_t end)
{
	size_t i = plan_find(p, start);
	int64_t most = p->used[i];

	for (i++; i < p->n && p->t[i] < end; i++) {
		if (p->used[i] > most)
			most = p->used[i];
	}
	return p->total - most;
}

int plan_earliest(const struct plan *p, int64_t from, int64_t procs, int64_t dur,
                  int64_t *ret_start)
{
	int64_t cand = from;

	if (procs > p->total || dur < 1)
		return -EINVAL;
	for (size_t i = plan_find(p, from); i < p->n; i++) {
		int last = i + 1 == p->n;
		int64_t end = last ? PLAN_TIME_MAX : p->t[i + 1];

		if (p->total - p->used[i] < procs) {
			if (last)
				return -EINVAL;
			cand = end;
			continue;
		}
		if (last || end - cand >= dur) {
			*ret_start = cand;
			return 0;
		}
	}
	return -EINVAL; /* not reached: the last step always decides */
}

void plan_trim(struct plan *p, int64_t now)
{
	size_t i = plan_find(p, now);

	if (i > 0) {
		memmove(p->t, p->t + i, (p->n - i) * sizeof(*p->t));
		memmove(p->used, p->used + i, (p->n - i) * sizeof(*p->used));
		p->n -= i;
	}
	p->t[0] = PLAN_TIME_MIN;
}

void plan_step(const struct plan *p, size_t i, int64_t *ret_start, int64_t *ret_used)
{
	*ret_start = p->t[i];
	*ret_used = p->used[i];
}
