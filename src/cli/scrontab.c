/* scrontab.c - a user's crontab of recurring batch jobs, as Slurm 22.05's
 * scrontab: `scrontab [-u user] file` (or `-` for standard input) sets it,
 * `-l` lists it, `-r` removes it and `-e` edits it in $VISUAL/$EDITOR.
 *
 * Each entry becomes one batch job: its #SCRON lines are sbatch options
 * (cli/jobopt.h), its script runs the command with /bin/sh, it starts in
 * the user's home directory with the user's login environment
 * (SLURM_GET_USER_ENV), and the controller (ctld/crontab.h) gives it its
 * begin time and requeues it after each run.  NAME=value lines define
 * variables that $NAME in later commands stands for.  Lines are counted
 * from 1, as Slurm's "failed lines" and the controller's disabled lines
 * are. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/jobopt.h"
#include "common/conf.h"
#include "common/cronspec.h"
#include "common/jobscript.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "common/common.h"

#define CRONTAB_READ_MAX (1u << 20) /* as the controller's CRONTAB_TEXT_MAX */

static const char default_crontab[] =
    "# Welcome to scrontab, Slurm's cron-like interface.\n"
    "#\n"
    "# Edit this file to submit recurring jobs to be run by Slurm.\n"
    "#\n"
    "# Note that jobs will be run based on the Slurm controller's\n"
    "# time and timezone.\n"
    "#\n"
    "# Lines must either be valid entries, comments (start with '#'),\n"
    "# or blank.\n"
    "#\n"
    "# Lines starting with #SCRON will be parsed for options to use\n"
    "# with the next cron line. E.g., \"#SCRON --time 1\" would request\n"
    "# a one minute timelimit be applied. See the sbatch man page for\n"
    "# options, although note that not all options are supported here.\n"
    "#\n"
    "# For example, the following line (when uncommented) would request\n"
    "# a job be run at 5am each day.\n"
    "# 0 5 * * * /my/script/to/run\n"
    "#\n"
    "# min hour day-of-month month day-of-week command\n";

static void usage(void)
{
	fprintf(stderr, "usage:\tscrontab [-u user] file\n"
	                "\tscrontab [-u user] [ -e | -l | -r | -v]\n"
	                "\t-e\tEdit user's crontab (default action if stdin is a TTY)\n"
	                "\t-l\tList user's crontab\n"
	                "\t-r\tDelete user's crontab\n"
	                "\t-u\tUser to edit crontab for\n");
}

static void fatal_msg(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void fatal_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scrontab: fatal: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *read_fd(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap + 1);
	ssize_t n;

	while ((n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fatal_msg("read: %s", strerror(errno));
		}
		len += (size_t)n;
		if (len > CRONTAB_READ_MAX)
			fatal_msg("crontab larger than %u bytes", CRONTAB_READ_MAX);
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	buf[len] = '\0';
	return buf;
}

/* The crontab's lines, from 1 ([0] is ""); the text is cut in place. */
static char **lines_of(char *text, size_t *ret_n)
{
	size_t n = 1;
	char **v = xcalloc(2, sizeof(*v));

	v[0] = (char *)"";
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	v[n] = NULL;
	*ret_n = n;
	return v;
}

/* "first-last,..." as a test of line i. */
static int in_ranges(const char *ranges, size_t i)
{
	for (const char *p = ranges; p && *p;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (end == p)
			return 0;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (i >= a && i <= b)
			return 1;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return 0;
}

/* text with the lines in ranges prefixed by prefix. */
static char *mark_lines(const char *text, const char *ranges, const char *prefix)
{
	char *copy = xstrdup(text), **lines, *out = xstrdup("");
	size_t n;

	if (!ranges || !*ranges) {
		free(out);
		free(copy);
		return xstrdup(text);
	}
	lines = lines_of(copy, &n);
	for (size_t i = 1; i < n; i++) {
		char *s = xasprintf("%s%s%s\n", out, in_ranges(ranges, i) ? prefix : "",
		                    lines[i]);
		free(out);
		out = s;
	}
	free(lines);
	free(copy);
	return out;
}

/* NAME=value (value possibly quoted): 1 and the two (caller frees), else 0. */
static int variable(const char *line, char **ret_name, char **ret_value)
{
	const char *p = line, *k, *v, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	k = p;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	e = p;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '=')
		return 0;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '"' || *p == '\'') {
		const char *q = strchr(p + 1, *p);
		if (!q)
			return 0;
		v = p + 1;
		for (const char *t = q + 1; *t; t++)
			if (*t != ' ' && *t != '\t')
				return 0;
		*ret_value = xstrndup(v, (size_t)(q - v));
	} else {
		*ret_value = xstrdup(p);
	}
	*ret_name = xstrndup(k, (size_t)(e - k));
	return 1;
}

/* cmd with each $NAME of vars (NAME=value strings) replaced. */
static char *expand(const char *cmd, char **vars)
{
	char *out = xstrdup(cmd);

	for (size_t i = 0; vars && vars[i]; i++) {
		const char *eq = strchr(vars[i], '=');
		char *key = xasprintf("$%.*s", (int)(eq - vars[i]), vars[i]);
		size_t kl = strlen(key);
		char *hit;
		size_t from = 0;

		while ((hit = strstr(out + from, key))) {
			char next = hit[kl];
			size_t at = (size_t)(hit - out);
			char *s;
			if (isalnum((unsigned char)next) || next == '_') { /* $NAMEX */
				from = at + 1;
				continue;
			}
			s = xasprintf("%.*s%s%s", (int)at, out, eq + 1, hit + kl);
			from = at + strlen(eq + 1);
			free(out);
			out = s;
		}
		free(key);
	}
	return out;
}

struct entry_ctx {
	const struct passwd *pw;
	struct jobopt o;
	int started;
	char *script; /* the header and #SCRON lines so far */
	size_t first; /* the first line of the entry (its first #SCRON) */
	struct jobopt_list scron;
};

static void ctx_reset(struct entry_ctx *c)
{
	jobopt_init(&c->o, JOBOPT_SBATCH);
	c->o.crontab = 1;
	c->started = 1;
	c->script = xstrdup("#!/bin/sh\n# This job was submitted through scrontab\n");
	c->first = 0;
}

/* An #SCRON line's options, checked now (sbatch's words on an error). */
static void scron_line(struct entry_ctx *c, const char *line)
{
	struct rota_error err = {""};
	struct jobopt_list list;
	char **words = NULL, **av, *s;
	size_t n;
	int idx;

	if (jobscript_directives(line, "#SCRON", &words, &err) < 0)
		fatal_msg("%s", err.text);
	n = strv_len(words);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(words[i], "--help") || !strcmp(words[i], "-h") ||
		    !strcmp(words[i], "--usage") || !strcmp(words[i], "--version") ||
		    !strcmp(words[i], "-V"))
			fatal_msg("Invalid directive found in crontab: %s", words[i]);
	av = xcalloc(n + 2, sizeof(*av));
	av[0] = (char *)"scrontab";
	memcpy(av + 1, words, n * sizeof(*av));
	jobopt_collect(JOBOPT_SBATCH, (int)n + 1, av, &list, &idx);
	if (idx < (int)n + 1)
		fatal_msg("Invalid directive found in crontab: %s", av[idx]);
	/* what an entry cannot be: the controller decides when it runs, it is
	 * one job, and scrontab does not wait */
	for (size_t i = 0; i < list.n; i++) {
		static const struct {
			int id;
			const char *name;
		} no[] = {{'H', "--hold"},
		          {'a', "--array"},
		          {'b', "--begin"},
		          {'W', "--wait"},
		          {JOBOPT_ID_WRAP, "--wrap"}};
		for (size_t k = 0; k < sizeof(no) / sizeof(no[0]); k++)
			if (list.v[i].id == no[k].id)
				fatal_msg("%s cannot be used in a crontab", no[k].name);
	}
	jobopt_apply_list(&c->o, &list, JOBOPT_SRC_SCRIPT);
	jobopt_list_release(&list);
	free(av);
	strv_free(words);
	s = xasprintf("%s%s\n", c->script, line);
	free(c->script);
	c->script = s;
}

/* The entry's job, from its time fields and command. */
static void entry_job(struct entry_ctx *c, const char *spec, const char *cmd,
                      size_t first, size_t last, struct job_desc *ret)
{
	struct job_desc *d = &c->o.desc;
	struct job_desc_ext *x;
	char *s;

	if (!d->work_dir)
		d->work_dir = xstrdup(c->pw->pw_dir);
	jobopt_finish(&c->o);
	s = xasprintf("%s# crontab time request was: '%s'\n%s\n", c->script, spec, cmd);
	free(c->script);
	c->script = NULL;
	d->script = s;
	if (!d->name)
		d->name = xstrndup(cmd, strcspn(cmd, " \t"));
	d->command = xstrdup(cmd);
	strv_free(d->env);
	d->env = strv_append(NULL, "SLURM_GET_USER_ENV=1");
	x = job_desc_x_mut(d);
	x->cron_spec = xstrdup(spec);
	x->cron_lines = (uint32_t)(first << 16 | last);
	*ret = *d;
	memset(d, 0, sizeof(*d));
	jobopt_release(&c->o);
	c->started = 0;
}

/* Whether fn(c, arg) comes back: tried in a child first, since sbatch's
 * option parser ends the process on a bad option or combination (its words
 * on stderr; --mpi=list and the like end it with 0), and an edited crontab
 * must then come back with the line marked #BAD:, as Slurm's does.  The
 * child says it came back through a pipe. */
static int comes_back(void (*fn)(struct entry_ctx *, const void *), struct entry_ctx *c,
                      const void *arg)
{
	int fds[2], status = 0;
	ssize_t n;
	char b;
	pid_t pid;

	fflush(NULL); /* nothing buffered is written twice */
	if (pipe2(fds, O_CLOEXEC) < 0)
		fatal_msg("pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		fatal_msg("cannot fork");
	if (pid == 0) {
		close(fds[0]);
		fn(c, arg);
		_exit(write(fds[1], "", 1) == 1 ? 0 : 1);
	}
	close(fds[1]);
	while ((n = read(fds[0], &b, 1)) < 0 && errno == EINTR)
		;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fatal_msg("waitpid: %s", strerror(errno));
	return n == 1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void scron_try(struct entry_ctx *c, const void *line)
{
	scron_line(c, line);
}

struct entry_try_args {
	const char *spec, *cmd;
	size_t first, last;
};

static void entry_try(struct entry_ctx *c, const void *arg)
{
	const struct entry_try_args *a = arg;
	struct job_desc d;

	entry_job(c, a->spec, a->cmd, a->first, a->last, &d);
}

/* The jobs of text's entries into *ret (count *ret_n); -1 (and *ret_bad, the
 * line) when a line is neither blank, a comment, a variable nor an entry, or
 * is an #SCRON line with an option an entry cannot have, or an entry whose
 * options do not go together. */
static int parse_crontab(const char *text, const struct passwd *pw, struct job_desc **ret,
                         uint32_t *ret_n, size_t *ret_bad)
{
	char *copy = xstrdup(text), **lines, **vars = NULL;
	struct entry_ctx c = {.pw = pw};
	struct job_desc *jobs = NULL;
	uint32_t njobs = 0;
	size_t n;
	int rc = 0;

	lines = lines_of(copy, &n);
	for (size_t i = 1; i < n && !rc; i++) {
		const char *p = lines[i];
		char *name, *value;

		if (!c.started)
			ctx_reset(&c);
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		if (!strncmp(p, "#SCRON", 6)) {
			if (!c.first)
				c.first = i;
			if (!comes_back(scron_try, &c, lines[i])) {
				*ret_bad = i;
				rc = -1;
				break;
			}
			scron_line(&c, lines[i]);
			continue;
		}
		if (*p == '#')
			continue;
		if (variable(p, &name, &value)) {
			vars = strv_setenv(vars, name, value);
			free(name);
			free(value);
			continue;
		}
		{
			struct rota_error err = {""};
			struct cronspec cs;
			const char *cmd;
			char *spec, *expanded;

			if (cronspec_parse(p, &cs, &cmd, &err) < 0 || !*cmd) {
				*ret_bad = i;
				rc = -1;
				break;
			}
			if (njobs >= 1000 || i > 0xffff) {
				fatal_msg("crontab has more than %u entries or %u lines",
				          1000, 0xffff);
			}
			spec = xstrndup(p, (size_t)(cmd - p));
			while (*spec && (spec[strlen(spec) - 1] == ' ' ||
			                 spec[strlen(spec) - 1] == '\t'))
				spec[strlen(spec) - 1] = '\0';
			expanded = expand(cmd, vars);
			{
				struct entry_try_args a = {spec, expanded,
				                           c.first ? c.first : i, i};
				if (!comes_back(entry_try, &c, &a)) {
					free(spec);
					free(expanded);
					*ret_bad = i;
					rc = -1;
					break;
				}
			}
			jobs = xrealloc(jobs, (njobs + 1) * sizeof(*jobs));
			entry_job(&c, spec, expanded, c.first ? c.first : i, i,
			          &jobs[njobs++]);
			free(spec);
			free(expanded);
		}
	}
	if (c.started) {
		free(c.script);
		jobopt_release(&c.o);
	}
	strv_free(vars);
	free(lines);
	free(copy);
	*ret = jobs;
	*ret_n = njobs;
	return rc;
}

static void jobs_free(struct job_desc *jobs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		codec_release(&job_desc_type, &jobs[i]);
	free(jobs);
}

/* Send the crontab (NULL: remove) and its jobs; 0, or prints why and -1. */
static int update(uint32_t uid, const char *text, struct job_desc *jobs, uint32_t njobs,
                  char **ret_failed)
{
	struct crontab_update req = {.uid = uid, .crontab = (char *)text};
	uint16_t type = 0;
	void *body = NULL;
	const char *msg = NULL;
	int rc = 0;

	req.jobs = jobs;
	req.jobs_count = njobs;
	*ret_failed = NULL;
	cli_rpc(MSG_CRONTAB_UPDATE_REQ, &req, &type, &body);
	if (type == MSG_RC) {
		rc = cli_rc(type, body, &msg);
		if (rc)
			fprintf(stderr, "scrontab: fatal: slurm_%s_crontab failed: %s\n",
			        text ? "update" : "remove",
			        msg && *msg ? msg : slurm_strerror(rc));
		msg_body_free(type, body);
		return rc ? -1 : 0;
	}
	if (type != MSG_CRONTAB_UPDATE_RESP) {
		msg_body_free(type, body);
		fatal_msg("unexpected reply %s", msg_name(type));
	}
	{
		const struct crontab_update_resp *r = body;
		if (r->rc) {
			printf("There was an issue with the job submission on lines %s\n"
			       "The error code return was: %s\n"
			       "The error message was: %s\n",
			       r->failed_lines ? r->failed_lines : "",
			       slurm_strerror(r->rc), r->err_msg ? r->err_msg : "");
			*ret_failed = xstrdup(r->failed_lines ? r->failed_lines : "");
			rc = -1;
		}
	}
	msg_body_free(type, body);
	return rc;
}

/* The user's crontab and disabled lines; 0, 1 when there is none. */
static int fetch(uint32_t uid, char **ret_text, char **ret_disabled)
{
	struct crontab_get req = {.uid = uid};
	uint16_t type = 0;
	void *body = NULL;
	const char *msg = NULL;
	int rc;

	*ret_text = *ret_disabled = NULL;
	cli_rpc(MSG_CRONTAB_GET_REQ, &req, &type, &body);
	if (type == MSG_CRONTAB_GET_RESP) {
		const struct crontab_get_resp *r = body;
		*ret_text = xstrdup(r->crontab ? r->crontab : "");
		*ret_disabled = r->disabled_lines ? xstrdup(r->disabled_lines) : NULL;
		msg_body_free(type, body);
		return 0;
	}
	rc = cli_rc(type, body, &msg);
	if (rc == ESLURM_JOB_SCRIPT_MISSING) {
		msg_body_free(type, body);
		return 1;
	}
	fprintf(stderr, "scrontab: fatal: slurm_request_crontab failed: %s\n",
	        msg && *msg ? msg : slurm_strerror(rc));
	msg_body_free(type, body);
	exit(1);
}

/* $VISUAL/$EDITOR on a copy of *text; the edited text replaces it. */
static void edit(char **text)
{
	const char *dir = getenv("TMPDIR"), *editor = getenv("VISUAL");
	char *path = xasprintf("%s/scrontab-XXXXXX", dir && *dir ? dir : "/tmp");
	mode_t old = umask(0077);
	int fd = mkstemp(path), status;
	size_t len = strlen(*text);
	pid_t pid;

	umask(old);
	if (fd < 0)
		fatal_msg("error creating temp crontab file '%s': %s", path,
		          strerror(errno));
	if (write(fd, *text, len) != (ssize_t)len) {
		unlink(path);
		fatal_msg("error writing to temp crontab file '%s': %s", path,
		          strerror(errno));
	}
	close(fd);
	if (!editor || !*editor)
		editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = "vi";
	pid = fork();
	if (pid < 0) {
		unlink(path);
		fatal_msg("cannot fork");
	}
	if (pid == 0) {
		execlp(editor, editor, path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (status) {
		unlink(path);
		fatal_msg("editor returned non-zero exit code");
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		int e = errno;
		unlink(path);
		fatal_msg("error reopening temp crontab file '%s': %s", path,
		          strerror(e));
	}
	free(*text);
	*text = read_fd(fd);
	close(fd);
	unlink(path);
	free(path);
}

static int yes_no(const char *question)
{
	int c = 0;

	while (c != 'y' && c != 'n') {
		fputs(question, stdout);
		fflush(stdout);
		c = getchar();
		if (c == EOF)
			return 0;
		c = tolower(c);
		while (c != '\n' && getchar() != '\n' && !feof(stdin))
			;
	}
	return c == 'y';
}

int cmd_scrontab(int argc, char **argv)
{
	int c, edit_mode = 0, list = 0, remove_it = 0, first_form = 0;
	const char *infile = NULL;
	struct passwd *pw;
	uid_t uid = getuid();
	char *text = NULL, *disabled = NULL;

	opterr = 0;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "--usage"))) {
		usage();
		return 0;
	}
	if (argc > 1 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		fmt_print_version();
		return 0;
	}
	while ((c = getopt(argc, argv, "elru:v")) != -1) {
		switch (c) {
		case 'e':
			if (!isatty(STDIN_FILENO))
				fatal_msg("Standard input is not a TTY");
			edit_mode = 1;
			break;
		case 'l':
			list = 1;
			break;
		case 'r':
			remove_it = 1;
			break;
		case 'u': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);
			struct passwd *u = getpwnam(optarg);
			if (!u && *optarg && !*end)
				u = getpwuid((uid_t)n);
			if (!u)
				fatal_msg("Could not find user %s", optarg);
			uid = u->pw_uid;
			break;
		}
		case 'v':
			break;
		default:
			usage();
			return 1;
		}
	}
	if (edit_mode || list || remove_it) {
		if (optind < argc) {
			usage();
			return 1;
		}
	} else if (argc - optind > 1) {
		usage();
		return 1;
	} else if (optind < argc) {
		first_form = 1;
		infile = argv[optind];
	} else if (isatty(STDIN_FILENO)) {
		edit_mode = 1;
	} else {
		first_form = 1;
		infile = "-";
	}
	if (!cli_conf()->scron_parameters ||
	    !strcasestr(cli_conf()->scron_parameters, "enable"))
		fatal_msg("scrontab is disabled on this cluster");
	if (!(pw = getpwuid(uid)))
		fatal_msg("getpwuid(%u) failed", (unsigned)uid);
	if (first_form) {
		int fd = STDIN_FILENO;
		if (strcmp(infile, "-") && (fd = open(infile, O_RDONLY | O_CLOEXEC)) < 0)
			fatal_msg("failed to open %s", infile);
		text = read_fd(fd);
		if (fd != STDIN_FILENO)
			close(fd);
	}
	if (remove_it) {
		char *failed;
		return update((uint32_t)uid, NULL, NULL, 0, &failed) < 0 ? 1 : 0;
	}
	if (edit_mode || list) {
		if (fetch((uint32_t)uid, &text, &disabled) == 0) {
			char *marked = mark_lines(text, disabled, "#DISABLED: ");
			free(text);
			text = marked;
		}
		free(disabled);
	}
	if (list) {
		if (!text) {
			printf("no crontab for %s\n", pw->pw_name);
			return 1;
		}
		fputs(text, stdout);
		free(text);
		return 0;
	}
	if (!text)
		text = xstrdup(default_crontab);
	for (;;) {
		struct job_desc *jobs = NULL;
		uint32_t njobs = 0;
		size_t bad = 0;
		char *failed = NULL, *ranges;
		int rc;

		if (edit_mode)
			edit(&text);
		if (parse_crontab(text, pw, &jobs, &njobs, &bad) < 0) {
			jobs_free(jobs, njobs);
			if (first_form) {
				printf("There are errors in your crontab.\n");
				free(text);
				return 1;
			}
			if (!yes_no("There are errors in your crontab.\n"
			            "The failed line(s) is commented out with #BAD:\n"
			            "Do you want to retry the edit? (y/n) "))
				return 0;
			ranges = xasprintf("%zu", bad);
		} else {
			rc = update((uint32_t)uid, text, jobs, njobs, &failed);
			jobs_free(jobs, njobs);
			if (rc == 0) {
				free(text);
				return 0;
			}
			if (!failed || first_form) {
				free(failed);
				free(text);
				return 1;
			}
			if (!yes_no("The failed lines are commented out with #BAD:\n"
			            "Do you want to retry the edit? (y/n) "))
				return 0;
			ranges = failed;
		}
		{
			char *marked = mark_lines(text, ranges, "#BAD: ");
			free(text);
			text = marked;
		}
		free(ranges);
	}
}
