#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sched/predict.h"
#include "common/common.h"

/* User history: an open-addressing hash of user id -> last two runtimes. */
struct predict_user {
	int64_t user; /* -1: empty slot */
	int64_t last; /* latest runtime */
	int64_t prev; /* the one before; 0 while unknown */
};

struct predict {
	enum predict_kind kind;
	enum predict_correction correction;
	size_t n, cap; /* cap is 0 or a power of two */
	struct predict_user *users;
};

static const char *const kind_names[] = {
    [PREDICT_REQUESTED] = "requested",
    [PREDICT_EXACT] = "exact",
    [PREDICT_USER_MEAN2] = "user-mean2",
};

struct predict *predict_create(enum predict_kind kind)
{
	struct predict *p = calloc(1, sizeof(*p));

	if (p)
		p->kind = kind;
	return p;
}

void predict_destroy(struct predict *p)
{
	if (!p)
		return;
	free(p->users);
	free(p);
}

enum predict_kind predict_kind(const struct predict *p)
{
	return p->kind;
}

int predict_kind_parse(const char *name, enum predict_kind *ret_kind)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (!strcmp(name, kind_names[i])) {
			*ret_kind = (enum predict_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *predict_kind_name(enum predict_kind kind)
{
	return kind_names[kind];
}

static const char *const correction_names[] = {
    [PREDICT_CORRECT_DOUBLE] = "double",
    [PREDICT_CORRECT_REQUESTED] = "requested",
};

void predict_set_correction(struct predict *p, enum predict_correction c)
{
	p->correction = c;
}

int predict_correction_parse(const char *name, enum predict_correction *ret_c)
{
	for (size_t i = 0; i < sizeof(correction_names) / sizeof(correction_names[0]);
	     i++) {
		if (!strcmp(name, correction_names[i])) {
			*ret_c = (enum predict_correction)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *predict_correction_name(enum predict_correction c)
{
	return correction_names[c];
}

static size_t user_hash(int64_t user, size_t cap)
{
	uint64_t h = (uint64_t)user * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static struct predict_user *user_slot(const struct predict *p, int64_t user)
{
	size_t i;

	if (!p->cap)
		return NULL;
	for (i = user_hash(user, p->cap);; i = (i + 1) & (p->cap - 1)) {
		if (p->users[i].user == user || p->users[i].user < 0)
			return &p->users[i];
	}
}

static int user_grow(struct predict *p)
{
	size_t cap = p->cap ? p->cap * 2 : 64;
	struct predict_user *old = p->users, *u;
	size_t oldcap = p->cap;

	u = malloc(cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		u[i].user = -1;
	p->users = u;
	p->cap = cap;
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].user >= 0)
			*user_slot(p, old[i].user) = old[i];
	}
	free(old);
	return 0;
}

int64_t predict_estimate(const struct predict *p, int64_t user, int64_t requested,
                         int64_t actual)
{
	const struct predict_user *u;
	int64_t est = requested;

	switch (p->kind) {
	case PREDICT_EXACT:
		est = actual;
		break;
	case PREDICT_USER_MEAN2:
		u = user >= 0 ? user_slot(p, user) : NULL;
		if (u && u->user == user && u->prev > 0)
			est = (u->last + u->prev) / 2;
		if (est > requested)
			est = requested;
		break;
	case PREDICT_REQUESTED:
		break;
	}
	return est < 1 ? 1 : est;
}

int predict_record(struct predict *p, int64_t user, int64_t runtime)
{
	struct predict_user *u;

	if (p->kind != PREDICT_USER_MEAN2 || user < 0)
		return 0;
	if ((p->n + 1) * 2 > p->cap && user_grow(p) < 0)
		return -ENOMEM;
	u = user_slot(p, user);
	if (u->user != user) {
		*u = (struct predict_user){.user = user};
		p->n++;
	}
	u->prev = u->last;
	u->last = runtime < 1 ? 1 : runtime;
	return 0;
}

int64_t predict_correct(const struct predict *p, int64_t est, int64_t requested)
{
	int64_t next = est > INT64_MAX / 2 ? INT64_MAX : est * 2;

	if (est < requested &&
	    (next > requested || p->correction == PREDICT_CORRECT_REQUESTED))
		next = requested;
	return next > est ? next : est + 1;
}
