/* sprio.c - each pending job's priority and its factors, as Slurm 22.05's sprio
 * prints them.  The factors come from the controller (MSG_PRIO_INFO_REQ). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/strv.h"
#include "common/uid.h"
#include "proto/messages.h"
#include "common/common.h"

#define SPRIO_IDS_MAX 10000

enum sprio_flags {
	SPRIO_LONG = 1 << 0,
	SPRIO_NORM = 1 << 1,
	SPRIO_WEIGHTS = 1 << 2,
	SPRIO_NOHEADER = 1 << 3,
};

struct sprio_opts {
	unsigned flags;
	struct rota_u32v ids; /* -j */
	char **users;         /* -u: names */
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: sprio [OPTIONS]\n"
	           "  -h, --noheader      no headers on output\n"
	           "  -j, --jobs=LIST     comma separated list of jobs\n"
	           "  -l, --long          long report\n"
	           "  -n, --norm          display normalized values\n"
	           "  -u, --user=LIST     comma separated list of users\n"
	           "  -w, --weights       show the weights for each priority factor\n"
	           "\nHelp options:\n"
	           "      --help          show this help message\n"
	           "      --usage         display a brief summary of sprio options\n");
}

static void parse_jobs(struct sprio_opts *o, const char *arg)
{
	char **w = fmt_split(arg, ",");
	size_t n = fmt_strv_len(w);

	if (o->ids.n + n > SPRIO_IDS_MAX) {
		cli_error("more than %d job ids", SPRIO_IDS_MAX);
		exit(1);
	}
	o->ids.v = xrealloc(o->ids.v, (o->ids.n + n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t id;
		if (fmt_parse_job_id(w[i], &id) < 0) {
			cli_error("Invalid job id: %s", w[i]);
			exit(1);
		}
		o->ids.v[o->ids.n++] = id;
	}
	fmt_strv_free(w);
}

/* -u takes names or uids; keep names. */
static void parse_users(struct sprio_opts *o, const char *arg)
{
	char **w = fmt_split(arg, ",");

	for (size_t i = 0; w[i]; i++) {
		long uid = cli_parse_long(w[i]);
		char name[256];
		if (uid >= 0 && uid_to_name((uid_t)uid, name, sizeof(name)) == 0) {
			free(w[i]);
			w[i] = xstrdup(name);
		}
	}
	fmt_strv_free(o->users);
	o->users = w;
}

static void print_header(unsigned flags)
{
	if (flags & SPRIO_LONG)
		printf("%15s %-9s %8s %10s %10s %10s %10s %10s %10s %10s %11s\n", "JOBID",
		       "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "FAIRSHARE",
		       "JOBSIZE", "PARTITION", "QOS", "NICE");
	else
		printf("%15s %-9s %10s %10s %10s %10s %10s %10s %10s\n", "JOBID",
		       "PARTITION", "PRIORITY", "SITE", "AGE", "FAIRSHARE", "JOBSIZE",
		       "PARTITION", "QOS");
}

static void print_weights(const struct prio_info_resp *r, unsigned flags)
{
	if (flags & SPRIO_LONG)
		printf("%15s %-9s %8s %10s %10u %10u %10u %10u %10u %10u %11s\n",
		       "Weights", "", "", "", 1u, r->weight_age, r->weight_fairshare,
		       r->weight_jobsize, r->weight_partition, r->weight_qos, "");
	else
		printf("%15s %-9s %10s %10u %10u %10u %10u %10u %10u\n", "Weights", "",
		       "", 1u, r->weight_age, r->weight_fairshare, r->weight_jobsize,
		       r->weight_partition, r->weight_qos);
}

static double nv(uint32_t v)
{
	return (double)v / PRIO_NORM_SCALE;
}

static void print_job(const struct prio_info *p, unsigned flags)
{
	char id[16], user[16];

	snprintf(id, sizeof(id), "%u", p->job_id);
	snprintf(user, sizeof(user), "%.8s", p->user ? p->user : "");
	printf("%15s %-9.9s ", id, p->partition ? p->partition : "");
	if (flags & SPRIO_LONG)
		printf("%8s ", user);
	if (flags & SPRIO_NORM)
		printf("%10.7f %10.7f %10.7f %10.7f %10.7f %10.7f %10.7f",
		       (double)p->priority / UINT32_MAX, 0.0, nv(p->n_age),
		       nv(p->n_fairshare), nv(p->n_jobsize), nv(p->n_partition),
		       nv(p->n_qos));
	else
		printf("%10u %10u %10u %10u %10u %10u %10u", p->priority, p->site, p->age,
		       p->fairshare, p->jobsize, p->partition_factor, p->qos);
	if (flags & SPRIO_LONG)
		printf(" %11d", (int32_t)p->nice);
	printf("\n");
}

static int cmp_id(const void *a, const void *b)
{
	const struct prio_info *x = a, *y = b;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static int run(const struct sprio_opts *o)
{
	struct job_info_req req = {.job_ids = o->ids};
	struct prio_info_resp *r = NULL;
	char *msg = NULL;
	int rc;

	rc = call_ctld(MSG_PRIO_INFO_REQ, &req, MSG_PRIO_INFO_RESP, (void **)&r, &msg);
	if (rc) {
		fprintf(stderr, "Unable to retrieve job information: %s\n", msg);
		free(msg);
		return 1;
	}
	if (!r->multifactor) {
		fprintf(stderr, "You are not running a supported priority plugin\n"
		                "(priority/basic).\n"
		                "Only 'priority/multifactor' is supported.\n");
		msg_body_free(MSG_PRIO_INFO_RESP, r);
		return 1;
	}
	if (!(o->flags & SPRIO_NOHEADER))
		print_header(o->flags);
	if (o->flags & SPRIO_WEIGHTS) {
		print_weights(r, o->flags);
		msg_body_free(MSG_PRIO_INFO_RESP, r);
		return 0;
	}
	qsort(r->jobs, r->jobs_count, sizeof(*r->jobs), cmp_id);
	for (uint32_t i = 0; i < r->jobs_count; i++) {
		if (o->users &&
		    !strv_has(o->users, r->jobs[i].user ? r->jobs[i].user : "", 0))
			continue;
		print_job(&r->jobs[i], o->flags);
	}
	msg_body_free(MSG_PRIO_INFO_RESP, r);
	return 0;
}

int cmd_sprio(int argc, char **argv)
{
	static const struct option longopts[] = {{"noheader", no_argument, NULL, 'h'},
	                                         {"jobs", required_argument, NULL, 'j'},
	                                         {"long", no_argument, NULL, 'l'},
	                                         {"norm", no_argument, NULL, 'n'},
	                                         {"user", required_argument, NULL, 'u'},
	                                         {"weights", no_argument, NULL, 'w'},
	                                         {"help", no_argument, NULL, 'H'},
	                                         {"usage", no_argument, NULL, 'U'},
	                                         {"version", no_argument, NULL, 'V'},
	                                         {NULL, 0, NULL, 0}};
	struct sprio_opts o = {0};
	int c, rc;

	while ((c = getopt_long(argc, argv, "hj:lnu:wV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			o.flags |= SPRIO_NOHEADER;
			break;
		case 'j':
			parse_jobs(&o, optarg);
			break;
		case 'l':
			o.flags |= SPRIO_LONG;
			break;
		case 'n':
			o.flags |= SPRIO_NORM;
			break;
		case 'u':
			parse_users(&o, optarg);
			break;
		case 'w':
			o.flags |= SPRIO_WEIGHTS;
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
	rc = run(&o);
	free(o.ids.v);
	fmt_strv_free(o.users);
	return rc;
}
