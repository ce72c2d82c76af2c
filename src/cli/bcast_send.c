/* bcast_send.c - a file sent to a job's nodes through the controller, and
 * the shared libraries it needs (see bcast_send.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/bcast_send.h"
#include "cli/call.h"
#include "cli/cli.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

#define BCAST_SEND_BLOCK_DEFAULT (8u << 20)
#define BCAST_SEND_LIBS_MAX      256
#define BCAST_SEND_RETRIES       600 /* 2 minutes of EAGAIN */

/* Send one block; returns 0, or prints why and returns 1. */
static int send_block(const struct bcast_send *o, struct file_bcast *b, int first_call,
                      char **ret_nodes)
{
	struct file_bcast_resp *r = NULL;
	char *msg = NULL;
	int rc;

	/* EAGAIN: the controller holds enough blocks for now; a while later */
	for (int tries = 0;; tries++) {
		rc = call_ctld(MSG_FILE_BCAST_REQ, b, MSG_FILE_BCAST_RESP, (void **)&r,
		               &msg);
		if (rc || r->rc != EAGAIN || tries >= BCAST_SEND_RETRIES)
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

static void say_stat(const struct bcast_send *o, const struct stat *sb)
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
int bcast_send_file(const struct bcast_send *o, const char *src, const char *dst,
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
	block = o->block ? o->block : BCAST_SEND_BLOCK_DEFAULT;
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
				fprintf(stderr, "%s: jobid      = %u\n", cli_prog,
				        o->job_id);
			else
				fprintf(stderr, "%s: jobid      = %u.%u\n", cli_prog,
				        o->job_id, o->step_id);
			fprintf(stderr, "%s: node_list  = %s\n", cli_prog,
			        nodes ? nodes : "");
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
static char **find_libs(const struct bcast_send *o, const char *path)
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
	while (f && fgets(line, sizeof(line), f) &&
	       strv_len(libs) < BCAST_SEND_LIBS_MAX) {
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
				        "%s: Skipping broadcast of excluded '%s'\n",
				        cli_prog, p);
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

int bcast_send_libs(const struct bcast_send *o, const char *src, const char *dst,
                    int *ret_count)
{
	char **libs = find_libs(o, src);
	int rc = 0, n = 0;

	if (!libs && o->verbose)
		fprintf(stderr, "%s: No shared objects detected for '%s'\n", cli_prog,
		        src);
	for (size_t i = 0; libs && libs[i] && !rc; i++) {
		const char *base = strrchr(libs[i], '/');
		char *to = xasprintf("%s_libs/%s", dst, base ? base + 1 : libs[i]);
		rc = bcast_send_file(o, libs[i], to, BCAST_F_MKDIR, 0);
		if (rc)
			cli_error("Broadcast of '%s' failed", src);
		else
			n++;
		free(to);
	}
	strv_free(libs);
	if (!rc && ret_count)
		*ret_count = n;
	return rc;
}

int bcast_send_compress(const char *arg)
{
	if (arg && strcasecmp(arg, "lz4") && strcasecmp(arg, "none")) {
		cli_error("--compress=%s: supported values are lz4 and none", arg);
		return -1;
	}
	return !arg || strcasecmp(arg, "none");
}

void bcast_send_uncompressed(void)
{
	fprintf(stderr, "%s: lz4 compression not supported, sending uncompressed file.\n",
	        cli_prog);
}

char *bcast_send_path(const char *name, const char *cwd)
{
	char *dir, *path;

	if (name[0] == '/')
		return xstrdup(name);
	dir = list_value(cli_conf()->bcast_parameters, "DestDir", 1);
	path = xasprintf("%s/%s", dir ? dir : cwd, name);
	free(dir);
	return path;
}
