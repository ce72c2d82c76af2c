/* test_sim_history.c - `rota sim --from-journal`'s reading of a journal
 * (src/cli/sim_history.c) and its SWF export (src/cli/sim_history_swf.c),
 * both compiled in with the events' codec. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli/sim_history.c"
#include "cli/sim_history_swf.c"
#include "ctld/job_event_codec.c"

static void append(FILE *f, const union job_event *ev)
{
	char *body;
	size_t len;
	uint8_t *rec;

	assert_int_equal(job_event_encode(ev, &body, &len), 0);
	rec = malloc(recframe_size(body, len));
	assert_non_null(rec);
	fwrite(rec, 1, recframe_encode(rec, body, len), f);
	free(rec);
	free(body);
}

static void submit(FILE *f, uint32_t id, int64_t t, const char *user, const char *part,
                   const char *acct, uint32_t limit_min, uint32_t held)
{
	struct job_desc d = {.partition = (char *)part, .account = (char *)acct};
	union job_event ev = {.submit = {.type = EV_SUBMIT,
	                                 .hold = held,
	                                 .job_id = id,
	                                 .time = t,
	                                 .user = (char *)user,
	                                 .desc = &d,
	                                 .desc_count = 1,
	                                 .time_limit = limit_min}};
	append(f, &ev);
}

static void start(FILE *f, uint32_t id, int64_t t, uint32_t *cpus, uint32_t nodes)
{
	union job_event ev = {.start = {.type = EV_START,
	                                .job_id = id,
	                                .time = t,
	                                .nodes = "node01",
	                                .cpus_per_node = {.v = cpus, .n = nodes}}};
	append(f, &ev);
}

static void end(FILE *f, uint32_t id, int64_t t)
{
	union job_event ev = {.end = {.type = EV_END, .job_id = id, .time = t}};
	append(f, &ev);
}

static void split(FILE *f, uint32_t id, uint32_t task, uint32_t new_id)
{
	union job_event ev = {.array_split = {.type = EV_ARRAY_SPLIT,
	                                      .job_id = id,
	                                      .array_task_id = task,
	                                      .new_job_id = new_id}};
	append(f, &ev);
}

static void hold(FILE *f, uint32_t id, int64_t t, uint32_t how)
{
	union job_event ev = {
	    .hold = {.type = EV_HOLD, .job_id = id, .time = t, .hold = how}};
	append(f, &ev);
}

static void update(FILE *f, uint32_t id, const char *part, const char *acct,
                   uint32_t limit_min)
{
	struct job_desc d = {.partition = (char *)part, .account = (char *)acct};
	union job_event ev = {.update = {.type = EV_UPDATE,
	                                 .job_id = id,
	                                 .time = 1310,
	                                 .desc = &d,
	                                 .desc_count = 1,
	                                 .time_limit = limit_min}};
	append(f, &ev);
}

/* A state directory whose journal holds:
 *   job 2: submitted 1000 by alice (part p1, account a1, 5 min), started at
 *          1010 on 2 + 2 CPUs, ended at 1070
 *   job 1: submitted 990 by bob (no partition or account, no limit),
 *          started 995, requeued at 1000, started again at 1020 on 1 CPU,
 *          ended 1030
 *   job 3: submitted, started, never ended (running): left out
 *   job 4: submitted, never started: left out
 *   job 5: an array's remainder (p2, 2 min), submitted at 1200: task 0
 *          split off as job 6, started 1210 on 1 CPU, ended 1220; task 1
 *          the record itself (split with new_job_id 0), 1220 to 1230
 *   job 7: submitted held at 1300 (p1, a1, 5 min), moved to p2, account
 *          a2, 3 min, released at 1350, ran 1400 to 1410 */
static char *make_state(void)
{
	char tmpl[] = "/tmp/test_sim_history.XXXXXX";
	char *dir = strdup(mkdtemp(tmpl));
	char *path = xasprintf("%s/journal", dir);
	FILE *f = fopen(path, "we");
	uint32_t two[2] = {2, 2}, one[1] = {1};
	union job_event rq = {.requeue = {.type = EV_REQUEUE, .job_id = 1, .time = 1000}};

	assert_non_null(f);
	submit(f, 2, 1000, "alice", "p1", "a1", 5, 0);
	submit(f, 1, 990, "bob", NULL, NULL, INFINITE32, 0);
	start(f, 1, 995, one, 1);
	append(f, &rq);
	start(f, 2, 1010, two, 2);
	start(f, 1, 1020, one, 1);
	end(f, 1, 1030);
	end(f, 2, 1070);
	submit(f, 3, 1100, "alice", "p1", "a1", 5, 0);
	start(f, 3, 1100, one, 1);
	submit(f, 4, 1100, "carol", "p2", "a2", 5, 0);
	submit(f, 5, 1200, "dave", "p2", "a2", 2, 0);
	hold(f, 5, 1205, 0); /* a release of a job not held: nothing */
	split(f, 5, 0, 6);
	start(f, 6, 1210, one, 1);
	end(f, 6, 1220);
	split(f, 5, 1, 0);
	start(f, 5, 1220, one, 1);
	end(f, 5, 1230);
	submit(f, 7, 1300, "erin", "p1", "a1", 5, 1);
	update(f, 7, "p2", "a2", 3);
	hold(f, 7, 1350, 0);
	start(f, 7, 1400, one, 1);
	end(f, 7, 1410);
	hold(f, 7, 1420, 0); /* after its start: nothing */
	fclose(f);
	free(path);
	return dir;
}

static void rm_state(char *dir)
{
	char *path = xasprintf("%s/journal", dir);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void test_journal_read(void **state)
{
	char *dir = make_state();
	struct sim_history h = {0};
	struct rota_error err = {""};

	(void)state;
	assert_int_equal(sim_history_from_journal(dir, &h, &err), 0);
	assert_int_equal(h.n, 5);
	assert_int_equal(h.unfinished, 2);
	/* in id order */
	assert_int_equal(h.jobs[0].id, 1);
	assert_int_equal(h.jobs[0].submit, 1000); /* eligible again at the requeue */
	assert_int_equal(h.jobs[0].start, 1020);  /* the last run */
	assert_int_equal(h.jobs[0].end, 1030);
	assert_int_equal(h.jobs[0].cpus, 1);
	assert_int_equal(h.jobs[0].limit, 0);
	assert_string_equal(h.jobs[0].user, "bob");
	assert_string_equal(h.jobs[0].account, "");
	assert_null(h.jobs[0].partition);
	assert_int_equal(h.jobs[1].id, 2);
	assert_int_equal(h.jobs[1].cpus, 4);
	assert_int_equal(h.jobs[1].nodes, 2);
	assert_int_equal(h.jobs[1].limit, 300);
	assert_string_equal(h.jobs[1].partition, "p1");
	assert_string_equal(h.jobs[1].account, "a1");
	/* the array's two tasks, each submitted as the array was */
	for (int k = 2; k < 4; k++) {
		assert_int_equal(h.jobs[k].id, k == 2 ? 5 : 6);
		assert_int_equal(h.jobs[k].submit, 1200);
		assert_int_equal(h.jobs[k].limit, 120);
		assert_string_equal(h.jobs[k].user, "dave");
		assert_string_equal(h.jobs[k].partition, "p2");
	}
	assert_int_equal(h.jobs[3].start, 1210);
	/* queued in task order: task 0 (job 6) before task 1 (job 5) */
	assert_true(h.jobs[3].order < h.jobs[2].order);
	assert_true(h.jobs[1].order < h.jobs[2].order);
	/* held from its submit; eligible from its release */
	assert_int_equal(h.jobs[4].id, 7);
	assert_int_equal(h.jobs[4].submit, 1350);
	assert_int_equal(h.jobs[4].limit, 180);
	assert_string_equal(h.jobs[4].partition, "p2");
	assert_string_equal(h.jobs[4].account, "a2");
	assert_int_equal(h.jobs[2].start, 1220);
	sim_history_release(&h);
	rm_state(dir);
}

static void test_journal_missing(void **state)
{
	struct sim_history h = {0};
	struct rota_error err = {""};

	(void)state;
	assert_int_equal(sim_history_from_journal("/nonexistent", &h, &err), -1);
	assert_non_null(strstr(err.text, "/nonexistent/journal"));
	sim_history_release(&h);
}

static void test_swf_export(void **state)
{
	struct sim_hjob jobs[3] = {
	    {.id = 7,
	     .submit = 1000,
	     .start = 1010,
	     .end = 1070,
	     .cpus = 4,
	     .limit = 300,
	     .user = "alice",
	     .account = "a1",
	     .partition = "p1"},
	    {.id = 8,
	     .submit = 1005,
	     .start = 1005,
	     .end = 1006,
	     .cpus = 1,
	     .limit = 0,
	     .user = "bob",
	     .account = "a2",
	     .partition = NULL},
	    {.id = 9,
	     .submit = 1020,
	     .start = 1070,
	     .end = 1100,
	     .cpus = 2,
	     .limit = 60,
	     .user = "alice",
	     .account = "a2",
	     .partition = "p1"},
	};
	struct sim_history h = {.jobs = jobs, .n = 3};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct swf_job sj;
	struct rota_error err = {""};
	const char *line;

	(void)state;
	assert_int_equal(sim_history_write_swf(&h, 16, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "; UnixStartTime: 1000\n"));
	assert_non_null(strstr(buf, "; MaxProcs: 16\n"));
	assert_non_null(strstr(buf, "; User 1: alice\n; User 2: bob\n"));
	assert_non_null(
	    strstr(buf, "; Group (account) 1: a1\n; Group (account) 2: a2\n"));
	assert_non_null(strstr(buf, "; Partition 1: p1\n; Partition 2: (default)\n"));
	/* in queue order: 7 (at 1000), 8 (1005), 9 (1020) */
	assert_non_null(strstr(buf, "\n; JobIds: 7 8 9\n"));
	/* the third job line: submitted 20 s in, waited 50, ran 30 */
	line = strstr(buf, "\n3 ");
	assert_non_null(line);
	assert_int_equal(swf_parse_line(line + 1, &sj, &err), 1);
	assert_int_equal(sj.submit, 20);
	assert_int_equal(sj.wait, 50);
	assert_int_equal(sj.run, 30);
	assert_int_equal(sj.req_procs, 2);
	assert_int_equal(sj.alloc_procs, 2);
	assert_int_equal(sj.req_time, 60);
	assert_int_equal(sj.user, 1);
	assert_int_equal(sj.group, 2);
	assert_int_equal(sj.partition, 1);
	/* no limit: -1; the default partition numbered too */
	line = strstr(buf, "\n2 ");
	assert_non_null(line);
	assert_int_equal(swf_parse_line(line + 1, &sj, &err), 1);
	assert_int_equal(sj.req_time, -1);
	assert_int_equal(sj.partition, 2);
	assert_int_equal(sj.user, 2);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_journal_read),
	    cmocka_unit_test(test_journal_missing),
	    cmocka_unit_test(test_swf_export),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
