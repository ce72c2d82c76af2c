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
#include "cli/fmt.h"
#include "cli/sacctmgr.h"
#include "proto/messages.h"
#include "common/common.h"

#define STARS "*******************************************************************\n"

enum stats_sort { BY_COUNT, BY_TOTAL, BY_AVE };

static enum stats_sort sort_by;

/* The most first; ties by id. */
static int cmp_rpc(const void *a, const void *b)
{
	const struct rpc_stat *x = a, *y = b;
	uint64_t kx = 0, ky = 0;

	if (sort_by == BY_COUNT && x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (sort_by == BY_AVE)
		kx = fmt_rpc_ave(x), ky = fmt_rpc_ave(y);
	else
		kx = x->total_us, ky = y->total_us;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* One section: "by what", a line per statistic, names and ids that wide. */
static void rows(const char *what, const struct rpc_stat *r, uint32_t n, int name_w,
                 int id_w)
{
	printf("\nRemote Procedure Call statistics by %s\n", what);
	for (uint32_t i = 0; i < n; i++)
		printf("\t%-*s(%*u) count:%-6u ave_time:%-6llu total_time:%llu\n", name_w,
		       r[i].name ? r[i].name : "", id_w, r[i].id, r[i].count,
		       (unsigned long long)fmt_rpc_ave(&r[i]),
		       (unsigned long long)r[i].total_us);
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
	fmt_print_stat_time("sacctmgr show stats output at ", (int64_t)time(NULL));
	fmt_print_stat_time("Data since                    ", d->time_start);
	printf("All statistics are in microseconds\n" STARS);
	qsort(d->rpcs, d->rpcs_count, sizeof(*d->rpcs), cmp_rpc);
	qsort(d->users, d->users_count, sizeof(*d->users), cmp_rpc);
	rows("message type", d->rpcs, d->rpcs_count, 25, 5);
	rows("user", d->users, d->users_count, 20, 10);
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
