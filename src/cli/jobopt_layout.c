/* jobopt_layout.c - sockets, cores and threads of a request (jobopt_layout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/cli.h"
#include "cli/jobopt.h"
#include "cli/jobopt_layout.h"
#include "cli/jobopt_table.h"
#include "common/common.h"

/* The hints, and the counts each implies (0: leaves it unset). */
static const struct {
	const char *word;
	uint32_t threads_per_core, cores_per_socket;
} hints[] = {
    {"compute_bound", 1, 0}, /* every core of a socket, one thread each */
    {"memory_bound", 1, 1},  /* one thread a core (Slurm binds to cores) */
    {"multithread", 0, 0},   /* every thread of a core: as without --hint */
    {"nomultithread", 1, 0}, /* one thread of each core */
};

static void print_hints(void)
{
	printf("Application hint options:\n"
	       "    --hint=             Bind tasks according to application hints\n"
	       "        compute_bound   use every core of each socket, one thread "
	       "each\n"
	       "        memory_bound    use one thread of each core\n"
	       "        [no]multithread [do not] use the extra threads of each "
	       "core\n"
	       "        help            show this help message\n");
}

/* The hint named w, or -1. */
static int hint_find(const char *w)
{
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (!strcasecmp(w, hints[i].word))
			return (int)i;
	return -1;
}

void jobopt_layout_hint_help(const char *arg)
{
	if (arg && !strcasecmp(arg, "help")) {
		print_hints();
		exit(0);
	}
}

/* Check a --hint value (words separated by commas). */
static void check_hint(const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		jobopt_layout_hint_help(w);
		if (hint_find(w) < 0)
			jobopt_die(JOBOPT_EXIT_ERROR,
			           "unrecognized --hint argument \"%s\", see --hint=help",
			           w);
	}
	free(copy);
}

/* One field of -B: a count, min-max (the least counts) or '*' (any: 0).
 * Returns the end of the field, or NULL when it is not one. */
static const char *extra_field(const char *s, uint32_t *ret)
{
	char *end;
	unsigned long v, hi;

	*ret = 0;
	if (*s == '*')
		return s + 1;
	if (*s < '0' || *s > '9')
		return NULL;
	v = strtoul(s, &end, 10);
	if (!v || v > 0xffff)
		return NULL;
	if (*end == '-') {
		const char *h = end + 1;
		if (*h < '0' || *h > '9')
			return NULL;
		hi = strtoul(h, &end, 10);
		if (hi < v || hi > 0xffff)
			return NULL;
	}
	*ret = (uint32_t)v;
	return end;
}

/* -B S[:C[:T]] */
static void set_extra_node_info(struct jobopt *o, const char *arg)
{
	struct job_desc_ext *x;
	uint32_t v[3] = {0, 0, 0};
	const char *s = arg ? arg : "";
	size_t n = 0;

	for (;;) {
		s = extra_field(s, &v[n++]);
		if (!s || !*s)
			break;
		if (*s != ':' || n == 3) {
			s = NULL;
			break;
		}
		s++;
	}
	if (!s)
		jobopt_die(JOBOPT_EXIT_ERROR, "Invalid --extra-node-info argument: %s",
		           arg ? arg : "");
	x = job_desc_x_mut(&o->desc);
	x->sockets_per_node = v[0];
	x->cores_per_socket = v[1];
	x->threads_per_core = v[2];
}

static void layout_given(struct jobopt *o)
{
	o->layout_srcs |= 1u << o->cur_src;
}

int jobopt_layout_apply(struct jobopt *o, int id, const char *arg)
{
	switch (id) {
	case O_SOCKETS_PER_NODE:
		job_desc_x_mut(&o->desc)->sockets_per_node =
		    jobopt_count(arg, "sockets-per-node");
		return 1;
	case O_CORES_PER_SOCKET:
		job_desc_x_mut(&o->desc)->cores_per_socket =
		    jobopt_count(arg, "cores-per-socket");
		return 1;
	case O_THREADS_PER_CORE:
		job_desc_x_mut(&o->desc)->threads_per_core =
		    jobopt_count(arg, "threads-per-core");
		layout_given(o);
		return 1;
	case O_NTASKS_PER_CORE:
		job_desc_x_mut(&o->desc)->ntasks_per_core =
		    jobopt_count(arg, "ntasks-per-core");
		layout_given(o);
		return 1;
	case O_NTASKS_PER_SOCKET:
		job_desc_x_mut(&o->desc)->ntasks_per_socket =
		    jobopt_count(arg, "ntasks-per-socket");
		return 1;
	case 'B':
		set_extra_node_info(o, arg);
		layout_given(o);
		return 1;
	case O_HINT:
		check_hint(arg ? arg : "");
		free(o->hint);
		o->hint = xstrdup(arg ? arg : "");
		o->hint_src = o->cur_src;
		return 1;
	}
	return 0;
}

/* Is the hint to be ignored, as Slurm does: beside the options it may not
 * go with, given as directly (the command line or script, or both the
 * environment) or more directly (the command line over the environment)? */
static int hint_ignored(const struct jobopt *o)
{
	unsigned env = 1u << JOBOPT_SRC_ENV;

	return (o->layout_srcs & ~env) ||
	       ((o->layout_srcs & env) && o->hint_src == JOBOPT_SRC_ENV);
}

/* Set what each word of the hint implies; the counts the environment gave
 * give way. */
static void hint_apply(struct jobopt *o)
{
	struct job_desc_ext *x = job_desc_x_mut(&o->desc);
	char *copy = xstrdup(o->hint), *save = NULL;
	int i;

	x->ntasks_per_core = 0;
	x->threads_per_core = 0;
	/* a binding from the environment (SLURM_CPU_BIND) gives way too: only
	 * the environment gave options the hint may not go with */
	if (o->cpu_bind && (o->step_flags & (STEP_F_CPU_BIND | STEP_F_CPU_BIND_NONE))) {
		free(o->cpu_bind);
		o->cpu_bind = NULL;
		o->step_flags &= ~(uint32_t)(STEP_F_CPU_BIND | STEP_F_CPU_BIND_NONE);
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if ((i = hint_find(w)) < 0)
			continue;
		x->threads_per_core = hints[i].threads_per_core;
		if (hints[i].cores_per_socket && !x->cores_per_socket)
			x->cores_per_socket = hints[i].cores_per_socket;
	}
	free(copy);
}

void jobopt_layout_finish(struct jobopt *o)
{
	if (!o->hint)
		return;
	if (!hint_ignored(o))
		hint_apply(o);
	/* SLURM_HINT given way to the command line's options goes quietly */
	else if (o->verbose && !(o->hint_src == JOBOPT_SRC_ENV &&
	                         (o->layout_srcs & ~(1u << JOBOPT_SRC_ENV))))
		fprintf(
		    stderr,
		    "%s: Following options are mutually exclusive with --hint: "
		    "--ntasks-per-core, --threads-per-core, -B and --cpu-bind (other "
		    "then --cpu-bind=verbose). Ignoring --hint.\n", /* sic, as Slurm */
		    cli_prog);
	free(o->hint);
	o->hint = NULL;
}
