/* test_policy.c - FCFS, EASY and conservative backfill (src/sched/policy.c), the
 * replay engine (src/sched/replay.c) and the predictors (src/sched/predict.c) on
 * workloads small enough to schedule by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "common/error.h"
#include "sched/plan.h"
#include "sched/policy.h"
#include "sched/predict.h"
#include "sched/replay.h"

#define NJOBS(a) (sizeof(a) / sizeof((a)[0]))

/* A pass at time 0 on 10 processors; `running` holds 6 processors until 100.
 * Returns the number started. */
static int pass_at_0(enum policy_kind kind, struct policy_job *q, size_t n)
{
	struct plan *running = plan_create(10);
	struct policy *pol = policy_create(kind, 10);
	struct policy_pass pass = {.now = 0};
	int rc;

	plan_add(running, -50, 100, 6);
	rc = policy_schedule(pol, running, &pass, q, n);
	policy_destroy(pol);
	plan_destroy(running);
	return rc;
}

/* Head B (8 procs) waits for the 6 running ones: shadow 100, extra 2.  C (4
 * procs, ends at 50) fits before the shadow: EASY and conservative start it,
 * FCFS does not. */
static void test_easy_backfills_fcfs_does_not(void **state)
{
	struct policy_job q[] = {{.ref = 'B', .procs = 8, .est = 100},
	                         {.ref = 'C', .procs = 4, .est = 50}};

	assert_int_equal(pass_at_0(POLICY_FCFS, q, 2), 0);
	assert_false(q[1].started);
	assert_int_equal(pass_at_0(POLICY_EASY, q, 2), 1);
	assert_false(q[0].started);
	assert_int_equal(q[0].start, 100); /* the head's reservation */
	assert_true(q[1].started);
	assert_int_equal(q[1].start, 0);
	assert_int_equal(pass_at_0(POLICY_CONSERVATIVE, q, 2), 1);
	assert_true(q[1].started);
}

/* D (4 procs, 200 s) fits now but would still run at the shadow time, where
 * only 2 processors are spare: starting it would delay the head.  E (2 procs,
 * 200 s) uses only the extra processors and may start. */
static void test_easy_never_delays_the_head(void **state)
{
	struct policy_job q[] = {{.ref = 'B', .procs = 8, .est = 100},
	                         {.ref = 'D', .procs = 4, .est = 200},
	                         {.ref = 'E', .procs = 2, .est = 200}};

	assert_int_equal(pass_at_0(POLICY_EASY, q, 3), 1);
	assert_false(q[1].started);
	assert_true(q[2].started);
	/* once E holds the extra processors, nothing else may cross the shadow */
	struct policy_job q2[] = {{.ref = 'B', .procs = 8, .est = 100},
	                          {.ref = 'E', .procs = 2, .est = 200},
	                          {.ref = 'F', .procs = 1, .est = 101}};
	assert_int_equal(pass_at_0(POLICY_EASY, q2, 3), 1);
	assert_true(q2[1].started);
	assert_false(q2[2].started);
	/* conservative: D waits for B to finish (reserved at 200) */
	assert_int_equal(pass_at_0(POLICY_CONSERVATIVE, q, 3), 1);
	assert_false(q[1].started);
	assert_int_equal(q[0].start, 100);
	assert_int_equal(q[1].start, 200);
	assert_true(q[2].started);
}

/* Two candidates that each fit the 4 free processors before the shadow time:
 * EASY takes the first in queue order, EASY-SJBF the shorter one. */
static void test_sjbf_tries_short_jobs_first(void **state)
{
	struct policy_job q[] = {{.ref = 'B', .procs = 8, .est = 100},
	                         {.ref = 'X', .procs = 4, .est = 90},
	                         {.ref = 'Y', .procs = 4, .est = 10}};

	assert_int_equal(pass_at_0(POLICY_EASY, q, 3), 1);
	assert_true(q[1].started);
	assert_false(q[2].started);
	assert_int_equal(pass_at_0(POLICY_EASY_SJBF, q, 3), 1);
	assert_false(q[1].started);
	assert_true(q[2].started);
	assert_int_equal(q[0].start, 100);
}

/* started says in which order the pass started the jobs: queue order for EASY,
 * shortest first among the backfilled ones for EASY-SJBF. */
static void test_started_is_the_start_order(void **state)
{
	struct policy_job q[] = {{.ref = 'B', .procs = 8, .est = 100},
	                         {.ref = 'X', .procs = 2, .est = 90},
	                         {.ref = 'Y', .procs = 2, .est = 10}};

	assert_int_equal(pass_at_0(POLICY_EASY, q, 3), 2);
	assert_int_equal(q[1].started, 1);
	assert_int_equal(q[2].started, 2);
	assert_int_equal(pass_at_0(POLICY_EASY_SJBF, q, 3), 2);
	assert_int_equal(q[1].started, 2);
	assert_int_equal(q[2].started, 1);
}

/* 4 processors free, room for one of A (long) and B (short): EASY starts the
 * first in queue order, EASY-SAF the smaller area, whose end gives A its
 * reservation; EASY-SAF-aged lets A go first once it has waited too long. */
static void test_priority_orders(void **state)
{
	struct policy_job q[] = {{.ref = 'A', .procs = 4, .est = 1000},
	                         {.ref = 'B', .procs = 4, .est = 10}};

	assert_int_equal(pass_at_0(POLICY_EASY, q, 2), 1);
	assert_true(q[0].started && !q[1].started);
	assert_int_equal(pass_at_0(POLICY_EASY_SAF, q, 2), 1);
	assert_true(!q[0].started && q[1].started);
	assert_int_equal(q[0].start, 10);
	assert_int_equal(pass_at_0(POLICY_EASY_SAF_AGED, q, 2), 1);
	assert_true(q[1].started); /* A has waited 0 s */
	q[0].submit = -POLICY_AGE_WAIT - 1;
	assert_int_equal(pass_at_0(POLICY_EASY_SAF_AGED, q, 2), 1);
	assert_true(q[0].started && !q[1].started);
	assert_int_equal(q[1].start, 100);
	assert_int_equal(q[0].ref, 'A'); /* the queue keeps the caller's order */
}

/* The aged key keeps the submit order on its own (the controller's sort
 * has no queue index to fall back on), below every area. */
static void test_saf_aged_key_orders_aged_jobs_by_submit(void **state)
{
	int64_t now = 1000000000; /* a Unix time: 2001 */
	double old = policy_saf_aged_key(100, 64, now - POLICY_AGE_WAIT - 2, now);
	double young = policy_saf_aged_key(100, 64, now - POLICY_AGE_WAIT - 1, now);

	assert_true(old < young);
	assert_true(young < policy_saf_aged_key(1, 1, now, now));
	assert_true(policy_saf_aged_key(1, 1, now, now) == 1.0);
	assert_true(policy_saf_aged_key(5, 3, now - 10, now) == 15.0);
}

static void test_fcfs_starts_in_order_until_blocked(void **state)
{
	struct policy_job q[] = {{.procs = 3, .est = 10},
	                         {.procs = 1, .est = 10},
	                         {.procs = 2, .est = 10},
	                         {.procs = 1, .est = 10}};

	/* 4 free: 3 + 1 start, the 2-processor job blocks the last one */
	assert_int_equal(pass_at_0(POLICY_FCFS, q, 4), 2);
	assert_true(q[0].started && q[1].started);
	assert_false(q[2].started || q[3].started);
}

static void test_invalid_jobs(void **state)
{
	struct policy_job big[] = {{.procs = 11, .est = 10}};
	struct policy_job zero[] = {{.procs = 1, .est = 0}};

	assert_int_equal(pass_at_0(POLICY_EASY, big, 1), -EINVAL);
	assert_int_equal(pass_at_0(POLICY_CONSERVATIVE, zero, 1), -EINVAL);
}

static void test_kind_names(void **state)
{
	enum policy_kind k;
	enum predict_kind pk;

	assert_int_equal(policy_kind_parse("conservative", &k), 0);
	assert_int_equal(k, POLICY_CONSERVATIVE);
	assert_string_equal(policy_kind_name(POLICY_EASY), "easy");
	assert_int_equal(policy_kind_parse("sjf", &k), -EINVAL);
	assert_int_equal(policy_kind_parse("easy-saf-aged", &k), 0);
	assert_int_equal(k, POLICY_EASY_SAF_AGED);
	assert_int_equal(predict_kind_parse("user-mean2", &pk), 0);
	assert_int_equal(pk, PREDICT_USER_MEAN2);
	assert_int_equal(predict_kind_parse("oracle", &pk), -EINVAL);
}

/* ---- whole replays ---- */

static struct replay_stats replay(enum policy_kind kind, enum predict_kind est,
                                  struct replay_job *jobs, size_t n, int64_t procs)
{
	struct replay_opts o = {.procs = procs, .policy = kind, .estimates = est};
	struct replay_stats st;
	struct rota_error err = {{0}};

	assert_int_equal(replay_run(&o, jobs, n, &st, &err), 0);
	return st;
}

/* 10 processors.  Jobs 1 and 2 hold 8 until 100 and 200; job 3 (all 10) waits
 * for 200.  Job 4 (6 procs) could run in [100, 200); job 5 (2 procs, 150 s)
 * fits now, at 3.
 *   FCFS:         5 waits behind 4, which waits behind 3: 3@200, 4@250, 5@250.
 *   EASY:         5 backfills at 3 (ends 153 <= shadow 200) and so keeps 4
 *                 out of [100, 200): 3@200, 4@250.
 *   conservative: 4 is reserved at 100 (6 free in [100, 200)); 5 would
 *                 overlap it, so 5 is reserved after 3: 4@100, 3@200, 5@250. */
static struct replay_job hand_jobs[] = {
    {.id = 1, .submit = 0, .run = 100, .req = 100, .procs = 4},
    {.id = 2, .submit = 0, .run = 200, .req = 200, .procs = 4},
    {.id = 3, .submit = 1, .run = 50, .req = 50, .procs = 10},
    {.id = 4, .submit = 2, .run = 100, .req = 100, .procs = 6},
    {.id = 5, .submit = 3, .run = 150, .req = 150, .procs = 2},
};

static void check_starts(const struct replay_job *jobs, const int64_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].start != want[i])
			fail_msg("job %lld started at %lld, expected %lld",
			         (long long)jobs[i].id, (long long)jobs[i].start,
			         (long long)want[i]);
	}
}

static void test_replay_three_policies(void **state)
{
	static const int64_t fcfs[] = {0, 0, 200, 250, 250};
	static const int64_t easy[] = {0, 0, 200, 250, 3};
	static const int64_t cons[] = {0, 0, 200, 100, 250};
	struct replay_stats st;

	st = replay(POLICY_FCFS, PREDICT_REQUESTED, hand_jobs, NJOBS(hand_jobs), 10);
	check_starts(hand_jobs, fcfs, NJOBS(hand_jobs));
	assert_int_equal(st.jobs, 5);
	assert_int_equal(st.makespan, 400); /* 5 ends at 250 + 150 */
	st = replay(POLICY_EASY, PREDICT_REQUESTED, hand_jobs, NJOBS(hand_jobs), 10);
	check_starts(hand_jobs, easy, NJOBS(hand_jobs));
	assert_int_equal(st.makespan, 350);
	/* waits 0 0 199 248 0; bsld 1 1 (199+50)/50 (248+100)/100 1 */
	assert_true(st.avg_wait > 89.39 && st.avg_wait < 89.41);
	assert_true(st.avg_bsld > (3 + 249.0 / 50 + 3.48) / 5 - 1e-9);
	assert_true(st.avg_bsld < (3 + 249.0 / 50 + 3.48) / 5 + 1e-9);
	st = replay(POLICY_CONSERVATIVE, PREDICT_REQUESTED, hand_jobs, NJOBS(hand_jobs),
	            10);
	check_starts(hand_jobs, cons, NJOBS(hand_jobs));
}

/* Two jobs end at 100.  A pass follows each completion: after job 1's, job 4
 * backfills into job 1's processors before the shadow time (job 2's estimate
 * says 200), so the head (job 3) cannot start when job 2 ends at 100 too. */
static void test_replay_one_pass_per_completion(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 1, .submit = 0, .run = 100, .req = 100, .procs = 5},
	    {.id = 2, .submit = 0, .run = 100, .req = 200, .procs = 5},
	    {.id = 3, .submit = 1, .run = 10, .req = 10, .procs = 10},
	    {.id = 4, .submit = 2, .run = 50, .req = 50, .procs = 5},
	};
	static const int64_t easy[] = {0, 0, 150, 100};
	static const int64_t exact[] = {0, 0, 100, 110};

	replay(POLICY_EASY, PREDICT_REQUESTED, jobs, NJOBS(jobs), 10);
	check_starts(jobs, easy, NJOBS(jobs));
	/* with exact estimates the shadow time is 100 and 4 may not start */
	replay(POLICY_EASY, PREDICT_EXACT, jobs, NJOBS(jobs), 10);
	check_starts(jobs, exact, NJOBS(jobs));
}

/* Jobs 2 and 1 both end at 100, before their requested times; 2 started first
 * and its completion is applied first (pyss's order), whatever the ids: the
 * pass between the two sees job 1 planned until 250, so job 4 (ends at 280)
 * may not backfill, and the head (job 3) starts at 100 once job 1 is gone too.
 * In id order job 4 would backfill against job 2's planned end, 300. */
static void test_replay_completions_in_start_order(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 2, .submit = 0, .run = 100, .req = 300, .procs = 5},
	    {.id = 1, .submit = 50, .run = 50, .req = 200, .procs = 5},
	    {.id = 3, .submit = 60, .run = 100, .req = 100, .procs = 10},
	    {.id = 4, .submit = 70, .run = 180, .req = 180, .procs = 5},
	};
	static const int64_t easy[] = {0, 50, 100, 200};

	replay(POLICY_EASY, PREDICT_REQUESTED, jobs, NJOBS(jobs), 10);
	check_starts(jobs, easy, NJOBS(jobs));
}

/* Jobs 3 and 4 arrive together while the head (2) waits for 100 with 2
 * processors spare until then.  Each arrival has its own pass (pyss's order):
 * 3 backfills at once and 4, the shorter, waits for 3 to end.  One pass for
 * both would try 4 first (shortest first) and start 3 only at 60. */
static void test_replay_one_pass_per_submission(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 1, .submit = 0, .run = 100, .req = 100, .procs = 8},
	    {.id = 2, .submit = 10, .run = 100, .req = 100, .procs = 10},
	    {.id = 3, .submit = 50, .run = 40, .req = 40, .procs = 2},
	    {.id = 4, .submit = 50, .run = 10, .req = 10, .procs = 2},
	};
	static const int64_t sjbf[] = {0, 100, 50, 90};

	replay(POLICY_EASY_SJBF, PREDICT_REQUESTED, jobs, NJOBS(jobs), 10);
	check_starts(jobs, sjbf, NJOBS(jobs));
}

/* Ties: same submit time, the lower id goes first whatever the array order. */
static void test_replay_ties_by_id(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 9, .submit = 5, .run = 10, .req = 10, .procs = 10},
	    {.id = 7, .submit = 5, .run = 10, .req = 10, .procs = 10},
	};

	replay(POLICY_FCFS, PREDICT_REQUESTED, jobs, 2, 10);
	assert_int_equal(jobs[1].start, 5);
	assert_int_equal(jobs[0].start, 15);
}

static void test_replay_rejects_bad_jobs(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 1, .submit = 0, .run = 10, .req = 10, .procs = 11}};
	struct replay_opts o = {.procs = 10, .policy = POLICY_EASY};
	struct replay_stats st;
	struct rota_error err = {{0}};

	assert_int_equal(replay_run(&o, jobs, 1, &st, &err), -EINVAL);
	assert_non_null(strstr(err.text, "job 1"));
	assert_int_equal(replay_run(&o, jobs, 0, &st, &err), 0);
	assert_int_equal(st.jobs, 0);
}

/* ---- predictors ---- */

static void test_predict_user_mean2(void **state)
{
	struct predict *p = predict_create(PREDICT_USER_MEAN2);

	assert_int_equal(predict_estimate(p, 7, 1000, 5), 1000); /* no history */
	assert_int_equal(predict_record(p, 7, 100), 0);
	assert_int_equal(predict_estimate(p, 7, 1000, 5), 1000); /* one is not enough */
	assert_int_equal(predict_record(p, 7, 300), 0);
	assert_int_equal(predict_estimate(p, 7, 1000, 5), 200);
	assert_int_equal(predict_estimate(p, 7, 150, 5), 150);   /* capped */
	assert_int_equal(predict_estimate(p, 8, 1000, 5), 1000); /* another user */
	assert_int_equal(predict_record(p, 7, 500), 0);
	assert_int_equal(predict_estimate(p, 7, 1000, 5), 400); /* last two */
	assert_int_equal(predict_record(p, -1, 5), 0);
	assert_int_equal(predict_record(p, -1, 5), 0);
	assert_int_equal(predict_estimate(p, -1, 1000, 5), 1000); /* unknown user */
	for (int u = 0; u < 1000; u++) {                          /* the table grows */
		predict_record(p, u + 100, u + 1);
		predict_record(p, u + 100, u + 3);
	}
	assert_int_equal(predict_estimate(p, 599, 1000, 5), 501);
	assert_int_equal(predict_estimate(p, 7, 1000, 5), 400);
	predict_destroy(p);
}

static void test_predict_other_kinds_and_correction(void **state)
{
	struct predict *req = predict_create(PREDICT_REQUESTED);
	struct predict *ex = predict_create(PREDICT_EXACT);

	predict_record(req, 1, 10);
	predict_record(req, 1, 10);
	assert_int_equal(predict_estimate(req, 1, 1000, 5), 1000);
	assert_int_equal(predict_estimate(ex, 1, 1000, 5), 5);
	assert_int_equal(predict_estimate(ex, 1, 1000, 0), 1);
	assert_int_equal(predict_correct(ex, 100, 1000), 200);
	assert_int_equal(predict_correct(ex, 600, 1000), 1000);
	assert_int_equal(predict_correct(ex, 1000, 1000), 2000); /* past its request */
	assert_int_equal(predict_correct(ex, 1, 1), 2);
	predict_set_correction(ex, PREDICT_CORRECT_REQUESTED);
	assert_int_equal(predict_correct(ex, 100, 1000), 1000);
	assert_int_equal(predict_correct(ex, 1000, 1000), 2000);
	enum predict_correction c;
	assert_int_equal(predict_correction_parse("requested", &c), 0);
	assert_int_equal(c, PREDICT_CORRECT_REQUESTED);
	assert_int_equal(predict_correction_parse("triple", &c), -EINVAL);
	assert_string_equal(predict_correction_name(PREDICT_CORRECT_DOUBLE), "double");
	predict_destroy(req);
	predict_destroy(ex);
}

/* The learned model starts from the requested time, learns that user 3's jobs
 * run about 100 s of the 10,000 they ask for, keeps its estimates within
 * [1, requested], and gives the same answers for the same history. */
static void test_predict_learned(void **state)
{
	struct predict *p = predict_create(PREDICT_LEARNED);
	struct predict *q = predict_create(PREDICT_LEARNED);
	struct predict_job job = {.user = 3, .requested = 10000, .procs = 4};
	enum predict_kind k;
	int64_t first, est;

	assert_int_equal(predict_kind_parse("learned", &k), 0);
	assert_int_equal(k, PREDICT_LEARNED);
	assert_string_equal(predict_kind_name(PREDICT_LEARNED), "learned");
	first = predict_estimate_job(p, &job);
	assert_in_range(first, 9000, 10000); /* nothing learned yet */
	for (int i = 0; i < 400; i++) {
		struct predict_job done = job;

		done.actual = 90 + (i % 3) * 10; /* 90, 100, 110 s */
		assert_int_equal(predict_record_job(p, &done), 0);
		assert_int_equal(predict_record_job(q, &done), 0);
	}
	est = predict_estimate_job(p, &job);
	assert_in_range(est, 50, 400);
	assert_int_equal(predict_estimate_job(q, &job), est); /* deterministic */
	job.requested = 60;                                   /* capped by the request */
	assert_in_range(predict_estimate_job(p, &job), 1, 60);
	job.requested = 10000;
	job.user = 4; /* a user without history: still learned, in range */
	assert_in_range(predict_estimate_job(p, &job), 1, 10000);
	predict_destroy(p);
	predict_destroy(q);
}

/* Tsafrir's increments: the first estimate plus 1 min, 5 min, 15 min ... */
static void test_predict_correct_increment(void **state)
{
	struct predict *p = predict_create(PREDICT_LEARNED);
	enum predict_correction c;

	assert_int_equal(predict_correction_parse("increment", &c), 0);
	predict_set_correction(p, c);
	assert_int_equal(predict_correct_nth(p, 100, 100000, 0), 160);
	assert_int_equal(predict_correct_nth(p, 160, 100000, 1), 400);
	assert_int_equal(predict_correct_nth(p, 400, 100000, 2), 1000);
	assert_int_equal(predict_correct_nth(p, 1000, 1200, 3), 1200); /* capped */
	assert_int_equal(predict_correct_nth(p, 1000, 1000, 3),
	                 1900); /* past it: goes on */
	assert_int_equal(predict_correct_nth(p, 500, 1000000, 11), 1000);
	predict_destroy(p);
}

/* A prediction that is too short is corrected while the job runs: user 1's
 * history says 10 s, job 3 runs 100 s (asked 1000): corrected to 20, 40, 80,
 * 160.  Meanwhile EASY plans job 4 with those estimates. */
static void test_replay_corrections(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 1, .submit = 0, .run = 10, .req = 1000, .procs = 1, .user = 1},
	    {.id = 2, .submit = 0, .run = 10, .req = 1000, .procs = 1, .user = 1},
	    {.id = 3, .submit = 20, .run = 100, .req = 1000, .procs = 4, .user = 1},
	    {.id = 4, .submit = 21, .run = 10, .req = 10, .procs = 4, .user = 2},
	};
	struct replay_stats st;

	st = replay(POLICY_EASY, PREDICT_USER_MEAN2, jobs, NJOBS(jobs), 4);
	assert_int_equal(st.corrections, 4);
	assert_int_equal(jobs[2].start, 20);
	assert_int_equal(jobs[3].start, 120);
	assert_int_equal(st.makespan, 130);
}

/* The same underestimate corrected to the requested time at once: one
 * correction instead of four. */
static void test_replay_correct_to_requested(void **state)
{
	struct replay_job jobs[] = {
	    {.id = 1, .submit = 0, .run = 10, .req = 1000, .procs = 1, .user = 1},
	    {.id = 2, .submit = 0, .run = 10, .req = 1000, .procs = 1, .user = 1},
	    {.id = 3, .submit = 20, .run = 100, .req = 1000, .procs = 4, .user = 1},
	};
	struct replay_opts o = {.procs = 4,
	                        .policy = POLICY_EASY,
	                        .estimates = PREDICT_USER_MEAN2,
	                        .correction = PREDICT_CORRECT_REQUESTED};
	struct replay_stats st;

	assert_int_equal(replay_run(&o, jobs, NJOBS(jobs), &st, NULL), 0);
	assert_int_equal(st.corrections, 1);
	o.correction = PREDICT_CORRECT_DOUBLE;
	assert_int_equal(replay_run(&o, jobs, NJOBS(jobs), &st, NULL), 0);
	assert_int_equal(st.corrections, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_easy_backfills_fcfs_does_not),
	    cmocka_unit_test(test_easy_never_delays_the_head),
	    cmocka_unit_test(test_sjbf_tries_short_jobs_first),
	    cmocka_unit_test(test_started_is_the_start_order),
	    cmocka_unit_test(test_priority_orders),
	    cmocka_unit_test(test_saf_aged_key_orders_aged_jobs_by_submit),
	    cmocka_unit_test(test_fcfs_starts_in_order_until_blocked),
	    cmocka_unit_test(test_invalid_jobs),
	    cmocka_unit_test(test_kind_names),
	    cmocka_unit_test(test_replay_three_policies),
	    cmocka_unit_test(test_replay_one_pass_per_completion),
	    cmocka_unit_test(test_replay_completions_in_start_order),
	    cmocka_unit_test(test_replay_one_pass_per_submission),
	    cmocka_unit_test(test_replay_ties_by_id),
	    cmocka_unit_test(test_replay_rejects_bad_jobs),
	    cmocka_unit_test(test_predict_user_mean2),
	    cmocka_unit_test(test_predict_other_kinds_and_correction),
	    cmocka_unit_test(test_predict_learned),
	    cmocka_unit_test(test_predict_correct_increment),
	    cmocka_unit_test(test_replay_corrections),
	    cmocka_unit_test(test_replay_correct_to_requested),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
