/* sbcast.c - copy a file to every node of a running job, as Slurm 22.05's
 * sbcast does: SOURCE is read here and sent block by block through the
 * controller (ctld/bcast.h), which has each of the job's rotads write DEST as
 * the job's user (noded/bcast.h).  --send-libs also sends the shared
 * libraries ldd names (but those under BcastExclude) into DEST_libs/. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli/bcast_send.h"
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define SBCAST_BLOCK_MIN  1024u
#define SBCAST_FANOUT_MAX 8

struct sbcast_opts {
	uint32_t job_id, step_id; /* step NO_VAL: the job's nodes */
	int force, preserve, verbose, compress;
	int send_libs; /* -1: BcastParameters says */
	char *compress_lib;
	char *exclude; /* --exclude, NULL: BcastExclude */
	uint32_t fanout, block, timeout;
	char *src, *dst;
};

static void usage(void)
{
	printf("Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n");
}

static void help(void)
{
	printf(
	    "Usage: sbcast [OPTIONS] SOURCE DEST\n"
	    "  -C, --compress[=lib]  compress the file being transmitted\n"
	    "  --exclude=<path_list> shared object paths to be excluded\n"
	    "  -f, --force           replace destination file as required\n"
	    "  -F, --fanout=num      specify message fanout\n"
	    "  -j, --jobid=#[+#][.#] specify job ID with optional hetjob offset and/or "
	    "step ID\n"
	    "  -p, --preserve        preserve modes and times of source file\n"
	    "  --send-libs[=yes|no]  autodetect and broadcast executable's shared "
	    "objects\n"
	    "  -s, --size=num        block size in bytes (rounded off)\n"
	    "  -t, --timeout=secs    specify message timeout (seconds)\n"
	    "  -v, --verbose         provide detailed event logging\n"
	    "  -V, --version         print version information and exit\n"
	    "\nHelp options:\n"
	    "  --help                show this help message\n"
	    "  --usage               display brief usage message\n");
}

/* "N", "N.S" or "N+0[.S]" (one component: no heterogeneous jobs here). */
static int parse_job(const char *s, uint32_t *job, uint32_t *step)
{
	char *end;
	unsigned long j = strtoul(s, &end, 10), st = NO_VAL;

	if (end == s || !j || j >= NO_VAL)
		return -1;
	if (*end == '+') { /* N+K: component K's nodes */
		const char *p = end + 1;
		unsigned long k = strtoul(p, &end, 10);
		if (end == p || k >= HET_MAX)
			return -1;
		if (k && !(j = call_het_component((uint32_t)j, (uint32_t)k)))
			return -1;
	}
	if (*end == '.') {
		const char *p = end + 1;
		st = strtoul(p, &end, 10);
		if (end == p || st >= NO_VAL)
			return -1;
	}
	if (*end)
		return -1;
	*job = (uint32_t)j;
	*step = (uint32_t)st;
	return 0;
}

/* "N[k|m]"; 0 when invalid. */
static uint32_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'k' || *end == 'K')
		v *= 1024, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1024 * 1024, end++;
	if (*end || !v)
		return 0;
	if (v < SBCAST_BLOCK_MIN)
		v = SBCAST_BLOCK_MIN;
	if (v > FILE_BCAST_BLOCK_MAX)
		v = FILE_BCAST_BLOCK_MAX;
	return (uint32_t)v;
}

static int yes_no(const char *arg, const char *what)
{
	if (!arg || !strcasecmp(arg, "yes"))
		return 1;
	if (!strcasecmp(arg, "no"))
		return 0;
	cli_error("Ignoring unrecognized %s value '%s'", what, arg);
	return -1;
}

static void set_compress(struct sbcast_opts *o, const char *arg)
{
	if ((o->compress = bcast_send_compress(arg)) < 0)
		exit(1);
}

static void from_env(struct sbcast_opts *o)
{
	const char *v;

	if ((v = getenv("SBCAST_COMPRESS")))
		set_compress(o, *v ? v : NULL);
	if ((v = getenv("SBCAST_EXCLUDE")))
		o->exclude = xstrdup(v);
	if ((v = getenv("SBCAST_FANOUT")))
		o->fanout = (uint32_t)strtoul(v, NULL, 10);
	if (getenv("SBCAST_FORCE"))
		o->force = 1;
	if (getenv("SBCAST_PRESERVE"))
		o->preserve = 1;
	if ((v = getenv("SBCAST_SEND_LIBS"))) {
		int yes = yes_no(v, "SBCAST_SEND_LIBS");
		if (yes >= 0)
			o->send_libs = yes;
	}
	if ((v = getenv("SBCAST_SIZE")) && !(o->block = parse_size(v)))
		fprintf(stderr, "size specification is invalid, ignored\n");
	if ((v = getenv("SBCAST_TIMEOUT")))
		o->timeout = (uint32_t)strtoul(v, NULL, 10);
}

enum { O_EXCLUDE = 256, O_SEND_LIBS, O_HELP, O_USAGE };

static void parse_args(struct sbcast_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
	    {"compress", optional_argument, NULL, 'C'},
	    {"exclude", required_argument, NULL, O_EXCLUDE},
	    {"fanout", required_argument, NULL, 'F'},
	    {"force", no_argument, NULL, 'f'},
	    {"jobid", required_argument, NULL, 'j'},
	    {"preserve", no_argument, NULL, 'p'},
	    {"send-libs", optional_argument, NULL, O_SEND_LIBS},
	    {"size", required_argument, NULL, 's'},
	    {"timeout", required_argument, NULL, 't'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, O_HELP},
	    {"usage", no_argument, NULL, O_USAGE},
	    {NULL, 0, NULL, 0}};
	const struct conf *conf;
	const char *jobarg = NULL;
	char *cwd;
	int c, v;

	from_env(o);
	while ((c = getopt_long(argc, argv, "C::fF:j:ps:t:vV", lo, NULL)) != -1) {
		switch (c) {
		case 'C':
			set_compress(o, optarg);
			break;
		case O_EXCLUDE:
			free(o->exclude);
			o->exclude = xstrdup(optarg);
			break;
		case 'F':
			o->fanout = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'f':
			o->force = 1;
			break;
		case 'j':
			jobarg = optarg;
			break;
		case 'p':
			o->preserve = 1;
			break;
		case O_SEND_LIBS:
			if ((v = yes_no(optarg, "--send-libs")) >= 0)
				o->send_libs = v;
			break;
		case 's':
			if (!(o->block = parse_size(optarg)))
				fprintf(stderr,
				        "size specification is invalid, ignored\n");
			break;
		case 't':
			o->timeout = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			fmt_print_version();
			exit(0);
		case O_HELP:
			help();
			exit(0);
		case O_USAGE:
			usage();
			exit(0);
		default:
			fprintf(stderr, "Try \"sbcast --help\" for more information\n");
			exit(1);
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "Need two file names, have %d names\n", argc - optind);
		fprintf(stderr, "Try \"sbcast --help\" for more information\n");
		exit(1);
	}
	if (o->fanout > SBCAST_FANOUT_MAX)
		o->fanout = SBCAST_FANOUT_MAX;
	conf = cli_conf();
	if (o->send_libs < 0)
		o->send_libs = conf->bcast_parameters &&
		               list_has(conf->bcast_parameters, "send_libs", 1);
	if (!jobarg && !(jobarg = getenv("SLURM_JOB_ID"))) {
		cli_error(
		    "Need a job id to run this command.  Run from within a Slurm job "
		    "or use the --jobid option.");
		exit(1);
	}
	if (parse_job(jobarg, &o->job_id, &o->step_id) < 0) {
		cli_error("Invalid job id %s", jobarg);
		exit(1);
	}
	o->src = xstrdup(argv[optind]);
	cwd = getcwd(NULL, 0);
	o->dst = bcast_send_path(argv[optind + 1], cwd ? cwd : ".");
	free(cwd);
	if (o->dst[strlen(o->dst) - 1] == '/') {
		cli_error("Target filename cannot be a directory.");
		exit(1);
	}
	if (strlen(o->dst) + 64 > FILE_BCAST_PATH_MAX) {
		cli_error("Target filename is too long.");
		exit(1);
	}
	if (o->compress)
		bcast_send_uncompressed();
}

int cmd_sbcast(int argc, char **argv)
{
	struct sbcast_opts o = {.step_id = NO_VAL, .send_libs = -1};
	struct bcast_send send;
	int rc;

	parse_args(&o, argc, argv);
	send = (struct bcast_send){
	    .job_id = o.job_id,
	    .step_id = o.step_id,
	    .force = o.force,
	    .preserve = o.preserve,
	    .verbose = o.verbose,
	    .exclude = o.exclude,
	    .block = o.block,
	    .timeout = o.timeout,
	};
	if (o.verbose) {
		fprintf(stderr, "sbcast: -----------------------------\n");
		fprintf(stderr, "sbcast: force      = %s\n", o.force ? "true" : "false");
		fprintf(stderr, "sbcast: preserve   = %s\n",
		        o.preserve ? "true" : "false");
		fprintf(stderr, "sbcast: send_libs  = %s\n",
		        o.send_libs ? "true" : "false");
		fprintf(stderr, "sbcast: source     = %s\n", o.src);
		fprintf(stderr, "sbcast: dest       = %s\n", o.dst);
		fprintf(stderr, "sbcast: -----------------------------\n");
	}
	rc = bcast_send_file(&send, o.src, o.dst, 0, 1);
	if (!rc && o.send_libs)
		rc = bcast_send_libs(&send, o.src, o.dst, NULL);
	free(o.src);
	free(o.dst);
	free(o.exclude);
	free(o.compress_lib);
	return rc;
}
