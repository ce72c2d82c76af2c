/* loop_stall.c - how long the controller's event loop stops answering: one
 * client pings it (MSG_PING_REQ, one in flight) over its unix socket for the
 * given seconds and reports the round trips: median, p99, the longest, and
 * the longest ones and when they happened (seconds since the start, and the
 * clock, to set against the controller's log, e.g. "journal compacted").
 *
 * With -o FILE every round trip is written there too: "clock-seconds ms".
 * SIGINT stops it early, figures printed.
 *
 * Usage: loop_stall [-t seconds] [-s stall_ms] [-o file]   (SLURM_CONF set) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define TOP 12 /* the longest round trips shown */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t stopped;

static void on_int(int sig)
{
	stopped = 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	double secs = 10, stall_ms = 5, t0, t;
	struct rota_error err = {""};
	struct conf *conf;
	double *rtt = NULL;
	struct stall {
		double ms, at;
	} top[TOP] = {{0, 0}};
	size_t n = 0, cap = 0, over = 0;
	FILE *out = NULL;
	int opt, fd;

	while ((opt = getopt(argc, argv, "t:s:o:")) != -1) {
		if (opt == 't')
			secs = strtod(optarg, NULL);
		else if (opt == 's')
			stall_ms = strtod(optarg, NULL);
		else if (opt == 'o') {
			if (!(out = fopen(optarg, "w")))
				return 2;
		} else
			return 2;
	}
	if (conf_load(conf_default_path(), &conf, &err) < 0 ||
	    (fd = client_connect(conf, NULL, NULL, 0, &err)) < 0) {
		fprintf(stderr, "loop_stall: %s\n", err.text);
		return 2;
	}
	signal(SIGINT, on_int); /* stop early, with the figures */
	t0 = now_s();
	while ((t = now_s()) < t0 + secs && !stopped) {
		struct empty_msg req = {0};
		uint16_t type;
		void *body;
		double dt;

		if (net_send(fd, MSG_PING_REQ, &req, &err) < 0 ||
		    net_recv(fd, &type, &body, 60000, &err) < 0) {
			fprintf(stderr, "loop_stall: %s\n", err.text);
			return 1;
		}
		msg_body_free(type, body);
		dt = (now_s() - t) * 1e3;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			rtt = xrealloc(rtt, cap * sizeof(*rtt));
		}
		rtt[n++] = dt;
		if (out)
			fprintf(out, "%.6f %.3f\n", t, dt);
		if (dt > stall_ms)
			over++;
		if (dt > top[TOP - 1].ms) {
			/* keep the TOP longest, longest first */
			int k = TOP - 1;
			while (k > 0 && top[k - 1].ms < dt) {
				top[k] = top[k - 1];
				k--;
			}
			top[k] = (struct stall){dt, t};
		}
		usleep(500);
	}
	for (int k = 0; k < TOP && top[k].ms > 0; k++)
		printf("stall %.1f ms at +%.3f s (%.3f)\n", top[k].ms, top[k].at - t0,
		       top[k].at);
	qsort(rtt, n, sizeof(*rtt), cmp_double);
	printf("loop: %zu pings over %.0f s: median %.2f ms, p99 %.2f ms, max %.1f ms, "
	       "%zu over %.0f ms\n",
	       n, secs, n ? rtt[n / 2] : 0, n ? rtt[n * 99 / 100] : 0, n ? rtt[n - 1] : 0,
	       over, stall_ms);
	free(rtt);
	if (out)
		fclose(out);
	close(fd);
	conf_destroy(conf);
	return 0;
}
