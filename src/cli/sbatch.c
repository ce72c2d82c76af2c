/* sbatch.c - submit a batch script.
 *
 * Options come from three places, later ones overriding earlier ones as in
 * Slurm: the script's #SBATCH lines, SBATCH_* environment variables, and the
 * command line.  On success the only output is "Submitted batch job N" (or "N"
 * with --parsable) on stdout: workflow tools read stdout and stderr together and
 * take the last word as the job id.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/jobctl.h"
#include "cli/jobopt.h"
#include "cli/jobopt_table.h"
#include "common/jobscript.h"
#include "common/bsub.h"
#include "common/pbs.h"
#include "common/strv.h"
#include "common/states.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define SUBMIT_FAILED "Batch job submission failed: "

extern char **environ;

static void fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void fail(int status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cli_error("%s", buf);
	exit(status);
}

/* The script from path (NULL: stdin), at most JOBSCRIPT_MAX bytes. */
static char *read_script(const char *path)
{
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap + 1);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : 0;

	if (fd < 0)
		fail(1, "Unable to open file %s", path);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > JOBSCRIPT_MAX)
				fail(1,
				     SUBMIT_FAILED
				     "the batch script is larger than %u bytes",
				     JOBSCRIPT_MAX);
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail(1, "Unable to read %s: %s",
			     path ? path : "the batch script from stdin",
			     strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (path)
		close(fd);
	if (len > JOBSCRIPT_MAX)
		fail(1, SUBMIT_FAILED "the batch script is larger than %u bytes",
		     JOBSCRIPT_MAX);
	if (memchr(buf, '\0', len))
		fail(1, "The batch script contains a NUL character");
	buf[len] = '\0';
	return buf;
}

/* --bbf's file, whole; exits with Slurm's words if it cannot be read. */
static char *read_bbf(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");

	if (!f || getdelim(&text, &len, '\0', f) < 0 || !feof(f) ||
	    strlen(text) > JOBSCRIPT_MAX)
		fail(1, "Invalid --bbf specification");
	fclose(f);
	return text;
}

static void check_script(const char *script)
{
	if (!*script)
		fail(1, "Batch script is empty!");
	if (jobscript_has_crlf(script)) {
		cli_error("Batch script contains DOS line breaks (\\r\\n)");
		fail(1, "instead of expected UNIX line breaks (\\n).");
	}
	if (!jobscript_has_interpreter(script)) {
		cli_error("This does not look like a batch script.  The first");
		cli_error(
		    "line must start with #! followed by the path to an interpreter.");
		fail(1, "For instance: #!/bin/sh");
	}
}

/* Is the line (len bytes) "#SBATCH hetjob" (or packjob, the old word):
 * the directive's first word, alone (Slurm)? */
static int het_separator(const char *line, size_t len)
{
	const char *p = line + 7, *end = line + len, *w;

	if (len < 8 || strncmp(line, "#SBATCH", 7) || (*p != ' ' && *p != '\t'))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	w = p;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	if (!((p - w == 6 && !strncasecmp(w, "hetjob", 6)) ||
	      (p - w == 7 && !strncasecmp(w, "packjob", 7))))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p == end || *p == '#';
}

/* The script's #SBATCH words, cut into components at each "#SBATCH hetjob"
 * line of its directives (up to its first line that is neither blank nor a
 * comment): *ret[k] is component k's (caller frees each with strv_free, and
 * the array); returns how many. */
static size_t directive_groups(const char *script, const char *name, char ****ret)
{
	char ***groups = NULL, **texts = xcalloc(2, sizeof(*texts));
	size_t ng = 1, first = 1;
	const char *p = script, *from = script;

	/* each group's text is a slice of the script: [from, p) so far */
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		const char *q = p;

		while (q < p + len &&
		       (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
			q++;
		if (!first && q < p + len && *q != '#')
			break; /* the script's commands: no more directives */
		first = 0;
		if (het_separator(p, len)) {
			if (ng >= HET_MAX)
				fail(JOBOPT_EXIT_FATAL,
				     "too many components (%d at most)", HET_MAX);
			texts[ng - 1] = xstrndup(from, (size_t)(p - from));
			texts = xrealloc(texts, (ng + 2) * sizeof(*texts));
			from = p + len;
			ng++;
		}
		p += len;
	}
	texts[ng - 1] = xstrdup(from); /* the last: up to the end */
	groups = xcalloc(ng + 1, sizeof(*groups));
	for (size_t k = 0; k < ng; k++) {
		struct rota_error err = {""};
		if (jobscript_directives(texts[k], "#SBATCH", &groups[k], &err) < 0) {
			fprintf(stderr, "sbatch: fatal: %s: %s\n", name, err.text);
			exit(JOBOPT_EXIT_FATAL);
		}
		free(texts[k]);
	}
	free(texts);
	*ret = groups;
	return ng;
}

/* Component k's #SBATCH options (words), applied first. */
static void apply_directives(struct jobopt *o, char **words)
{
	struct jobopt_list list;
	char **av;
	size_t n = strv_len(words);
	int idx;

	av = xcalloc(n + 2, sizeof(*av));
	av[0] = (char *)"sbatch";
	memcpy(av + 1, words, n * sizeof(*av));
	jobopt_collect(JOBOPT_SBATCH, (int)n + 1, av, &list, &idx);
	if (idx < (int)n + 1)
		fail(JOBOPT_EXIT_FATAL, "Invalid directive found in batch script: %s",
		     av[idx]);
	jobopt_apply_list(o, &list, JOBOPT_SRC_SCRIPT);
	jobopt_list_release(&list);
	free(av);
}

/* --ignore-pbs on the command line, in #SBATCH or SBATCH_IGNORE_PBS. */
static int ignore_pbs(const struct jobopt_list *cmdline, char *const *words)
{
	int found = 0;

	jobopt_list_last(cmdline, O_IGNORE_PBS, &found);
	if (found || jobopt_env_flag(getenv("SBATCH_IGNORE_PBS")))
		return 1;
	for (size_t i = 0; words && words[i]; i++)
		if (!strcmp(words[i], "--ignore-pbs"))
			return 1;
	return 0;
}

/* A #PBS option that adds to what #SBATCH gave (-v's variables, proc's
 * features, the accelerators): "--opt=before,value". */
static void join_prior(char **word, const char *opt, const char *before)
{
	size_t n = strlen(opt);
	char *w;

	if (!before || *before == '\0' || strncmp(*word, opt, n) || (*word)[n] != '=')
		return;
	w = xasprintf("%s=%s,%s", opt, before, *word + n + 1);
	free(*word);
	*word = w;
}

/* The script's #BSUB options (common/bsub.h), as sbatch options. */
static void apply_bsub(struct jobopt *o, const char *script, const char *name)
{
	struct rota_error err = {""};
	char **bsub = NULL, **words = NULL, *lines = bsub_lines(script);

	if (jobscript_directives(lines, "#BSUB", &bsub, &err) < 0 ||
	    bsub_translate(bsub, &words, &err) < 0) {
		fprintf(stderr, "sbatch: error: %s: %s\n", name, err.text);
		exit(JOBOPT_EXIT_FATAL);
	}
	free(lines);
	if (words && words[0])
		apply_directives(o, words);
	strv_free(bsub);
	strv_free(words);
}

/* The script's #PBS options (common/pbs.h), as sbatch options. */
static void apply_pbs(struct jobopt *o, const char *script, const char *name)
{
	struct rota_error err = {""};
	char **pbs = NULL, **words = NULL, *lines = pbs_lines(script);

	if (jobscript_directives(lines, "#PBS", &pbs, &err) < 0 ||
	    pbs_translate(pbs, &words, &err) < 0) {
		fprintf(stderr, "sbatch: fatal: %s: %s\n", name, err.text);
		exit(JOBOPT_EXIT_FATAL);
	}
	free(lines);
	for (size_t i = 0; words && words[i]; i++) {
		join_prior(&words[i], "--export", o->export_spec);
		join_prior(&words[i], "--constraint", o->desc.features);
		join_prior(&words[i], "--gres", job_desc_X(&o->desc)->gres);
	}
	if (words && words[0])
		apply_directives(o, words);
	strv_free(pbs);
	strv_free(words);
}

static char *absolute_path(const char *path)
{
	char *abs = realpath(path, NULL), *cwd;

	if (abs || path[0] == '/')
		return abs ? abs : xstrdup(path);
	cwd = getcwd(NULL, 0);
	abs = xasprintf("%s/%s", cwd ? cwd : ".", path);
	free(cwd);
	return abs;
}

/* The job's environment: --export applied to ours, plus what sbatch adds. */
static char **job_env(const struct jobopt *o)
{
	char **env = jobopt_export_env(o, environ);
	char *cwd = getcwd(NULL, 0);

	if (cwd)
		env = strv_setenv(env, "SLURM_SUBMIT_DIR", cwd);
	env = strv_setenv(env, "SLURM_SUBMIT_HOST", o->desc.submit_host);
	if (o->desc.flags & JOB_F_OVERCOMMIT) /* the script's sruns overcommit too */
		env = strv_setenv(env, "SLURM_OVERCOMMIT", "1");
	if (o->export_spec)
		env = strv_setenv(env, "SLURM_EXPORT_ENV", o->export_spec);
	env = jobopt_dist_env(o, env);
	/* the node loads the login environment under the submitted one; with
	 * --export=NONE, 22.05 ignores --get-user-env */
	if (o->get_user_env && !(o->export_spec && !strcasecmp(o->export_spec, "NONE")))
		env = strv_setenv(env, "SLURM_GET_USER_ENV", "1");
	free(cwd);
	if (strv_len(env) > JOBSCRIPT_ENV_MAX)
		fail(1, SUBMIT_FAILED "more than %d environment variables",
		     JOBSCRIPT_ENV_MAX);
	return env;
}

/* The job's state, or -1 when the controller no longer knows it. */
static int poll_job(uint32_t job_id, uint32_t *ret_state, uint32_t *ret_exit)
{
	struct job_info_req req = {.job_ids = {.v = &job_id, .n = 1}};
	struct rota_error err = {""};
	uint16_t type = 0;
	void *body = NULL;
	int fd = cli_try_connect(), rc;

	if (fd < 0)
		return 0; /* the controller may be restarting: try again later */
	rc = net_rpc(fd, MSG_JOB_INFO_REQ, &req, &type, &body, 30000, &err);
	close(fd);
	if (rc < 0)
		return 0;
	rc = -1;
	if (type == MSG_JOB_INFO_RESP) {
		const struct job_info_resp *r = body;
		for (uint32_t i = 0; i < r->jobs_count; i++) {
			if (r->jobs[i].job_id != job_id)
				continue;
			*ret_state = r->jobs[i].state;
			*ret_exit = r->jobs[i].exit_code;
			rc = 1;
		}
	} else if (type == MSG_RC && cli_rc(type, body, NULL) != ESLURM_INVALID_JOB_ID) {
		rc = 0;
	}
	msg_body_free(type, body);
	return rc;
}

/* sbatch --wait: until the job ends; its exit code becomes ours. */
static int wait_job(uint32_t job_id)
{
	for (int polls = 0;; polls++) {
		uint32_t state = 0, status = 0;
		int rc;

		sleep(polls < 30 ? 1 : 2);
		rc = poll_job(job_id, &state, &status);
		if (rc < 0) {
			cli_error("Job %u no longer exists", job_id);
			return 1;
		}
		if (rc > 0 && job_state_is_finished(state & JOB_STATE_BASE))
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
}

/* Send a submission (MSG_SUBMIT_REQ, or MSG_SUBMIT_HET_REQ for a
 * heterogeneous job's components); the (leader's) job id. */
static uint32_t submit(uint16_t req_type, const void *req)
{
	uint16_t type = 0;
	void *body = NULL;
	const char *msg = NULL;
	uint32_t job_id;

	jobctl_rpc(SUBMIT_FAILED, req_type, req, &type, &body);
	if (type == MSG_RC) {
		int rc = cli_rc(type, body, &msg);
		fail(1, SUBMIT_FAILED "%s", rc ? msg : "unexpected reply");
	}
	if (type != MSG_SUBMIT_RESP)
		fail(1, SUBMIT_FAILED "unexpected reply %s", msg_name(type));
	job_id = ((struct submit_resp *)body)->job_id;
	msg = ((struct submit_resp *)body)->msg;
	if (msg && *msg)
		fprintf(stderr, "sbatch: %s\n", msg);
	msg_body_free(type, body);
	return job_id;
}

/* --test-only given to any component (one job: all of it). */
static int test_only(const struct jobopt *o, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (o[k].test_only)
			return 1;
	return 0;
}

int cmd_sbatch(int argc, char **argv)
{
	struct jobopt *o;
	struct jobopt_list cmdline[HET_MAX];
	const char *wrap = NULL, *path = NULL;
	char *script, ***dirs = NULL;
	uint32_t job_id;
	size_t ncmd = 1, ndirs = 0, n;
	int idx, has_wrap = 0, rc = 0;

	/* the command line's components: options : options : ... script */
	jobopt_collect(JOBOPT_SBATCH, argc, argv, &cmdline[0], &idx);
	while (idx < argc && !strcmp(argv[idx], ":")) {
		int sub;
		if (ncmd >= HET_MAX)
			fail(JOBOPT_EXIT_FATAL, "too many components (%d at most)",
			     HET_MAX);
		jobopt_collect(JOBOPT_SBATCH, argc - idx, argv + idx, &cmdline[ncmd++],
		               &sub);
		idx += sub;
	}
	for (size_t k = 0; k < ncmd; k++) {
		int w = 0;
		const char *v = jobopt_list_last(&cmdline[k], JOBOPT_ID_WRAP, &w);
		if (w) {
			has_wrap = 1;
			wrap = v;
		}
	}
	if (has_wrap) {
		if (idx < argc)
			fail(1, "Script arguments not permitted with --wrap option");
		script = jobscript_wrap(wrap ? wrap : "");
		if (!script)
			fatal("out of memory");
	} else {
		path = idx < argc ? argv[idx++] : NULL;
		script = read_script(path);
		check_script(script);
		ndirs = directive_groups(script, path ? path : "(stdin)", &dirs);
	}
	if (argc - idx > JOBSCRIPT_ARGV_MAX)
		fail(1, SUBMIT_FAILED "more than %d script arguments",
		     JOBSCRIPT_ARGV_MAX);
	n = ncmd > ndirs ? ncmd : ndirs;
	o = xcalloc(n, sizeof(*o));
	for (size_t k = 0; k < n; k++) {
		jobopt_init(&o[k], JOBOPT_SBATCH);
		if (k) /* what the component before was given, as Slurm */
			jobopt_carry(&o[k], &o[k - 1], JOBOPT_SRC_SCRIPT);
		if (k < ndirs)
			apply_directives(&o[k], dirs[k]);
		/* the script's #BSUB, then #PBS lines after its #SBATCH ones,
		 * as Slurm (each component) */
		if (!has_wrap && !ignore_pbs(&cmdline[0], ndirs ? dirs[0] : NULL)) {
			apply_bsub(&o[k], script, path ? path : "(stdin)");
			apply_pbs(&o[k], script, path ? path : "(stdin)");
		}
		jobopt_apply_env(&o[k], environ);
		if (k < ncmd) {
			jobopt_apply_list(&o[k], &cmdline[k], JOBOPT_SRC_ARGV);
			jobopt_list_release(&cmdline[k]);
		}
		jobopt_finish(&o[k]);
	}
	for (size_t k = 0; k < ndirs; k++)
		strv_free(dirs[k]);
	free(dirs);

	if (o[0].bbf) { /* the file's text atop the script, as Slurm's sbatch */
		char *text = read_bbf(o[0].bbf), *spliced;
		if (!(spliced = jobscript_prepend(script, text)))
			fail(1, SUBMIT_FAILED "the batch script is larger than %u bytes",
			     JOBSCRIPT_MAX);
		free(text);
		free(script);
		script = spliced;
	}
	o[0].desc.script = script;
	if (!o[0].desc.name)
		o[0].desc.name = xstrdup(has_wrap ? "wrap"
		                         : path   ? jobopt_basename(path)
		                                  : "sbatch");
	if (path)
		o[0].desc.command = absolute_path(path);
	for (int i = idx; i < argc; i++)
		o[0].desc.argv = strv_append(o[0].desc.argv, argv[i]);
	o[0].desc.env = job_env(&o[0]);
	for (size_t k = 1; k < n; k++) { /* one job: the leader's name and env */
		if (!o[k].desc.name)
			o[k].desc.name = xstrdup(o[0].desc.name);
		o[k].desc.env = strv_dup(o[0].desc.env);
	}

	if (test_only(o, n)) {
		/* each component asked about as a job of its own: with the
		 * script (shallow copies, the options keep their members) */
		struct job_desc *copy = xcalloc(n, sizeof(*copy));
		const struct job_desc **descs = xcalloc(n, sizeof(*descs));
		for (size_t k = 0; k < n; k++) {
			copy[k] = o[k].desc;
			copy[k].script = o[0].desc.script;
			descs[k] = &copy[k];
		}
		jobctl_will_run(descs, n);
		free(descs);
		free(copy);
		goto out;
	}
	if (n == 1) {
		job_id = submit(MSG_SUBMIT_REQ, &o[0].desc);
	} else {
		struct submit_het het = {.jobs = xcalloc(n, sizeof(*het.jobs)),
		                         .jobs_count = (uint32_t)n};
		for (size_t k = 0; k < n; k++)
			het.jobs[k] = o[k].desc;
		job_id = submit(MSG_SUBMIT_HET_REQ, &het);
		free(het.jobs);
	}
	if (o[0].parsable)
		printf("%u\n", job_id);
	else
		printf("Submitted batch job %u\n", job_id);
	fflush(stdout);
	if (o[0].wait)
		rc = wait_job(job_id);
out:
	for (size_t k = 0; k < n; k++)
		jobopt_release(&o[k]);
	free(o);
	return rc;
}
