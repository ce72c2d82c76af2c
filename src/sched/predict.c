#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/predict.h"
#include "common/common.h"

/* User history: an open-addressing hash of user id -> recent runtimes. */
struct predict_user {
	int64_t user;      /* -1: empty slot */
	int64_t last;      /* latest runtime */
	int64_t prev;      /* the one before; 0 while unknown */
	int64_t prev2;     /* the one before that; 0 while unknown */
	int64_t count;     /* finished jobs */
	double sum_log;    /* sum of log(runtime) over them */
	double last_ratio; /* log(runtime / requested) of the latest */
};

/* The learned model: a linear function of LEARN_FEATURES features of a job
 * (logs of its request, width and its user's recent runtimes), fitted on line
 * to log(runtime) by normalized least mean squares with an asymmetric squared
 * loss: an underestimate weighs LEARN_UNDER times an overestimate (Gaussier,
 * Glesser, Reis and Trystram's E-Loss idea, SC'15: an underestimate breaks
 * reservations, an overestimate only loses a backfilling chance). */
enum { LEARN_FEATURES = 9 };
#define LEARN_RATE  0.05
#define LEARN_UNDER 4.0

struct predict {
	enum predict_kind kind;
	enum predict_correction correction;
	size_t n, cap; /* cap is 0 or a power of two */
	struct predict_user *users;
	double w[LEARN_FEATURES]; /* PREDICT_LEARNED's weights */
};

static const char *const kind_names[] = {
    [PREDICT_REQUESTED] = "requested",
    [PREDICT_EXACT] = "exact",
    [PREDICT_USER_MEAN2] = "user-mean2",
    [PREDICT_LEARNED] = "learned",
};

struct predict *predict_create(enum predict_kind kind)
{
	struct predict *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->kind = kind;
	/* start as "the requested time": weight 1 on log(requested) */
	p->w[1] = 1.0;
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
    [PREDICT_CORRECT_INCREMENT] = "increment",
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

static double log_time(int64_t t)
{
	return log(t < 1 ? 1.0 : (double)t);
}

/* The features of a job of `q->user`'s next job, from its history u (NULL or
 * another user's slot: none yet). */
static void learn_features(const struct predict_user *u, const struct predict_job *q,
                           double x[LEARN_FEATURES])
{
	double req = log_time(q->requested);
	int known = u && u->user == q->user && u->count > 0;

	x[0] = 1.0;
	x[1] = req;
	x[2] = known ? log_time(u->last) : req;
	x[3] = known && u->prev ? log_time(u->prev) : x[2];
	x[4] = known && u->prev2 ? log_time(u->prev2) : x[3];
	x[5] = known ? u->sum_log / (double)u->count : req;
	x[6] = log_time(q->procs);
	x[7] = known ? u->last_ratio : 0.0;
	x[8] = known ? 0.0 : 1.0;
}

static double learn_dot(const double *w, const double *x)
{
	double y = 0;

	for (int i = 0; i < LEARN_FEATURES; i++)
		y += w[i] * x[i];
	return y;
}

static const struct predict_user *user_find(const struct predict *p, int64_t user)
{
	const struct predict_user *u = user >= 0 ? user_slot(p, user) : NULL;

	return u && u->user == user ? u : NULL;
}

int64_t predict_estimate_job(const struct predict *p, const struct predict_job *q)
{
	const struct predict_user *u;
	int64_t est = q->requested;
	double x[LEARN_FEATURES], y;

	switch (p->kind) {
	case PREDICT_EXACT:
		est = q->actual;
		break;
	case PREDICT_USER_MEAN2:
		u = user_find(p, q->user);
		if (u && u->prev > 0)
			est = (u->last + u->prev) / 2;
		if (est > q->requested)
			est = q->requested;
		break;
	case PREDICT_LEARNED:
		learn_features(user_find(p, q->user), q, x);
		y = learn_dot(p->w, x);
		if (y < log_time(q->requested))
			est = (int64_t)exp(y < 0 ? 0 : y);
		break;
	case PREDICT_REQUESTED:
		break;
	}
	return est < 1 ? 1 : est;
}

int64_t predict_estimate(const struct predict *p, int64_t user, int64_t requested,
                         int64_t actual)
{
	return predict_estimate_job(
	    p, &(struct predict_job){
	           .user = user, .requested = requested, .actual = actual, .procs = 1});
}

/* One step of normalized LMS on the finished job q, before its user's history
 * takes it in. */
static void learn_step(struct predict *p, const struct predict_user *u,
                       const struct predict_job *q)
{
	double x[LEARN_FEATURES], norm = 1.0, err, g;

	learn_features(u, q, x);
	err = log_time(q->actual) - learn_dot(p->w, x);
	for (int i = 0; i < LEARN_FEATURES; i++)
		norm += x[i] * x[i];
	g = LEARN_RATE * (err > 0 ? LEARN_UNDER : 1.0) * err / norm;
	for (int i = 0; i < LEARN_FEATURES; i++)
		p->w[i] += g * x[i];
}

int predict_record_job(struct predict *p, const struct predict_job *q)
{
	struct predict_user *u;
	int64_t runtime = q->actual < 1 ? 1 : q->actual;

	if (p->kind == PREDICT_LEARNED && q->requested >= 1)
		learn_step(p, user_find(p, q->user), q);
	if ((p->kind != PREDICT_USER_MEAN2 && p->kind != PREDICT_LEARNED) || q->user < 0)
		return 0;
	if ((p->n + 1) * 2 > p->cap && user_grow(p) < 0)
		return -ENOMEM;
	u = user_slot(p, q->user);
	if (u->user != q->user) {
		*u = (struct predict_user){.user = q->user};
		p->n++;
	}
	u->prev2 = u->prev;
	u->prev = u->last;
	u->last = runtime;
	u->count++;
	u->sum_log += log_time(runtime);
	u->last_ratio =
	    q->requested >= 1 ? log_time(runtime) - log_time(q->requested) : 0;
	return 0;
}

int predict_record(struct predict *p, int64_t user, int64_t runtime)
{
	return predict_record_job(p,
	                          &(struct predict_job){.user = user, .actual = runtime});
}

/* Tsafrir et al.'s increments: the k-th correction sets the estimate to the
 * first estimate plus ladder[k] (1 min, then 5 min, 15 min ...). */
static const int64_t ladder[] = {0,         60,        5 * 60,    15 * 60,
                                 30 * 60,   3600,      2 * 3600,  5 * 3600,
                                 10 * 3600, 20 * 3600, 50 * 3600, 100 * 3600};

int64_t predict_correct(const struct predict *p, int64_t est, int64_t requested)
{
	return predict_correct_nth(p, est, requested, 0);
}

int64_t predict_correct_nth(const struct predict *p, int64_t est, int64_t requested,
                            unsigned nth)
{
	int64_t next = est > INT64_MAX / 2 ? INT64_MAX : est * 2;
	size_t nl = sizeof(ladder) / sizeof(ladder[0]);

	if (p->correction == PREDICT_CORRECT_INCREMENT)
		next = nth + 1 < nl ? est - ladder[nth] + ladder[nth + 1] : next;

	if (est < requested &&
	    (next > requested || p->correction == PREDICT_CORRECT_REQUESTED))
		next = requested;
	return next > est ? next : est + 1;
}
