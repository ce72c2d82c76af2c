/* test_joblist.c - squeue's columns, filters and order (src/proto/joblist.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/states.h"
#include "proto/joblist.h"
#include "common/common.h"

static struct job_info pending(uint32_t id, const char *name, const char *part)
{
	return (struct job_info){.job_id = id,
	                         .name = (char *)name,
	                         .partition = (char *)part,
	                         .user = (char *)"alice",
	                         .state = JOB_PENDING,
	                         .reason = WAIT_PRIORITY,
	                         .min_nodes = 1,
	                         .num_nodes = 1,
	                         .array_task_id = NO_VAL};
}

static char *render(const char *fmt, const struct job_info *j, uint32_t flags)
{
	struct rota_error err = {""};
	struct fmt_layout *layout = NULL;
	struct joblist_ctx ctx = {.now = 1000};
	struct joblist_sink s = {0};
	char *out;

	assert_int_equal(fmt_layout_bind(fmt, FMT_SHORT, joblist_fields, joblist_nfields,
	                                 &layout, &err),
	                 0);
	joblist_append(&s, layout, j, flags, &ctx);
	out = strndup(s.buf.data, s.buf.len);
	fmtbuf_release(&s.buf);
	fmt_layout_destroy(layout);
	return out;
}

static void test_default_row(void **state)
{
	struct job_info j = pending(42, "a-long-name", "debug");
	char *row = render(JOBLIST_DEFAULT_FMT, &j, 0);

	assert_string_equal(row,
	                    "                42     debug a-long-n    alice PD       0:00"
	                    "      1 (Priority)\n");
	free(row);
}

static void test_array_tasks_one_line_each(void **state)
{
	struct job_info j = pending(7, "arr", "debug");
	char *row;

	j.array_job_id = 7;
	j.array_task_str = (char *)"3-5,9";
	row = render("%i|", &j, 0);
	assert_string_equal(row, "7_[3-5,9]|\n");
	free(row);
	row = render("%i|", &j, JOB_LIST_F_ARRAY_TASKS);
	assert_string_equal(row, "7_3|\n7_4|\n7_5|\n7_9|\n");
	free(row);
}

static void count_flush(struct joblist_sink *s)
{
	(*(int *)s->arg)++;
	s->buf.len = 0;
}

/* An array's lines are handed on as they fill the buffer, not at its end. */
static void test_array_tasks_flushed_as_they_come(void **state)
{
	struct rota_error err = {""};
	struct fmt_layout *layout = NULL;
	struct joblist_ctx ctx = {.now = 1000};
	struct job_info j = pending(7, "arr", "debug");
	int flushes = 0;
	struct joblist_sink s = {.flush_at = 100, .flush = count_flush, .arg = &flushes};

	j.array_job_id = 7;
	j.array_task_str = (char *)"0-99";
	assert_int_equal(fmt_layout_bind("%.10i", FMT_SHORT, joblist_fields,
	                                 joblist_nfields, &layout, &err),
	                 0);
	joblist_append(&s, layout, &j, JOB_LIST_F_ARRAY_TASKS, &ctx);
	/* 11 bytes a line: a flush every 10 lines */
	assert_int_equal(flushes, 10);
	assert_int_equal(s.buf.len, 0);
	fmtbuf_release(&s.buf);
	fmt_layout_destroy(layout);
}

static void test_sort_keys(void **state)
{
	struct rota_error err = {""};
	struct joblist_sort s;

	assert_int_equal(joblist_sort_parse("P,t,-p", &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.key[2], 'p');
	assert_int_equal(s.rank[2].desc, 1);
	assert_non_null(s.rank[0].str_cmp);
	assert_null(s.rank[2].str_cmp);
	assert_int_equal(joblist_sort_parse("+N,,i", &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_true(s.rank[0].str_cmp == rank_natural_cmp);
	assert_int_equal(joblist_sort_parse("P,-x", &s, &err), -EINVAL);
	assert_string_equal(err.text, "-x");
	assert_int_equal(joblist_sort_parse("Pt", &s, &err), -EINVAL);
	assert_string_equal(err.text, "Pt");
	/* keys past the limit are dropped, as squeue drops them */
	assert_int_equal(
	    joblist_sort_parse("i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i", &s, &err), 0);
	assert_int_equal(s.n, JOBLIST_MAX_SORT);
}

/* 1 if the listing q shows j (its lists sorted first, as the controller does). */
static int shows(const struct job_list_req *q, const struct job_info *j)
{
	struct rota_error err = {""};
	struct joblist_query query;
	int hit;

	assert_int_equal(joblist_query_init(&query, q, &err), 0);
	hit = joblist_selected(&query, j);
	joblist_query_release(&query);
	return hit;
}

static void test_filters(void **state)
{
	struct job_info j = pending(42, "beta", "debug,gpu");
	char *empty[] = {NULL};
	char *names[] = {(char *)"alpha", (char *)"beta", NULL};
	char *parts[] = {(char *)"gpu", NULL};
	char *other[] = {(char *)"gp", NULL};
	uint32_t ids[] = {41, 42}, states[] = {JOB_RUNNING}, uids[] = {5};
	struct job_list_req q = {.names = empty, .partitions = empty};

	/* an empty list is no filter (the codec sends absent lists empty) */
	assert_true(shows(&q, &j));
	q.names = names;
	q.partitions = parts;
	assert_true(shows(&q, &j));
	q.partitions = other;
	assert_false(shows(&q, &j));
	q.partitions = NULL;
	q.job_ids = (struct rota_u32v){ids, 2};
	assert_true(shows(&q, &j));
	q.job_ids.n = 1;
	assert_false(shows(&q, &j));
	/* an array's id stands for its tasks */
	j.array_job_id = 41;
	assert_true(shows(&q, &j));
	q.states = (struct rota_u32v){states, 1};
	assert_false(shows(&q, &j));
	q.states.n = 0;
	q.uids = (struct rota_u32v){uids, 1};
	assert_false(shows(&q, &j));
	q.uids.n = 0;
	/* without -t or -j, finished jobs are not shown */
	q.job_ids.n = 0;
	j.state = JOB_COMPLETE;
	assert_false(shows(&q, &j));
	q.flags = JOB_LIST_F_ALL_STATES;
	assert_true(shows(&q, &j));
	q.flags |= JOB_LIST_F_NONE;
	assert_false(shows(&q, &j));
}

static void test_long_lists_and_limits(void **state)
{
	struct job_info j = pending(42, "job77", "debug");
	struct rota_error err = {""};
	struct joblist_query query;
	char *names[1001], *acct[] = {(char *)"PHYSICS", NULL};
	char *nodes[] = {(char *)"n9", (char *)"n3", NULL};
	char *qos[] = {(char *)"high", NULL}, *qos2[] = {(char *)"Normal", NULL};
	uint32_t states[JOBLIST_MAX_STATES + 1] = {0};
	struct job_list_req q = {0};

	for (int i = 0; i < 1000; i++)
		names[i] = xasprintf("job%d", 999 - i);
	names[1000] = NULL;
	q.names = names;
	assert_true(shows(&q, &j));
	j.name = (char *)"job1000";
	assert_false(shows(&q, &j));
	j.name = (char *)"job0";
	j.account = (char *)"physics";
	q.accounts = acct;
	assert_true(shows(&q, &j));
	q.qos = qos;
	assert_false(shows(&q, &j));
	q.qos = qos2;
	assert_true(shows(&q, &j));
	q.nodes = nodes;
	assert_false(shows(&q, &j));
	j.state = JOB_RUNNING;
	j.nodes = (char *)"n[1-3]";
	assert_true(shows(&q, &j));
	q.states = (struct rota_u32v){states, JOBLIST_MAX_STATES + 1};
	assert_int_equal(joblist_query_init(&query, &q, &err), -EINVAL);
	for (int i = 0; i < 1000; i++)
		free(names[i]);
}

/* The rows' partitions, "a|b|". */
static int collect_part(const struct job_info *r, void *arg)
{
	char *out = arg;

	strncat(out, r->partition ? r->partition : "(null)", 63 - strlen(out));
	strncat(out, "|", 63 - strlen(out));
	return 0;
}

static int rows_of(const struct job_list_req *req, const struct job_info *j, char *out)
{
	struct rota_error err = {""};
	struct joblist_query q;
	int n;

	out[0] = '\0';
	assert_int_equal(joblist_query_init(&q, req, &err), 0);
	n = joblist_rows(&q, j, collect_part, out);
	joblist_query_release(&q);
	return n;
}

/* -P: a pending job submitted to several partitions is a row per partition
 * that -p lets through; a job that runs, or a listing without -P, one row. */
static void test_rows_per_partition(void **state)
{
	struct job_info j = pending(42, "beta", "debug,gpu");
	char *gpu[] = {(char *)"gpu", NULL}, *cpu[] = {(char *)"cpu", NULL};
	struct job_list_req req = {0};
	char out[64];

	assert_int_equal(rows_of(&req, &j, out), 1);
	assert_string_equal(out, "debug,gpu|");
	req.flags = JOB_LIST_F_PART_PRIO;
	assert_int_equal(rows_of(&req, &j, out), 2);
	assert_string_equal(out, "debug|gpu|");
	req.partitions = gpu;
	assert_int_equal(rows_of(&req, &j, out), 1);
	assert_string_equal(out, "gpu|");
	req.partitions = cpu;
	assert_int_equal(rows_of(&req, &j, out), 0);
	req.partitions = NULL;
	j.state = JOB_RUNNING;
	assert_int_equal(rows_of(&req, &j, out), 1);
	assert_string_equal(out, "debug,gpu|");
}

static uint32_t tier_of(const char *partition, void *arg)
{
	return partition && !strcmp(partition, "gpu") ? 10 : 1;
}

static uint64_t by_id(const void *row)
{
	return ((const struct job_info *)row)->job_id;
}

/* The ids of rows[0..3) sorted by sarg, "1,3,2". */
static void expect_order(struct joblist_sort_arg *sarg, const struct job_info **rows,
                         const char *want)
{
	const struct joblist_sort *sort = sarg->sort;
	char got[64];

	assert_int_equal(rank_sort((const void **)rows, 3, sort->rank, sort->n,
	                           joblist_sort_value, by_id, sarg),
	                 0);
	snprintf(got, sizeof(got), "%u,%u,%u", rows[0]->job_id, rows[1]->job_id,
	         rows[2]->job_id);
	assert_string_equal(got, want);
}

/* -P: p and Q rank by the partition's PriorityTier, then by priority. */
static void test_sort_by_tier(void **state)
{
	struct rota_error err = {""};
	struct job_info a = pending(1, "a", "debug"), b = pending(2, "b", "gpu");
	struct job_info c = pending(3, "c", "debug");
	const struct job_info *rows[] = {&a, &b, &c};
	struct joblist_sort sort;
	struct joblist_sort_arg sarg = {&sort, 0};

	a.priority = 100;
	b.priority = 50;
	c.priority = 70;
	assert_int_equal(joblist_sort_parse("-p", &sort, &err), 0);
	expect_order(&sarg, rows, "1,3,2");
	sarg.part_tier = tier_of;
	expect_order(&sarg, rows, "2,1,3");
	assert_int_equal(joblist_sort_parse("Q", &sort, &err), 0);
	expect_order(&sarg, rows, "3,1,2");
}

static struct job_info task_of(uint32_t id, uint32_t array, uint32_t task,
                               uint32_t reason)
{
	struct job_info t = pending(id, "wrap", "debug");

	t.array_job_id = array;
	t.array_task_id = task;
	t.reason = reason;
	return t;
}

/* Pending tasks split off an array go into its remainder's row when they
 * have its name and partition: ids and differing reasons added, the
 * throttle no longer shown (as Slurm's squeue). */
static void test_fold_tasks(void **state)
{
	struct rota_error err = {""};
	struct fmt_layout *layout = NULL;
	struct joblist_ctx ctx = {.now = 1000};
	struct joblist_sink s = {0};
	struct job_info m = task_of(8, 8, NO_VAL, WAIT_ARRAY_TASK_LIMIT);
	struct job_info held = task_of(10, 8, 4, WAIT_HELD);
	struct job_info same = task_of(11, 8, 9, WAIT_ARRAY_TASK_LIMIT);
	struct job_info held2 = task_of(12, 8, 5, WAIT_HELD);
	struct job_info other = task_of(13, 8, 6, WAIT_HELD);
	struct job_info stranger = task_of(14, 9, 7, WAIT_HELD);
	struct joblist_fold f = {0};
	char *ids;

	m.array_task_str = (char *)"2-3%1";
	other.name = (char *)"renamed";
	assert_true(joblist_folds(&m, &held));
	assert_false(joblist_folds(&m, &other));
	assert_false(joblist_folds(&m, &stranger));
	assert_false(joblist_folds(&held, &same)); /* not a remainder */
	held.state = JOB_RUNNING;
	assert_false(joblist_folds(&m, &held));
	held.state = JOB_PENDING;
	assert_true(joblist_folding(0));
	assert_false(joblist_folding(JOB_LIST_F_ARRAY_UNIQUE));
	assert_false(joblist_folding(JOB_LIST_F_ARRAY_TASKS));

	assert_int_equal(joblist_fold_add(&f, &m, &same), 0);
	assert_null(f.reasons); /* the remainder's own reason */
	assert_int_equal(joblist_fold_add(&f, &m, &held), 0);
	assert_int_equal(joblist_fold_add(&f, &m, &held2), 0);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.reasons, "JobArrayTaskLimit,JobHeldAdmin");
	ids = joblist_fold_ids(&f);
	assert_string_equal(ids, "2-5,9");
	m.array_task_str = ids;
	ctx.reasons = f.reasons;
	assert_int_equal(fmt_layout_bind("%i|%r|%R", FMT_SHORT, joblist_fields,
	                                 joblist_nfields, &layout, &err),
	                 0);
	joblist_append(&s, layout, &m, 0, &ctx);
	assert_int_equal(s.buf.len, strlen("8_[2-5,9]|JobArrayTaskLimit,JobHeldAdmin|"
	                                   "(JobArrayTaskLimit,JobHeldAdmin)\n"));
	assert_memory_equal(s.buf.data,
	                    "8_[2-5,9]|JobArrayTaskLimit,JobHeldAdmin|"
	                    "(JobArrayTaskLimit,JobHeldAdmin)\n",
	                    s.buf.len);
	fmtbuf_release(&s.buf);
	fmt_layout_destroy(layout);
	free(ids);
	joblist_fold_release(&f);
	assert_null(f.reasons);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_row),
	    cmocka_unit_test(test_array_tasks_one_line_each),
	    cmocka_unit_test(test_array_tasks_flushed_as_they_come),
	    cmocka_unit_test(test_sort_keys),
	    cmocka_unit_test(test_filters),
	    cmocka_unit_test(test_long_lists_and_limits),
	    cmocka_unit_test(test_rows_per_partition),
	    cmocka_unit_test(test_sort_by_tier),
	    cmocka_unit_test(test_fold_tasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
