/* sattach.c - attach to a running step's standard streams, as Slurm 22.05's
 * sattach does: sattach listens as srun does, asks the controller to have
 * the step's stepds connect to it (ctld/step_attach.h), and from then on
 * prints what the tasks write (labelled with -l, one task's with the
 * filters) and sends its stdin to them, through srun's loop (srun_io.h).  It
 * ends when the step does, or when it gets a signal (the step goes on). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/jobctl.h"
#include "cli/jobopt.h"
#include "cli/srun_io.h"
#include "common/hostlist.h"
#include "common/taskdist.h"
#include "common/states.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define SATTACH_KEY_LEN 32

struct sattach_opts {
	uint32_t job_id, step_id;
	long in_task, out_task, err_task; /* JOBOPT_IO_ALL or a task */
	int label, layout, quiet, verbose, pty;
	int debugger_test; /* print the tasks' MPIR table (srun_mpir.h) */
};

static void usage(void)
{
	printf("Usage: sattach [options] <jobid.stepid>\n");
}

static void help(void)
{
	printf("Usage: sattach [options] <jobid.stepid>\n"
	       "      --input-filter=taskid  send stdin to only the specified task\n"
	       "      --output-filter=taskid only print stdout from the specified task\n"
	       "      --error-filter=taskid  only print stderr from the specified task\n"
	       "  -l, --label        prepend task number to lines of stdout & stderr\n"
	       "      --layout       print task layout info and exit (does not attach to "
	       "tasks)\n"
	       "  -Q, --quiet        quiet mode (suppress informational messages)\n"
	       "  -v, --verbose      verbose mode (multiple -v's increase verbosity)\n"
	       "  -V, --version      print the Slurm version and exit\n\n"
	       "Help options:\n"
	       "  -h, --help         print this help message\n"
	       "  -u, --usage        print a brief usage message\n");
}

static long task_arg(const char *arg, const char *opt)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v < 0) {
		cli_error("Invalid %s value: %s", opt, arg);
		exit(1);
	}
	return v;
}

enum { O_IN = 256, O_OUT, O_ERR, O_LAYOUT, O_PTY, O_DEBUGGER_TEST };

static void parse_args(struct sattach_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
	    {"input-filter", required_argument, NULL, O_IN},
	    {"output-filter", required_argument, NULL, O_OUT},
	    {"error-filter", required_argument, NULL, O_ERR},
	    {"label", no_argument, NULL, 'l'},
	    {"layout", no_argument, NULL, O_LAYOUT},
	    {"debugger-test", no_argument, NULL, O_DEBUGGER_TEST},
	    {"pty", no_argument, NULL, O_PTY},
	    {"quiet", no_argument, NULL, 'Q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {"usage", no_argument, NULL, 'u'},
	    {NULL, 0, NULL, 0}};
	int c, filtered = 0, out_set = 0, err_set = 0;
	char *end;
	unsigned long j, s;

	while ((c = getopt_long(argc, argv, "+lQvVhu", lo, NULL)) != -1) {
		switch (c) {
		case O_IN:
			o->in_task = task_arg(optarg, "--input-filter");
			filtered = 1;
			break;
		case O_OUT:
			o->out_task = task_arg(optarg, "--output-filter");
			filtered = out_set = 1;
			break;
		case O_ERR:
			o->err_task = task_arg(optarg, "--error-filter");
			filtered = err_set = 1;
			break;
		case 'l':
			o->label = 1;
			break;
		case O_LAYOUT:
			o->layout = 1;
			break;
		case O_PTY:
			o->pty = 1;
			break;
		case O_DEBUGGER_TEST: /* not in --help, as in Slurm */
			o->debugger_test = 1;
			break;
		case 'Q':
			o->quiet = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
			exit(0);
		case 'h':
			help();
			exit(0);
		case 'u':
			usage();
			exit(0);
		default:
			fprintf(stderr, "Try \"sattach --help\" for more information\n");
			exit(1);
		}
	}
	if (argc - optind != 1) {
		cli_error("too many parameters");
		usage();
		exit(1);
	}
	j = strtoul(argv[optind], &end, 10);
	s = *end == '.' ? strtoul(end + 1, &end, 10) : NO_VAL;
	if (!j || j >= NO_VAL || *end || s >= NO_VAL) {
		cli_error("Failed to parse stepid from command line options");
		usage();
		exit(1);
	}
	o->job_id = (uint32_t)j;
	o->step_id = (uint32_t)s;
	if (o->quiet && o->verbose) {
		cli_error("don't specify both --verbose (-v) and --quiet (-Q)");
		exit(1);
	}
	if (filtered && o->pty) {
		cli_error("don't specify both --pty and I/O filtering");
		exit(1);
	}
	if (out_set && !err_set)
		o->err_task = o->out_task; /* stderr follows stdout's filter */
}

static void print_layout(const struct step_attach_resp *r, char **nodes)
{
	uint32_t total = 0, first = 0, *gtids;

	for (uint32_t i = 0; i < r->tasks_per_node.n; i++)
		total += r->tasks_per_node.v[i];
	gtids = xcalloc(total + 1, sizeof(*gtids));
	taskdist_gtids_map(r->task_dist, r->tasks_per_node.v, r->tasks_per_node.n,
	                   r->task_map.v, r->task_map.n, gtids);
	printf("Job step layout:\n");
	printf("\t%u tasks, %u nodes (%s)\n\n", total, r->tasks_per_node.n, r->nodes);
	for (uint32_t i = 0; i < r->tasks_per_node.n; i++) {
		printf("\tNode %u (%s), %u task(s): ", i, nodes[i],
		       r->tasks_per_node.v[i]);
		for (uint32_t k = 0; k < r->tasks_per_node.v[i]; k++)
			printf("%u ", gtids[first + k]);
		printf("\n");
		first += r->tasks_per_node.v[i];
	}
	free(gtids);
}

int cmd_sattach(int argc, char **argv)
{
	static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGWINCH};
	struct sattach_opts o = {.in_task = JOBOPT_IO_ALL,
	                         .out_task = JOBOPT_IO_ALL,
	                         .err_task = JOBOPT_IO_ALL};
	struct rota_error err = {""};
	uint8_t key[SATTACH_KEY_LEN];
	char host[256], **nodes = NULL, *msg = NULL;
	struct step_attach req = {0};
	struct step_attach_resp *r = NULL;
	uint16_t port = 0;
	size_t nnodes = 0;
	uint32_t status = 0;
	int listen_fd = -1, sig_fd, rc;

	parse_args(&o, argc, argv);
	if (o.step_id == NO_VAL) {
		cli_error("Failed to parse stepid from command line options");
		usage();
		return 1;
	}
	req.job_id = o.job_id;
	req.step_id = o.step_id;
	if (o.layout) {
		req.flags = STEP_ATTACH_F_LAYOUT;
	} else {
		if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
			fatal("getrandom: %s", strerror(errno));
		listen_fd = net_listen_tcp(NULL, 0, &port, &err);
		if (listen_fd < 0) {
			cli_error("cannot listen: %s", err.text);
			return 1;
		}
		req.io_host = (char *)srun_io_host(host, sizeof(host));
		req.io_port = port;
		req.io_key = (struct rota_bin){key, sizeof(key)};
	}
	/* the signals arrive on a descriptor from here on: none is lost
	 * before the loop reads them */
	sig_fd = jobctl_signalfd(sigs, sizeof(sigs) / sizeof(sigs[0]), NULL);
	rc =
	    call_ctld(MSG_STEP_ATTACH_REQ, &req, MSG_STEP_ATTACH_RESP, (void **)&r, &msg);
	if (rc) {
		cli_error("Could not get job step info: %s",
		          msg ? msg : slurm_strerror(rc));
		free(msg);
		return 1;
	}
	if (hostlist_expand(r->nodes ? r->nodes : "", &nodes, &nnodes, NULL) < 0 ||
	    nnodes != r->tasks_per_node.n || !nnodes) {
		cli_error("the controller sent an invalid step layout");
		return 1;
	}
	if (o.layout) {
		print_layout(r, nodes);
		rc = 0;
	} else {
		struct srun_step st = {.job_id = o.job_id,
		                       .step_id = o.step_id,
		                       .nnodes = nnodes,
		                       .nodes = nodes,
		                       .tasks = r->tasks_per_node.v,
		                       .task_dist = r->task_dist,
		                       .task_map = r->task_map.v,
		                       .ntask_map = r->task_map.n,
		                       .key = key,
		                       .key_len = sizeof(key)};
		struct srun_io_opts io = {.listen_fd = listen_fd,
		                          .ctl_fd = -1,
		                          .sig_fd = sig_fd,
		                          .label = o.label,
		                          .pty = 0,
		                          .in_task = o.in_task,
		                          .out_task = o.out_task,
		                          .err_task = o.err_task,
		                          .verbose = o.verbose,
		                          .attach = 1,
		                          .mpir_dump = o.debugger_test};
		rc = srun_io_run(&st, &io, &status);
	}
	hostlist_free(nodes);
	msg_body_free(MSG_STEP_ATTACH_RESP, r);
	if (listen_fd >= 0)
		close(listen_fd);
	return rc;
}
