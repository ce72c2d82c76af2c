/* sdiag.c - the controller's statistics, laid out as Slurm 22.05's sdiag
 * prints them (MSG_STATS_REQ), then Rota's own: its journal. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "proto/messages.h"
#include "common/common.h"

enum sdiag_sort { SORT_COUNT, SORT_ID, SORT_TOTAL, SORT_AVE };

static void usage(FILE *f)
{
	fprintf(f, "Usage: sdiag [OPTIONS]\n"
	           "  -a, --all           all statistics\n"
	           "  -r, --reset         reset statistics\n"
	           "  -M, --cluster       direct the request to a specific cluster\n"
	           "  -i, --sort-by-id    sort RPCs by id\n"
	           "  -t, --sort-by-time  sort RPCs by total run time\n"
	           "  -T, --sort-by-time2 sort RPCs by average run time\n"
	           "  -V, --version       display current version number\n"
	           "\nHelp options:\n"
	           "  --help          show this help message\n"
	           "  --usage         display brief usage message\n");
}

static enum sdiag_sort sort_by;

static int cmp_rpc(const void *a, const void *b)
{
	const struct rpc_stat *x = a, *y = b;
	uint64_t kx, ky;

	switch (sort_by) {
	case SORT_ID:
		return x->id < y->id ? -1 : x->id > y->id;
	case SORT_TOTAL:
		kx = x->total_us, ky = y->total_us;
		break;
	case SORT_AVE:
		kx = fmt_rpc_ave(x), ky = fmt_rpc_ave(y);
		break;
	default:
		kx = x->count, ky = y->count;
	}
	return kx > ky ? -1 : kx < ky;
}

/* Microseconds 1000 gettimeofday() calls take here, as Slurm measures. */
static long gettimeofday_latency(void)
{
	struct timeval t0, t1, t;

	gettimeofday(&t0, NULL);
	for (int i = 0; i < 1000; i++)
		gettimeofday(&t, NULL);
	gettimeofday(&t1, NULL);
	return (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec);
}

static void print_main(const struct stats_resp *r)
{
	printf("Main schedule statistics (microseconds):\n");
	printf("\tLast cycle:   %u\n", r->sched_last_us);
	printf("\tMax cycle:    %u\n", r->sched_max_us);
	printf("\tTotal cycles: %u\n", r->sched_cycles);
	if (r->sched_cycles) {
		printf("\tMean cycle:   %llu\n",
		       (unsigned long long)(r->sched_sum_us / r->sched_cycles));
		printf("\tMean depth cycle:  %llu\n",
		       (unsigned long long)(r->sched_depth_sum / r->sched_cycles));
	}
	if (r->now - r->since > 60)
		printf("\tCycles per minute: %llu\n",
		       (unsigned long long)(r->sched_cycles * 60ull /
		                            (uint64_t)(r->now - r->since)));
	printf("\tLast queue length: %u\n\n", r->sched_last_queue);
}

static void print_backfill(const struct stats_resp *r)
{
	uint32_t n = r->bf_cycles;

	printf("Backfilling stats\n");
	printf("\tTotal backfilled jobs (since last slurm start): %u\n",
	       r->bf_backfilled);
	printf("\tTotal backfilled jobs (since last stats cycle start): %u\n",
	       r->bf_backfilled_stats);
	printf("\tTotal backfilled heterogeneous job components: 0\n");
	printf("\tTotal cycles: %u\n", n);
	if (r->bf_last_when)
		fmt_print_stat_time("\tLast cycle when: ", r->bf_last_when);
	else
		printf("\tLast cycle when: N/A\n");
	printf("\tLast cycle: %u\n", r->bf_last_us);
	printf("\tMax cycle:  %u\n", r->bf_max_us);
	if (n)
		printf("\tMean cycle: %llu\n", (unsigned long long)(r->bf_sum_us / n));
	printf("\tLast depth cycle: %u\n", r->bf_last_depth);
	printf("\tLast depth cycle (try sched): %u\n", r->bf_last_depth_try);
	if (n) {
		printf("\tDepth Mean: %llu\n", (unsigned long long)(r->bf_depth_sum / n));
		printf("\tDepth Mean (try depth): %llu\n",
		       (unsigned long long)(r->bf_depth_try_sum / n));
	}
	printf("\tLast queue length: %u\n", r->bf_last_queue);
	if (n)
		printf("\tQueue length mean: %llu\n",
		       (unsigned long long)(r->bf_queue_sum / n));
	printf("\tLast table size: 0\n");
	if (n)
		printf("\tMean table size: 0\n");
	printf("\n");
}

static void print_rpcs(struct stats_resp *r)
{
	qsort(r->rpc_types, r->rpc_types_count, sizeof(*r->rpc_types), cmp_rpc);
	printf("Remote Procedure Call statistics by message type\n");
	for (uint32_t i = 0; i < r->rpc_types_count; i++) {
		const struct rpc_stat *s = &r->rpc_types[i];
		printf("\t%-40s(%5u) count:%-6u ave_time:%-6llu total_time:%llu\n",
		       s->name, s->id, s->count, (unsigned long long)fmt_rpc_ave(s),
		       (unsigned long long)s->total_us);
	}
	qsort(r->rpc_users, r->rpc_users_count, sizeof(*r->rpc_users), cmp_rpc);
	printf("\nRemote Procedure Call statistics by user\n");
	for (uint32_t i = 0; i < r->rpc_users_count; i++) {
		const struct rpc_stat *s = &r->rpc_users[i];
		printf("\t%-16s(%8u) count:%-6u ave_time:%-6llu total_time:%llu\n",
		       s->name, s->id, s->count, (unsigned long long)fmt_rpc_ave(s),
		       (unsigned long long)s->total_us);
	}
	printf("\nPending RPC statistics\n\tNo pending RPCs\n");
}

/* Rota's own section: what its journal does (sync latency is what every
 * submission waits for). */
static void print_journal(const struct stats_resp *r)
{
	printf("\nJournal statistics (microseconds)\n");
	printf("\tLast event:   %llu\n", (unsigned long long)r->journal_seq);
	printf("\tSize (bytes): %llu\n", (unsigned long long)r->journal_bytes);
	printf("\tCompactions:  %u\n", r->journal_compactions);
	printf("\tSyncs:        %u\n", r->journal_syncs);
	printf("\tLast sync:    %u\n", r->journal_sync_last_us);
	printf("\tMax sync:     %u\n", r->journal_sync_max_us);
	if (r->journal_syncs)
		printf("\tMean sync:    %llu\n",
		       (unsigned long long)(r->journal_sync_sum_us / r->journal_syncs));
}

static void print_stats(struct stats_resp *r)
{
	printf("*******************************************************\n");
	fmt_print_stat_time("sdiag output at ", r->now);
	fmt_print_stat_time("Data since      ", r->since);
	printf("*******************************************************\n");
	printf("Server thread count:  %u\n", r->threads);
	printf("Agent queue size:     %u\n", r->agent_queue);
	printf("Agent count:          0\n");
	printf("Agent thread count:   0\n");
	printf("DBD Agent queue size: 0\n\n");
	printf("Jobs submitted: %u\n", r->jobs_submitted);
	printf("Jobs started:   %u\n", r->jobs_started);
	printf("Jobs completed: %u\n", r->jobs_completed);
	printf("Jobs canceled:  %u\n", r->jobs_canceled);
	printf("Jobs failed:    %u\n\n", r->jobs_failed);
	fmt_print_stat_time("Job states ts:  ", r->now);
	printf("Jobs pending:   %u\n", r->jobs_pending);
	printf("Jobs running:   %u\n\n", r->jobs_running);
	print_main(r);
	print_backfill(r);
	printf("Latency for 1000 calls to gettimeofday(): %ld microseconds\n\n",
	       gettimeofday_latency());
	print_rpcs(r);
	print_journal(r);
}

int cmd_sdiag(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"all", no_argument, NULL, 'a'},
	    {"reset", no_argument, NULL, 'r'},
	    {"cluster", required_argument, NULL, 'M'},
	    {"clusters", required_argument, NULL, 'M'},
	    {"sort-by-id", no_argument, NULL, 'i'},
	    {"sort-by-time", no_argument, NULL, 't'},
	    {"sort-by-time2", no_argument, NULL, 'T'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'H'},
	    {"usage", no_argument, NULL, 'U'},
	    {NULL, 0, NULL, 0}};
	struct stats_req req = {0};
	struct stats_resp *r = NULL;
	char *msg = NULL;
	int c, rc;

	while ((c = getopt_long(argc, argv, "arM:itTV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'M': /* one cluster: its controller */
			break;
		case 'r':
			req.flags |= STATS_F_RESET;
			break;
		case 'i':
			sort_by = SORT_ID;
			break;
		case 't':
			sort_by = SORT_TOTAL;
			break;
		case 'T':
			sort_by = SORT_AVE;
			break;
		case 'H':
		case 'U':
			usage(stdout);
			return 0;
		case 'V':
			fmt_print_version();
		default:
			fmt_bad_option();
		}
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage(stderr);
		return 1;
	}
	if (req.flags & STATS_F_RESET) {
		void *none = NULL;

		rc = call_ctld(MSG_STATS_REQ, &req, MSG_RC, &none, &msg);
		if (rc) {
			fprintf(stderr, "slurm_reset_statistics: %s\n", msg);
			free(msg);
			return 1;
		}
		printf("Reset scheduling statistics\n");
		return 0;
	}
	rc = call_ctld(MSG_STATS_REQ, &req, MSG_STATS_RESP, (void **)&r, &msg);
	if (rc) {
		fprintf(stderr, "slurm_get_statistics: %s\n", msg);
		free(msg);
		return 1;
	}
	print_stats(r);
	msg_body_free(MSG_STATS_RESP, r);
	return 0;
}
