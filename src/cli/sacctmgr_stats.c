/* sacctmgr_stats.c - sacctmgr show stats and clear stats: rotadbd's request
 * counts (dbd/stats.h, MSG_DBD_DIAG_REQ), laid out as Slurm 22.05's sacctmgr
 * prints slurmdbd's: a banner with the time now and since when it counts,
 * then the requests by type and by user, most asked first (or by total or
 * average time: show stats total_time, ave_time).  Rota keeps no rollup
 * tables (sreport sums the job records themselves), so no rollup sections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cli/acct_client.h"
#include "cli/cli.h"
#include "cli/sacctmgr.h"
#include "proto/messages.h"
#include "common/common.h"

#define STARS "*******************************************************************\n"

enum stats_sort { BY_COUNT, BY_TOTAL, BY_AVE };

static enum stats_sort sort_by;

static uint64_t ave(const struct rpc_stat *r)
{
	return r->count ? r->total_us / r->count : 0;
}

/* The most first; ties by id. */
static int cmp_rpc(const void *a, const void *b)
{
	const struct rpc_stat *x = a, *y = b;
	uint64_t kx = 0, ky = 0;

	if (sort_by == BY_COUNT && x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (sort_by == BY_AVE)
		kx = ave(x), ky = ave(y);
	else
		kx = x->total_us, ky = y->total_us;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* "Tue Dec 01 18:12:09 2026 (1796148729)" */
static void when(const char *label, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	localtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
	printf("%s%s (%lld)\n", label, buf, (long long)t);
}

static int word_is(const char *w, const char *word, size_t min)
{
	size_t n = strlen(w);

	return n >= min && n <= strlen(word) && !strncasecmp(w, word, n);
}

int mgr_show_stats(int argc, char **argv)
{
	struct dbd_diag *d = NULL;

	sort_by = BY_COUNT;
	if (argc > 0 && word_is(argv[0], "ave_time", 2))
		sort_by = BY_AVE;
	else if (argc > 0 && word_is(argv[0], "total_time", 2))
		sort_by = BY_TOTAL;
	if (acct_dbd_diag(&d))
		return 1;
	printf(STARS);
	when("sacctmgr show stats output at ", (int64_t)time(NULL));
	when("Data since                    ", d->time_start);
	printf("All statistics are in microseconds\n" STARS);
	qsort(d->rpcs, d->rpcs_count, sizeof(*d->rpcs), cmp_rpc);
	qsort(d->users, d->users_count, sizeof(*d->users), cmp_rpc);
	printf("\nRemote Procedure Call statistics by message type\n");
	for (uint32_t i = 0; i < d->rpcs_count; i++) {
		const struct rpc_stat *r = &d->rpcs[i];
		printf("\t%-25s(%5u) count:%-6u ave_time:%-6llu total_time:%llu\n",
		       r->name ? r->name : "", r->id, r->count,
		       (unsigned long long)ave(r), (unsigned long long)r->total_us);
	}
	printf("\nRemote Procedure Call statistics by user\n");
	for (uint32_t i = 0; i < d->users_count; i++) {
		const struct rpc_stat *r = &d->users[i];
		printf("\t%-20s(%10u) count:%-6u ave_time:%-6llu total_time:%llu\n",
		       r->name ? r->name : "", r->id, r->count,
		       (unsigned long long)ave(r), (unsigned long long)r->total_us);
	}
	msg_body_free(MSG_DBD_DIAG_RESP, d);
	return 0;
}

int mgr_clear(int argc, char **argv)
{
	if (argc < 1 || !word_is(argv[0], "stats", 1)) {
		fprintf(stderr, "No valid entity in list command\n"
		                "Input line must include \"Stats\"\n");
		return 1;
	}
	return acct_dbd_clear_stats();
}
