/* submit_flood.c - the controller's own submission rate, without the cost of
 * starting one sbatch process per job: C clients send held batch jobs over the
 * controller's unix socket, each keeping DEPTH requests in flight, and count the
 * acknowledged (durable) submissions per second.
 *
 * Usage: submit_flood [-n jobs] [-c clients] [-d depth] [-r] [-C cpus] [-s script]
 *   (SLURM_CONF set).  -r: jobs that may run (not held), each of -C CPUs
 *   (cpus-per-task), running -s script (default "true"): bench/emulate.sh fills
 *   an emulated cluster's queue with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/states.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct flood_job {
	int runnable;
	uint32_t cpus;
	char *script;
};

static int run_client(const struct conf *conf, long n, int depth,
                      const struct flood_job *fj)
{
	struct rota_error err = {""};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	struct job_desc d = {.name = "flood",
	                     .script = fj->script,
	                     .work_dir = "/tmp",
	                     .env = env,
	                     .hold = !fj->runnable,
	                     .min_nodes = NO_VAL,
	                     .max_nodes = NO_VAL,
	                     .num_tasks = NO_VAL,
	                     .ntasks_per_node = NO_VAL,
	                     .cpus_per_task = fj->cpus ? fj->cpus : NO_VAL,
	                     .mem_per_node = NO_VAL64,
	                     .mem_per_cpu = NO_VAL64,
	                     .time_limit = NO_VAL};
	int fd = client_connect(conf, NULL, NULL, 0, &err);
	long sent = 0, got = 0;

	if (fd < 0) {
		fprintf(stderr, "connect: %s\n", err.text);
		return 1;
	}
	while (got < n) {
		uint16_t type;
		void *body;
		while (sent < n && sent - got < depth) {
			if (net_send(fd, MSG_SUBMIT_REQ, &d, &err) < 0)
				return 1;
			sent++;
		}
		if (net_recv(fd, &type, &body, 60000, &err) < 0) {
			fprintf(stderr, "reply: %s\n", err.text);
			return 1;
		}
		if (type != MSG_SUBMIT_RESP) {
			const struct rc_msg *rc = type == MSG_RC ? body : NULL;
			fprintf(stderr, "submission refused: %s\n",
			        !rc       ? msg_name(type)
			        : rc->msg ? rc->msg
			                  : slurm_strerror(rc->rc));
			msg_body_free(type, body);
			return 1;
		}
		msg_body_free(type, body);
		got++;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	long n = 20000;
	int clients = 8, depth = 64, opt, bad = 0;
	const char *cmd = "true";
	struct flood_job fj = {0};
	struct rota_error err = {""};
	struct conf *conf;
	double t0, dt;

	while ((opt = getopt(argc, argv, "n:c:d:rC:s:")) != -1) {
		if (opt == 'n')
			n = strtol(optarg, NULL, 10);
		else if (opt == 'c')
			clients = (int)strtol(optarg, NULL, 10);
		else if (opt == 'd')
			depth = (int)strtol(optarg, NULL, 10);
		else if (opt == 'r')
			fj.runnable = 1;
		else if (opt == 'C')
			fj.cpus = (uint32_t)strtoul(optarg, NULL, 10);
		else if (opt == 's')
			cmd = optarg;
		else
			return 2;
	}
	if (n < 1 || clients < 1 || depth < 1 ||
	    conf_load(conf_default_path(), &conf, &err) < 0) {
		fprintf(stderr,
		        "usage: submit_flood [-n jobs] [-c clients] [-d depth] [-r] "
		        "[-C cpus] [-s script] %s\n",
		        err.text);
		return 2;
	}
	fj.script = xasprintf("#!/bin/sh\n%s\n", cmd);
	t0 = now_s();
	for (int i = 0; i < clients; i++)
		if (fork() == 0)
			_exit(run_client(conf, n / clients, depth, &fj));
	for (int i = 0; i < clients; i++) {
		int st;
		wait(&st);
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	dt = now_s() - t0;
	printf("controller submit rate (%ld %s jobs, %d clients, %d in flight each) "
	       "%.0f jobs/s\n",
	       n / clients * clients, fj.runnable ? "runnable" : "held", clients, depth,
	       (n / clients * clients) / dt);
	free(fj.script);
	conf_destroy(conf);
	return bad;
}
