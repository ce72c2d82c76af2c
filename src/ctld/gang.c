/* gang.c - time slicing of the jobs that share cores (see gang.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/log.h"
#include "common/states.h"
#include "ctld/ctld.h"
#include "ctld/gang.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/node_mgr.h"
#include "proto/messages.h"
#include "common/common.h"

/* a job this young is not stopped yet: its tasks may not be there to take
 * the signal */
#define GANG_SETTLE_SECS 2

struct cand {
	struct job *job;
	int fixed; /* runs whatever the others do (configuring, just started) */
	int sus;   /* suspended by us now */
	int rank;  /* the order: the running (between slices) or the waiting (at
	            * a slice's end) first, those that run anyway last */
	time_t since;
};

int gang_enabled(const struct conf *conf)
{
	return conf->preempt_mode && strcasestr(conf->preempt_mode, "GANG");
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	return x->job->job_id < y->job->job_id ? -1 : 1;
}

/* Does job use a core already marked in used, or (mark) mark its cores? */
static int cores_busy(struct ctld *ctld, uint8_t **used, const struct job *job, int mark)
{
	const struct job_run *run = job->run;

	for (uint32_t k = 0; k < run->nnodes; k++) {
		const struct node *n = node_mgr_get(ctld->nodes, run->node_idx[k]);
		uint8_t **u = &used[run->node_idx[k]];
		if (!run->held || !run->held[k] || !run->cores || !run->cores[k])
			continue;
		if (!*u)
			*u = xcalloc(n->cpus + 1, 1);
		for (uint32_t i = 0; i < run->cpus[k]; i++) {
			uint32_t c = run->cores[k][i];
			if (c >= n->cpus)
				continue;
			if (!mark && (*u)[c])
				return 1;
			if (mark)
				(*u)[c] = 1;
		}
	}
	return 0;
}

/* The running jobs that share cores, and those we suspended, ranked for a
 * slice's end (rotate) or not; *ret_young: one is too young to stop. */
static size_t candidates(struct ctld *ctld, time_t now, int rotate, struct cand **ret,
                         int *ret_young)
{
	struct cand *v = NULL;
	size_t n = 0, cap = 0;

	*ret_young = 0;
	for (struct job *j = job_first_active(ctld->jobs); j; j = j->lnext) {
		const struct job_run *run = j->run;
		int sus = (j->state & JOB_SUSPEND_FLAG) != 0;
		if (!job_is_running(j) || (j->state & JOB_COMPLETING) ||
		    run->share <= 1 || (sus && !run->sus_gang))
			continue;
		/* a heterogeneous job is not time sliced, nor counted among
		 * those that take turns (Slurm's gang scheduler leaves it out) */
		if (!sus && job_x(j)->het_job_id)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n] = (struct cand){.job = j,
		                     .sus = sus,
		                     .since = run->suspend_time ? run->suspend_time
		                                                : run->start_time};
		if (!sus && ((j->state & JOB_CONFIGURING) ||
		             run->start_time > now - GANG_SETTLE_SECS)) {
			v[n].fixed = 1;
			*ret_young = 1; /* look again once it can be stopped */
		} else if (job_x(j)->het_job_id) {
			v[n].fixed = 1; /* stopped before: goes on (see below) */
		}
		/* they run anyway: what is left is theirs */
		v[n].rank = v[n].fixed ? 2 : rotate ? !sus : sus;
		n++;
	}
	*ret = v;
	return n;
}

static void set(struct ctld *ctld, struct job *job, int suspend, time_t now)
{
	struct ev_suspend ev = {
	    .job_id = job->job_id, .time = now, .suspend = suspend ? 1 : 0, .gang = 1};

	if (ev_suspend_commit(ctld, &ev) < 0)
		return;
	log_info("JobId=%u %s (gang scheduling)", job->job_id,
	         suspend ? "suspended" : "resumed");
	job_signal_nodes(ctld, job, NO_VAL, suspend ? SIGSTOP : SIGCONT, 0);
}

/* No time slicing (any more): what it stopped goes on. */
static void resume_all(struct ctld *ctld, time_t now)
{
	for (struct job *j = job_first_active(ctld->jobs), *nx; j; j = nx) {
		nx = j->lnext;
		if ((j->state & JOB_SUSPEND_FLAG) && j->run->sus_gang &&
		    !(j->state & JOB_COMPLETING))
			set(ctld, j, 0, now);
	}
}

void gang_tick(struct ctld *ctld, time_t now)
{
	struct cand *v;
	uint8_t **used;
	size_t n, nn;
	int young, rotate;

	if (!gang_enabled(ctld->conf)) {
		if (now >= ctld->gang_next) { /* GANG taken out: seldom */
			resume_all(ctld, now);
			ctld->gang_next = now + 30;
		}
		return;
	}
	rotate = now >= ctld->gang_next;
	if (!rotate && ctld->res_gen == ctld->gang_gen && !ctld->gang_again)
		return;
	n = candidates(ctld, now, rotate, &v, &young);
	ctld->gang_gen = ctld->res_gen;
	ctld->gang_again = young; /* look again once it has settled */
	if (rotate)
		ctld->gang_next = now + (ctld->conf->sched_time_slice
		                             ? (time_t)ctld->conf->sched_time_slice
		                             : 30);
	if (n < 2) {
		for (size_t i = 0; i < n; i++)
			if (v[i].sus)
				set(ctld, v[i].job, 0, now);
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), cand_cmp);
	nn = node_mgr_count(ctld->nodes);
	used = xcalloc(nn + 1, sizeof(*used));
	for (size_t i = 0; i < n; i++) {
		/* one too young to stop runs beside the others until it has
		 * settled (gang_again), then waits for its turn */
		int run = v[i].fixed || !cores_busy(ctld, used, v[i].job, 0);
		if (run)
			cores_busy(ctld, used, v[i].job, 1);
		if (run && v[i].sus)
			set(ctld, v[i].job, 0, now);
		else if (!run && !v[i].sus)
			set(ctld, v[i].job, 1, now);
	}
	for (size_t i = 0; i < nn; i++)
		free(used[i]);
	free(used);
	free(v);
}
