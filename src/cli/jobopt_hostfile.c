/* jobopt_hostfile.c - -m arbitrary: each task's node named in a hostfile
 * (SLURM_HOSTFILE) or in -w's order (see jobopt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/jobopt.h"
#include "common/hostfile.h"
#include "common/hostlist.h"
#include "common/taskdist.h"
#include "proto/messages.h"
#include "common/common.h"

/* Given on the command line or in the script: a count that came from the
 * environment (an allocation's SLURM_NTASKS) gives way to the list's. */
static int set_here(enum jobopt_src src)
{
	return src == JOBOPT_SRC_ARGV || src == JOBOPT_SRC_SCRIPT;
}

struct entry {
	const char *name;
	size_t first; /* where it first appears */
	uint32_t tasks;
};

static int by_name(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int by_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

/* names[0..n) once each, in their first order, as one expression;
 * *ret_most: the most tasks one of them gets.  Sorted, not compared pair
 * by pair: a list may hold HOSTLIST_MAX names. */
static char *unique_nodes(char **names, size_t n, size_t *ret_count, uint32_t *ret_most)
{
	struct entry *e = xcalloc(n + 1, sizeof(*e));
	char **u = xcalloc(n + 1, sizeof(*u));
	size_t k = 0;
	char *s;

	for (size_t i = 0; i < n; i++)
		e[i] = (struct entry){names[i], i, 1};
	qsort(e, n, sizeof(*e), by_name);
	*ret_most = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(e[k - 1].name, e[i].name))
			e[k - 1].tasks++;
		else
			e[k++] = e[i];
		if (e[k - 1].tasks > *ret_most)
			*ret_most = e[k - 1].tasks;
	}
	qsort(e, k, sizeof(*e), by_first);
	for (size_t i = 0; i < k; i++)
		u[i] = (char *)e[i].name;
	*ret_count = k;
	s = hostlist_compress(u, k);
	free(u);
	free(e);
	if (!s)
		fatal("out of memory");
	return s;
}

/* "a,b,a" */
static char *join(char **names, size_t n)
{
	size_t len = 1, at = 0;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	s = xmalloc(len);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		if (i)
			s[at++] = ',';
		memcpy(s + at, names[i], l);
		at += l;
	}
	s[at] = '\0';
	return s;
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Not arbitrary: a node a list (-F's file) repeats is one node, the list
 * in name order then, as Slurm's lists are. */
static void once_each(struct job_desc *d)
{
	char **names = NULL;
	size_t n = 0, k = 1;

	if (!d->req_nodes || hostlist_expand(d->req_nodes, &names, &n, NULL) < 0 ||
	    n < 2) {
		hostlist_free(names);
		return;
	}
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 1; i < n; i++) /* repeats are neighbours now */
		if (strcmp(names[i], names[k - 1])) {
			char *t = names[k];
			names[k++] = names[i];
			names[i] = t;
		}
	if (k < n) {
		char *u = hostlist_compress(names, k);
		if (!u)
			fatal("out of memory");
		free(d->req_nodes);
		d->req_nodes = u;
	}
	hostlist_free(names);
}

/* srun -N's most, fewer than -w names: the last ones go, as Slurm's srun
 * says. */
static void at_most_max(struct job_desc *d)
{
	char **names = NULL, *u;
	size_t n = 0;

	if (!d->req_nodes || d->max_nodes == NO_VAL || !d->max_nodes ||
	    hostlist_expand(d->req_nodes, &names, &n, NULL) < 0 || n <= d->max_nodes) {
		hostlist_free(names);
		return;
	}
	fprintf(stderr,
	        "%s: error: Required nodelist includes more nodes than permitted by "
	        "max-node count (%zu > %u). Eliminating nodes from the nodelist.\n",
	        cli_prog, n, d->max_nodes);
	if (!(u = hostlist_compress(names, d->max_nodes)))
		fatal("out of memory");
	free(d->req_nodes);
	d->req_nodes = u;
	hostlist_free(names);
}

char *jobopt_nodefile(const char *path, const char *why)
{
	struct rota_error err = {""};
	char **names = NULL, *s;
	size_t n = 0;

	if (!path || hostfile_read(path, 0, &names, &n, &err) < 0)
		jobopt_die(JOBOPT_EXIT_ERROR, "%s%s%s", why, err.text[0] ? ": " : "",
		           err.text);
	s = join(names, n);
	hostlist_free(names);
	return s;
}

void jobopt_hostfile_finish(struct jobopt *o)
{
	struct job_desc *d = &o->desc;
	struct rota_error err = {""};
	const char *path = o->crontab ? NULL : getenv("SLURM_HOSTFILE");
	size_t want = 0, n = 0, nodes = 0;
	uint32_t most = 0;
	char **names = NULL;
	int rc, asked = TASKDIST_TYPE(o->task_dist) == TASKDIST_ARBITRARY;

	if (path && !*path)
		path = NULL;
	if (!asked) {
		/* as Slurm: a hostfile in the environment and no -w is
		 * -m arbitrary */
		if (!path || d->req_nodes) {
			once_each(d);
			if (o->cmd == JOBOPT_SRUN)
				at_most_max(d);
			return;
		}
		o->task_dist = TASKDIST_ARBITRARY;
		free(o->dist_spec);
		o->dist_spec = xstrdup("arbitrary");
	}
	/* how many names: -n's (one from the environment only when -m
	 * arbitrary was not asked, as Slurm), else -N's, else all */
	if (d->num_tasks != NO_VAL && (set_here(o->tasks_src) || !asked))
		want = d->num_tasks;
	else if (d->min_nodes != NO_VAL && (set_here(o->nodes_src) || !asked))
		want = d->max_nodes != NO_VAL ? d->max_nodes : d->min_nodes;
	if (d->req_nodes) { /* -w in its order, repeats and all */
		rc = hostlist_expand(d->req_nodes, &names, &n, &err);
		if (!rc && want && n > want)
			n = want;
		if (!rc && want && n < want)
			rc = -1;
	} else if (path) {
		rc = hostfile_read(path, want, &names, &n, &err);
	} else {
		return; /* no list: block, as Slurm */
	}
	if (rc < 0) {
		hostlist_free(names);
		jobopt_die(JOBOPT_EXIT_ERROR,
		           "Failure getting NodeNames from hostfile%s%s",
		           err.text[0] ? ": " : "", err.text);
	}
	free(o->task_hosts);
	o->task_hosts = join(names, n);
	free(d->req_nodes);
	d->req_nodes = unique_nodes(names, n, &nodes, &most);
	hostlist_free(names);
	/* an allocation made for it: CPUs on every node for the most tasks
	 * one gets (Slurm's allocation follows the list's nodes, not their
	 * counts) */
	if (o->cmd != JOBOPT_SRUN || o->jobid == NO_VAL) {
		uint64_t cpus =
		    (uint64_t)most * (d->cpus_per_task == NO_VAL ? 1 : d->cpus_per_task);
		if (cpus > 0xfffffff0u)
			jobopt_die(JOBOPT_EXIT_FATAL, "Invalid node list: too many tasks "
			                              "on one node");
		if (d->pn_min_cpus == NO_VAL || d->pn_min_cpus < cpus)
			d->pn_min_cpus = (uint32_t)cpus;
	}
	d->num_tasks = (uint32_t)n;
	o->tasks_src = JOBOPT_SRC_ARGV;
	if (!set_here(o->nodes_src) || d->min_nodes == NO_VAL || d->min_nodes > nodes) {
		d->min_nodes = d->max_nodes = (uint32_t)nodes;
		o->nodes_src = JOBOPT_SRC_ARGV;
	}
}
