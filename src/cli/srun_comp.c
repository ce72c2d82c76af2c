/* srun_comp.c - srun's command line as components of one step (see
 * srun_comp.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/call.h"
#include "cli/cli.h"
#include "cli/jobopt_table.h"
#include "cli/srun_comp.h"
#include "common/hostlist.h"
#include "common/multiprog.h"
#include "common/strv.h"
#include "proto/messages.h"
#include "common/common.h"

extern char **environ;

static void line_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void line_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cli_error("%s", buf);
	exit(cli_exit_error());
}

/* --het-group's "0,2-3" into ascending ids (each once); their count. */
static size_t groups_parse(const char *spec, uint32_t *out)
{
	uint8_t seen[HET_MAX] = {0};
	const char *p = spec ? spec : "";
	size_t n = 0;

	for (;;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0 || a >= HET_MAX)
			line_fail("Invalid --het-group value: %s", spec ? spec : "");
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= HET_MAX)
				line_fail("Invalid --het-group value: %s", spec);
			p = end;
		}
		for (long k = a; k <= b; k++)
			seen[k] = 1;
		if (!*p)
			break;
		if (*p != ',')
			line_fail("Invalid --het-group value: %s", spec);
		p++;
	}
	for (uint32_t k = 0; k < HET_MAX; k++)
		if (seen[k])
			out[n++] = k;
	return n;
}

/* Component k's environment in a heterogeneous allocation: its
 * SLURM_*_HET_GROUP_k (ctld/hetjob.h) in place of the allocation's
 * unsuffixed variables, which describe component 0. */
static char **group_env(uint32_t k)
{
	/* component 0's: every name the controller gives per component
	 * (ctld/hetjob.c), and the counts srun reads */
	static const char *const counts[] = {
	    "SLURM_JOB_ID",          "SLURM_JOBID",
	    "SLURM_JOB_NAME",        "SLURM_JOB_PARTITION",
	    "SLURM_JOB_ACCOUNT",     "SLURM_JOB_QOS",
	    "SLURM_JOB_RESERVATION", "SLURM_MEM_PER_NODE",
	    "SLURM_MEM_PER_CPU",     "SLURM_JOB_NODELIST",
	    "SLURM_NODELIST",        "SLURM_JOB_NUM_NODES",
	    "SLURM_NNODES",          "SLURM_JOB_CPUS_PER_NODE",
	    "SLURM_TASKS_PER_NODE",  "SLURM_NTASKS",
	    "SLURM_NPROCS",          "SLURM_CPUS_PER_TASK",
	    "SLURM_NTASKS_PER_NODE"};
	char **env = strv_dup(environ), *suffix = xasprintf("_HET_GROUP_%u", k);
	size_t sl = strlen(suffix);

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		strv_unsetenv(env, counts[i]);
	for (size_t i = 0; environ[i]; i++) {
		const char *e = environ[i], *eq = strchr(e, '=');
		char *name;
		if (!eq || (size_t)(eq - e) <= sl || strncmp(eq - sl, suffix, sl))
			continue;
		name = xstrndup(e, (size_t)(eq - e) - sl);
		env = strv_setenv(env, name, eq + 1);
		if (!strcmp(name, "SLURM_JOB_ID"))
			env = strv_setenv(env, "SLURM_JOBID", eq + 1);
		if (!strcmp(name, "SLURM_JOB_NUM_NODES"))
			env = strv_setenv(env, "SLURM_NNODES", eq + 1);
		if (!strcmp(name, "SLURM_JOB_NODELIST"))
			env = strv_setenv(env, "SLURM_NODELIST", eq + 1);
		if (!strcmp(name, "SLURM_NTASKS"))
			env = strv_setenv(env, "SLURM_NPROCS", eq + 1);
		free(name);
	}
	free(suffix);
	return env;
}

uint32_t srun_comp_job_id(const struct srun_comp *c)
{
	char *key = xasprintf("SLURM_JOB_ID_HET_GROUP_%u", c->group);
	const char *v = strv_getenv(c->env, key);

	free(key);
	return v && *v ? (uint32_t)strtoul(v, NULL, 10) : NO_VAL;
}

/* --multi-prog FILE: the file is read here and its text travels as argv[0]. */
static char **multi_prog_load(const char *path)
{
	char **argv = xcalloc(2, sizeof(char *));
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		fprintf(stderr, "srun: error: Unable to open configuration file %s\n",
		        path);
		exit(cli_exit_error());
	}
	argv[0] = xmalloc(MULTIPROG_MAX_BYTES + 1);
	n = fread(argv[0], 1, MULTIPROG_MAX_BYTES + 1, f);
	fclose(f);
	if (n > MULTIPROG_MAX_BYTES) {
		fprintf(stderr, "srun: error: configuration file %s is too large\n",
		        path);
		exit(cli_exit_error());
	}
	argv[0][n] = '\0';
	return argv;
}

/* srun --jobid=N+K: --jobid=N --het-group=K (Slurm's srun takes both). */
static void jobid_het_form(struct jobopt_list *l)
{
	struct jobopt_item *it = NULL;
	int has = 0;
	char *plus;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].id == O_JOBID)
			it = &l->v[i];
	if (!it || !it->arg || !(plus = strchr(it->arg, '+')))
		return;
	*plus = '\0';
	jobopt_list_last(l, O_HET_GROUP, &has);
	if (has)
		return;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (struct jobopt_item){O_HET_GROUP, xstrdup(plus + 1), 0};
}

/* srun --jobid=N naming components from outside N's allocation: N's
 * SLURM_HET_SIZE and SLURM_*_HET_GROUP_k, as the allocation would give them
 * (Slurm's srun looks the job up).  Nothing when N is no heterogeneous job. */
static void jobid_het_env(const struct jobopt_list *l)
{
	const char *id = jobopt_list_last(l, O_JOBID, &(int){0});
	struct job_info_req req = {0};
	struct job_info_resp *resp;
	void *body = NULL;
	char *msg = NULL, *end;
	uint32_t leader, n = 0;

	if (!id || !*id || getenv("SLURM_HET_SIZE"))
		return;
	leader = (uint32_t)strtoul(id, &end, 10);
	if (*end || !leader)
		return;
	req.job_ids = (struct rota_u32v){&leader, 1};
	if (call_ctld(MSG_JOB_INFO_REQ, &req, MSG_JOB_INFO_RESP, &body, &msg)) {
		free(msg);
		return;
	}
	resp = body;
	for (uint32_t i = 0; i < resp->jobs_count; i++) {
		const struct job_info *j = &resp->jobs[i];
		char key[64], val[32];
		uint32_t k = HET_OFFSET(j->het_offset);
		if (j->het_job_id != leader || k >= HET_MAX)
			continue;
		n++;
		snprintf(key, sizeof(key), "SLURM_JOB_ID_HET_GROUP_%u", k);
		snprintf(val, sizeof(val), "%u", j->job_id);
		setenv(key, val, 1);
		snprintf(key, sizeof(key), "SLURM_JOB_NODELIST_HET_GROUP_%u", k);
		setenv(key, j->nodes ? j->nodes : "", 1);
		snprintf(key, sizeof(key), "SLURM_JOB_NUM_NODES_HET_GROUP_%u", k);
		snprintf(val, sizeof(val), "%u", j->num_nodes);
		setenv(key, val, 1);
	}
	if (n) {
		char val[16];
		snprintf(val, sizeof(val), "%u", n);
		setenv("SLURM_HET_SIZE", val, 1);
	}
	msg_body_free(MSG_JOB_INFO_RESP, body);
}

/* One segment of the line: its options and where its command is. */
struct seg {
	struct jobopt_list opts;
	int cmd, end; /* argv[cmd..end) */
};

static char **slice(char **argv, int from, int to)
{
	char **v = xcalloc((size_t)(to - from) + 1, sizeof(char *));

	for (int i = from; i < to; i++)
		v[i - from] = xstrdup(argv[i]);
	return v;
}

/* Which components of the job the segments run in; sets line->het. */
static size_t line_groups(const struct seg *segs, size_t nseg, int in_alloc,
                          struct srun_line *line, uint32_t *groups, size_t *seg_of)
{
	const char *size = getenv("SLURM_HET_SIZE");
	size_t n = 0;
	int has_jobid = 0, has;
	const char *spec = jobopt_list_last(&segs[0].opts, O_HET_GROUP, &has);

	jobopt_list_last(&segs[0].opts, O_JOBID, &has_jobid);
	if (nseg == 1) {
		/* in a heterogeneous allocation (not one of its steps),
		 * component 0 unless told: salloc's gives no unsuffixed
		 * SLURM_JOB_NODELIST */
		if (!has && !has_jobid && size && !getenv("SLURM_STEP_ID")) {
			has = 1;
			spec = "0";
		}
		if (!has)
			return 1;
		n = groups_parse(spec, groups);
		for (size_t k = 0; k < n; k++)
			seg_of[k] = 0;
	} else {
		/* each part in its --het-group's components (several, the
		 * same command), else in the one of its place; the
		 * components in order (the tasks are numbered so) */
		size_t part[HET_MAX];
		for (size_t k = 0; k < nseg; k++) {
			uint32_t g[HET_MAX];
			const char *s =
			    jobopt_list_last(&segs[k].opts, O_HET_GROUP, &has);
			size_t m = has ? groups_parse(s, g) : 1;
			if (!has)
				g[0] = (uint32_t)k;
			for (size_t j = 0; j < m; j++) {
				if (n == HET_MAX)
					line_fail("too many components (%d at most)",
					          HET_MAX);
				groups[n] = g[j];
				part[n++] = k;
			}
		}
		for (size_t k = 0; k < n; k++) /* sorted by component */
			for (size_t j = k + 1; j < n; j++)
				if (groups[j] < groups[k]) {
					uint32_t t = groups[k];
					size_t p = part[k];
					groups[k] = groups[j];
					groups[j] = t;
					part[k] = part[j];
					part[j] = p;
				}
		for (size_t k = 0; k < n; k++) {
			if (k && groups[k] == groups[k - 1]) {
				fprintf(stderr, "srun: fatal: Duplicate het groups in "
				                "single srun not supported\n");
				exit(cli_exit_error());
			}
			seg_of[k] = part[k];
		}
	}
	if (!in_alloc && nseg == 1 && n == 1)
		return 1; /* Slurm's srun: a job of its own, the group unused */
	line->het = 1;
	if (!in_alloc) {
		if (nseg == 1)
			line_fail("--het-group: not inside a heterogeneous job");
		for (size_t k = 0; k < nseg; k++) {
			jobopt_list_last(&segs[k].opts, O_HET_GROUP, &has);
			if (has)
				line_fail("--het-group: not inside a heterogeneous job");
		}
		return n; /* a heterogeneous allocation of its own, 0..n-1 */
	}
	if (!size) { /* Slurm's heterogeneous steps: parts of one job's step */
		for (size_t k = 0; k < nseg; k++) {
			jobopt_list_last(&segs[k].opts, O_HET_GROUP, &has);
			if (has || nseg == 1)
				line_fail("--het-group: not inside a heterogeneous job");
		}
		line->one_job = 1;
		return n;
	}
	for (size_t k = 0; k < n; k++) {
		long max = strtol(size, NULL, 10) - 1;
		if ((long)groups[k] > max) {
			cli_error("Attempt to run a job step with het group value of "
			          "%u, but the job allocation has maximum value of %ld",
			          groups[k], max);
			exit(cli_exit_error());
		}
	}
	return n;
}

/* Component k's options over its environment; its command. */
static void comp_fill(struct srun_comp *c, const struct srun_comp *prev,
                      const struct seg *s, char **argv, const struct seg *segs,
                      size_t nseg, size_t si)
{
	jobopt_init(&c->o, JOBOPT_SRUN);
	jobopt_apply_env(&c->o, c->env);
	if (prev) /* a part of its own: what the one before was given */
		jobopt_carry(&c->o, &prev->o, JOBOPT_SRC_ARGV);
	jobopt_apply_list(&c->o, &s->opts, JOBOPT_SRC_ARGV);
	/* no command: the next component's (Slurm) */
	for (size_t j = si; j < nseg && !c->cmd; j++)
		if (segs[j].cmd < segs[j].end)
			c->cmd = slice(argv, segs[j].cmd, segs[j].end);
	if (!c->cmd && !c->o.test_only) {
		fprintf(stderr, "srun: fatal: No command given to execute.\n");
		exit(cli_exit_error());
	}
	jobopt_finish(&c->o);
	/* the terminal is task 0's */
	if ((c->o.step_flags & STEP_F_PTY) && c->o.in_task == JOBOPT_IO_ALL)
		c->o.in_task = 0;
	if (!c->cmd) /* --test-only: the job alone is asked about */
		return;
	/* named after the program, or the --multi-prog file (as Slurm), never
	 * after the file's text */
	if (!c->o.desc.name)
		c->o.desc.name = xstrdup(jobopt_basename(c->cmd[0]));
	if (c->o.step_flags & STEP_F_MULTI_PROG) {
		char **text = multi_prog_load(c->cmd[0]);
		struct rota_error err = {""};
		/* a task without a program: refused before anything starts */
		if (c->o.desc.num_tasks != NO_VAL &&
		    multiprog_check(text[0], c->o.desc.num_tasks, &err) < 0) {
			cli_error("%s", err.text);
			cli_error("Configuration file %s invalid", c->cmd[0]);
			exit(cli_exit_error());
		}
		strv_free(c->cmd);
		c->cmd = text;
	}
}

/* Parts of one job's step run on nodes of their own: Slurm's srun checks
 * that each part's nodes can be had beside the parts before (in its words;
 * the controller lays them out). */
static void one_job_check(const struct srun_line *line, const char *size)
{
	long all = size ? strtol(size, NULL, 10) : 0;
	long used = 0;

	for (size_t k = 0; k < line->n; k++) {
		const struct jobopt *o = &line->comp[k].o;
		const struct job_desc *d = &o->desc;
		long need = d->min_nodes == NO_VAL ? 1 : (long)d->min_nodes;
		char **mine = NULL;
		size_t nmine = 0;

		if (all && all - used < need) {
			cli_error("Allocation failure of %ld nodes: job size of %ld, "
			          "already allocated %ld nodes to previous components.",
			          need, all, used);
			exit(cli_exit_error());
		}
		if (d->req_nodes &&
		    hostlist_expand(d->req_nodes, &mine, &nmine, NULL) == 0)
			for (size_t j = 0; j < k; j++) {
				const char *before = line->comp[j].o.desc.req_nodes;
				char **other = NULL;
				size_t nother = 0;
				int overlap = 0;
				if (!before ||
				    hostlist_expand(before, &other, &nother, NULL) < 0)
					continue;
				for (size_t a = 0; a < nmine && !overlap; a++)
					for (size_t b = 0; b < nother && !overlap; b++)
						overlap = !strcmp(mine[a], other[b]);
				hostlist_free(other);
				if (overlap) {
					cli_error("Requested nodelist %s overlaps with "
					          "excluded %s.",
					          d->req_nodes, before);
					cli_error("Job not submitted.");
					exit(cli_exit_error());
				}
			}
		hostlist_free(mine);
		used += nmine > (size_t)need ? (long)nmine : need;
	}
}

void srun_line_parse(int argc, char **argv, struct srun_line *line)
{
	struct seg segs[HET_MAX] = {0};
	uint32_t groups[HET_MAX] = {0};
	size_t nseg = 0, seg_of[HET_MAX] = {0}, n;
	char *job_nodes;
	int start = 0, in_alloc;

	memset(line, 0, sizeof(*line));
	/* "srun a : b": each part's options up to its command (a lone ":" may
	 * be an option's value), then its command up to the next lone ":"
	 * (argv[start] is the program or the ":", as getopt's argv[0]) */
	while (start < argc) {
		int sub, end;
		if (nseg == HET_MAX)
			line_fail("too many components (%d at most)", HET_MAX);
		jobopt_collect(JOBOPT_SRUN, argc - start, argv + start, &segs[nseg].opts,
		               &sub);
		end = start + sub;
		segs[nseg].cmd = end;
		while (end < argc && strcmp(argv[end], ":"))
			end++;
		segs[nseg].end = end;
		nseg++;
		start = end;
	}
	if (!nseg) { /* argc < 1: no program name even */
		jobopt_collect(JOBOPT_SRUN, argc, argv, &segs[0].opts, &start);
		segs[0].cmd = segs[0].end = argc;
		nseg = 1;
	}
	{
		int has_jobid = 0, has_group = 0;
		jobid_het_form(&segs[0].opts);
		jobopt_list_last(&segs[0].opts, O_JOBID, &has_jobid);
		jobopt_list_last(&segs[0].opts, O_HET_GROUP, &has_group);
		/* looked up only when components are named: a plain
		 * srun --jobid costs no more */
		if (has_jobid && (has_group || nseg > 1))
			jobid_het_env(&segs[0].opts);
		in_alloc = has_jobid || getenv("SLURM_JOB_ID") || getenv("SLURM_JOBID");
	}
	{
		const char *id = getenv("SLURM_JOB_ID");
		line->leader = id && *id ? (uint32_t)strtoul(id, NULL, 10) : NO_VAL;
	}
	n = line_groups(segs, nseg, in_alloc, line, groups, seg_of);
	job_nodes = xstrdup(getenv("SLURM_JOB_NUM_NODES"));
	line->n = n;
	line->comp = xcalloc(n, sizeof(*line->comp));
	for (size_t k = 0; k < n; k++) {
		struct srun_comp *c = &line->comp[k];
		c->group = line->het ? groups[k] : 0;
		c->env = line->het && in_alloc && !line->one_job ? group_env(c->group)
		                                                 : strv_dup(environ);
		/* parts of one job: each its own count of nodes, one by default
		 * (Slurm's srun drops the allocation's) */
		if (line->one_job) {
			strv_unsetenv(c->env, "SLURM_JOB_NUM_NODES");
			strv_unsetenv(c->env, "SLURM_NNODES");
		}
	}
	/* options first: some answer without a command (--cpu-bind=help) */
	environ = line->comp[0].env; /* kept to the end: the tasks get it */
	/* in the order of the line's parts: each over the part before */
	for (size_t si = 0; si < nseg; si++)
		for (size_t k = 0; k < n; k++) {
			const struct srun_comp *prev = NULL;
			if (seg_of[k] != si)
				continue;
			for (size_t j = 0; si && j < n && !prev; j++)
				if (seg_of[j] == si - 1)
					prev = &line->comp[j];
			comp_fill(&line->comp[k], prev, &segs[si], argv, segs, nseg, si);
		}
	for (size_t k = 0; k < nseg; k++)
		jobopt_list_release(&segs[k].opts);
	for (size_t k = 0; n > 1 && k < n; k++)
		if (line->comp[k].o.step_flags & STEP_F_MULTI_PROG)
			line_fail("--multi-prog cannot span several components of a "
			          "heterogeneous job");
	if (line->one_job)
		one_job_check(line, job_nodes);
	free(job_nodes);
}

void srun_line_granted(struct srun_line *line, uint32_t leader, char *const *het_env)
{
	for (size_t k = 0; k < line->n; k++) {
		struct srun_comp *c = &line->comp[k];
		c->env = strv_setenv_from(c->env, (char **)het_env, "SLURM_");
		c->env = strv_setenvf(c->env, "SLURM_JOB_ID", "%u", leader);
	}
	line->leader = leader;
	environ = line->comp[0].env;
}

void srun_line_release(struct srun_line *line)
{
	for (size_t k = 0; k < line->n; k++) {
		jobopt_release(&line->comp[k].o);
		strv_free(line->comp[k].cmd);
		if (k) /* [0]'s is environ */
			strv_free(line->comp[k].env);
	}
	free(line->comp);
}
