/* sbcast.c - copy a file to every node of a running job, as Slurm 22.05's
 * sbcast does: SOURCE is read here and sent block by block through the
 * controller (ctld/bcast.h), which has each of the job's rotads write DEST as
 * the job's user (noded/bcast.h).  --send-libs also sends the shared
 * libraries ldd names (but those under BcastExclude) into DEST_libs/. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define SBCAST_BLOCK_DEFAULT (8u << 20)
#define SBCAST_BLOCK_MIN     1024u
#define SBCAST_FANOUT_MAX    8
#define SBCAST_LIBS_MAX      256
#define SBCAST_RETRIES       600 /* 2 minutes of EAGAIN */

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
	if (arg && strcasecmp(arg, "lz4") && strcasecmp(arg, "none")) {
		cli_error("--compress=%s: supported values are lz4 and none", arg);
		exit(1);
	}
	o->compress = !arg || strcasecmp(arg, "none");
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
	const char *jobarg = NULL, *dd;
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
	dd = conf->bcast_parameters ? strcasestr(conf->bcast_parameters, "DestDir=")
	                            : NULL;
	if (argv[optind + 1][0] == '/') {
		o->dst = xstrdup(argv[optind + 1]);
	} else if (dd) {
		dd += 8;
		o->dst =
		    xasprintf("%.*s/%s", (int)strcspn(dd, ","), dd, argv[optind + 1]);
	} else {
		cwd = getcwd(NULL, 0);
		o->dst = xasprintf("%s/%s", cwd ? cwd : ".", argv[optind + 1]);
		free(cwd);
	}
	if (o->dst[strlen(o->dst) - 1] == '/') {
		cli_error("Target filename cannot be a directory.");
		exit(1);
	}
	if (strlen(o->dst) + 64 > FILE_BCAST_PATH_MAX) {
		cli_error("Target filename is too long.");
		exit(1);
	}
	if (o->compress)
		fprintf(stderr,
		        "sbcast: lz4 compression not supported, sending uncompressed "
		        "file.\n");
}

/* Send one block; returns 0, or prints why and returns 1. */
static int send_block(const struct sbcast_opts *o, struct file_bcast *b, int first_call,
                      char **ret_nodes)
{
	struct file_bcast_resp *r = NULL;
	char *msg = NULL;
	int rc;

	/* EAGAIN: the controller holds enough blocks for now; a while later */
	for (int tries = 0;; tries++) {
		rc = call_ctld(MSG_FILE_BCAST_REQ, b, MSG_FILE_BCAST_RESP, (void **)&r,
		               &msg);
		if (rc || r->rc != EAGAIN || tries >= SBCAST_RETRIES)
			break;
		msg_body_free(MSG_FILE_BCAST_RESP, r);
		r = NULL;
		usleep(200000);
	}

	if (rc) {
		cli_error("%s", msg ? msg : slurm_strerror(rc));
		free(msg);
		return 1;
	}
	rc = r->rc;
	if (rc > 1) {
		char job[32];
		if (o->step_id == NO_VAL)
			snprintf(job, sizeof(job), "%u", o->job_id);
		else
			snprintf(job, sizeof(job), "%u.%u", o->job_id, o->step_id);
		if (first_call)
			cli_error("Slurm job %s lookup error: %s", job,
			          slurm_strerror(rc));
		else
			cli_error("%s", slurm_strerror(rc));
	} else if (rc) {
		char **lines = strv_split(r->msg ? r->msg : "", "\n");
		for (size_t i = 0; lines[i]; i++)
			cli_error("%s", lines[i]);
		strv_free(lines);
	} else if (ret_nodes && !*ret_nodes && r->nodes) {
		*ret_nodes = xstrdup(r->nodes);
	}
	msg_body_free(MSG_FILE_BCAST_RESP, r);
	free(msg);
	return rc ? 1 : 0;
}

static void say_stat(const struct sbcast_opts *o, const struct stat *sb)
{
	char t[3][64];
	const time_t *when[3] = {&sb->st_atime, &sb->st_mtime, &sb->st_ctime};

	if (!o->verbose)
		return;
	for (int i = 0; i < 3; i++) {
		struct tm tm;
		localtime_r(when[i], &tm);
		strftime(t[i], sizeof(t[i]), "%a %b %d %H:%M:%S %Y", &tm);
	}
	fprintf(stderr,
	        "sbcast: modes    = %o\nsbcast: uid      = %u\nsbcast: gid      = %u\n"
	        "sbcast: atime    = %s\nsbcast: mtime    = %s\nsbcast: ctime    = %s\n"
	        "sbcast: size     = %ld\n",
	        (unsigned)sb->st_mode, (unsigned)sb->st_uid, (unsigned)sb->st_gid, t[0],
	        t[1], t[2], (long)sb->st_size);
}

/* src to dst on every node.  extra: BCAST_F_* added to each block.
 * Returns 0 or 1 (said why). */
static int send_file(const struct sbcast_opts *o, const char *src, const char *dst,
                     uint32_t extra, int first_call)
{
	struct stat sb;
	struct file_bcast b = {.job_id = o->job_id, .step_id = o->step_id};
	const uint8_t *map = NULL;
	char *nodes = NULL;
	uint32_t block;
	uint64_t off = 0;
	int fd, rc = 0;

	if ((fd = open(src, O_RDONLY | O_CLOEXEC)) < 0) {
		cli_error("Can't open `%s`: %s", src, strerror(errno));
		return 1;
	}
	if (fstat(fd, &sb) < 0) {
		cli_error("Can't stat `%s`: %s", src, strerror(errno));
		close(fd);
		return 1;
	}
	if (first_call)
		say_stat(o, &sb);
	if (!sb.st_size)
		cli_error("Warning: file `%s` is empty.", src);
	else if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
	         MAP_FAILED) {
		cli_error("Can't mmap file `%s`, %s.", src, strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	block = o->block ? o->block : SBCAST_BLOCK_DEFAULT;
	b.path = (char *)dst;
	b.mode = (uint32_t)(sb.st_mode & 07777);
	b.timeout = o->timeout;
	if (o->preserve) {
		b.atime = sb.st_atime;
		b.mtime = sb.st_mtime;
	}
	do {
		uint64_t left = (uint64_t)sb.st_size - off;
		uint32_t n = left > block ? block : (uint32_t)left;
		b.flags = (off == 0 ? BCAST_F_FIRST : 0) |
		          (off + n == (uint64_t)sb.st_size ? BCAST_F_LAST : 0) |
		          (o->force ? BCAST_F_FORCE : 0) |
		          (o->preserve ? BCAST_F_PRESERVE : 0) | extra;
		b.offset = off;
		b.data.data = (uint8_t *)(map ? map + off : NULL);
		b.data.len = n;
		rc = send_block(o, &b, first_call && off == 0, &nodes);
		if (!rc && first_call && off == 0 && o->verbose) {
			if (o->step_id == NO_VAL)
				fprintf(stderr, "sbcast: jobid      = %u\n", o->job_id);
			else
				fprintf(stderr, "sbcast: jobid      = %u.%u\n", o->job_id,
				        o->step_id);
			fprintf(stderr, "sbcast: node_list  = %s\n", nodes ? nodes : "");
		}
		off += n;
	} while (!rc && off < (uint64_t)sb.st_size);
	if (map)
		munmap((void *)map, (size_t)sb.st_size);
	free(nodes);
	return rc;
}

/* The shared libraries ldd finds for path, but those under the excluded
 * directories.  Caller frees. */
static char **find_libs(const struct sbcast_opts *o, const char *path)
{
	const char *ex = o->exclude ? o->exclude : cli_conf()->bcast_exclude;
	char **skip = ex && strcasecmp(ex, "NONE") ? strv_split(ex, ",") : NULL;
	char **libs = NULL, line[4096];
	int pfd[2];
	pid_t pid;
	FILE *f;

	if (pipe2(pfd, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		strv_free(skip);
		return NULL;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		execlp("ldd", "ldd", path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (f && fgets(line, sizeof(line), f) && strv_len(libs) < SBCAST_LIBS_MAX) {
		char *p = strstr(line, "=> /"), *end;
		int skipped = 0;
		if (!p)
			continue;
		p += 3;
		end = p + strcspn(p, " \t\n(");
		*end = '\0';
		for (size_t i = 0; skip && skip[i]; i++) {
			size_t n = strlen(skip[i]);
			if (!strncmp(p, skip[i], n) && p[n] == '/')
				skipped = 1;
		}
		if (skipped) {
			if (o->verbose)
				fprintf(stderr,
				        "sbcast: Skipping broadcast of excluded '%s'\n",
				        p);
			continue;
		}
		libs = strv_append(libs, p);
	}
	if (f)
		fclose(f);
	else
		close(pfd[0]);
	waitpid(pid, NULL, 0);
	strv_free(skip);
	return libs;
}

static int send_libs(const struct sbcast_opts *o)
{
	char **libs = find_libs(o, o->src);
	int rc = 0;

	if (!libs && o->verbose)
		fprintf(stderr, "sbcast: No shared objects detected for '%s'\n", o->src);
	for (size_t i = 0; libs && libs[i] && !rc; i++) {
		const char *base = strrchr(libs[i], '/');
		char *dst = xasprintf("%s_libs/%s", o->dst, base ? base + 1 : libs[i]);
		rc = send_file(o, libs[i], dst, BCAST_F_MKDIR, 0);
		if (rc)
			cli_error("Broadcast of '%s' failed", o->src);
		free(dst);
	}
	strv_free(libs);
	return rc;
}

int cmd_sbcast(int argc, char **argv)
{
	struct sbcast_opts o = {.step_id = NO_VAL, .send_libs = -1};
	int rc;

	parse_args(&o, argc, argv);
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
	rc = send_file(&o, o.src, o.dst, 0, 1);
	if (!rc && o.send_libs)
		rc = send_libs(&o);
	free(o.src);
	free(o.dst);
	free(o.exclude);
	free(o.compress_lib);
	return rc;
}
