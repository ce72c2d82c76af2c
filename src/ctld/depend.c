/* depend.c - job dependencies in the controller; see depend.h.
 *
 * DESIGN: an item names a job, an array task ("12_3") or a whole array ("12",
 * every record whose id or array id is 12).  Each record the item covers is
 * judged alone (wait / ok / never); an item over several records needs all of
 * them, except afternotok, which Slurm satisfies when the array is finished and
 * any task did not complete.  Items combine with ',' (all) or '?' (any).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/depspec.h"
#include "common/log.h"
#include "common/schedparams.h"
#include "common/states.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/job_mgr.h"
#include "common/common.h"

int depend_kill_invalid(const struct ctld *ctld)
{
	struct sched_params sp;

	sched_params_parse(ctld->conf->scheduler_params, &sp);
	return sp.kill_invalid_depend;
}

/* The task record of array `id`; *pending set when the task has not been split
 * off the array's pending remainder yet.  NULL: no such task (any more). */
static const struct job *task_find(struct ctld *ctld, uint32_t id, uint32_t task,
                                   int *pending)
{
	const struct job *meta, *t = job_array_task_find(ctld->jobs, id, task);

	*pending = 0;
	if (t)
		return t;
	meta = job_find(ctld->jobs, id);
	if (meta && meta->array_rem && arrayspec_test(meta->array_rem, task)) {
		*pending = 1;
		return meta;
	}
	return NULL;
}

/* One record against one item. */
static enum depend_result record_test(const struct job *r, const struct depspec_item *it,
                                      time_t now)
{
	int done = job_is_finished(r) && !(r->state & JOB_COMPLETING);
	int ok =
	    done && (r->state & JOB_STATE_BASE) == JOB_COMPLETE && !r->run->exit_code;
	time_t delay = (time_t)it->minutes * 60, at;

	if (it->type == DEPSPEC_AFTER) {
		if (job_is_pending(r))
			return DEPEND_WAIT;
		at = r->run->start_time ? r->run->start_time : r->run->end_time;
		return at + delay > now ? DEPEND_WAIT : DEPEND_OK;
	}
	if (!done)
		return DEPEND_WAIT;
	if ((it->type == DEPSPEC_AFTEROK || it->type == DEPSPEC_AFTERCORR) && !ok)
		return DEPEND_NEVER;
	if (it->type == DEPSPEC_AFTERNOTOK && ok)
		return DEPEND_NEVER;
	return r->run->end_time + delay > now ? DEPEND_WAIT : DEPEND_OK;
}

/* Every record of job/array id against it. */
static enum depend_result whole_test(struct ctld *ctld, const struct depspec_item *it,
                                     time_t now)
{
	int wait = 0, never = 0, any_ok = 0;

	for (const struct job *r = job_first(ctld->jobs); r; r = r->next) {
		enum depend_result res;
		if (r->job_id != it->job_id && r->array_job_id != it->job_id)
			continue;
		res = record_test(r, it, now);
		wait |= res == DEPEND_WAIT;
		never |= res == DEPEND_NEVER;
		any_ok |= res == DEPEND_OK;
	}
	if (wait)
		return DEPEND_WAIT;
	if (it->type == DEPSPEC_AFTERNOTOK)
		return any_ok || !never ? DEPEND_OK : DEPEND_NEVER;
	return never ? DEPEND_NEVER : DEPEND_OK; /* none left: purged, satisfied */
}

/* An earlier job of the same user and name runs, or waits for its turn. */
static enum depend_result singleton_test(struct ctld *ctld, const struct job *job)
{
	for (const struct job *r = job_first(ctld->jobs); r; r = r->next) {
		if (r == job || r->owner->uid != job->owner->uid ||
		    (job->array_job_id && r->array_job_id == job->array_job_id))
			continue;
		if (strcmp(r->desc.name ? r->desc.name : "",
		           job->desc.name ? job->desc.name : ""))
			continue;
		if (job_is_running(r) || (r->state & JOB_COMPLETING))
			return DEPEND_WAIT;
		if (job_is_pending(r) && !r->hold && r->job_id < job->job_id &&
		    r->desc.dependency && strcasestr(r->desc.dependency, "singleton"))
			return DEPEND_WAIT;
	}
	return DEPEND_OK;
}

static enum depend_result item_test(struct ctld *ctld, const struct job *job,
                                    uint32_t task, const struct depspec_item *it,
                                    time_t now)
{
	uint32_t want = it->task_id;
	const struct job *r;
	int pending;

	if (it->type == DEPSPEC_SINGLETON)
		return singleton_test(ctld, job);
	if (it->type == DEPSPEC_AFTERCORR && want == DEPSPEC_ALL_TASKS &&
	    job->array_job_id) {
		const struct job *other = job_find(ctld->jobs, it->job_id);
		/* the same task of the other array; a plain job: as afterok */
		if (!other || other->array_job_id) {
			if (task == NO_VAL)
				task = job->array_task_id;
			if (task == NO_VAL && job->array_rem) {
				int64_t first = arrayspec_first(job->array_rem);
				task = first < 0 ? NO_VAL : (uint32_t)first;
			}
			want = task == NO_VAL ? DEPSPEC_ALL_TASKS : task;
		}
	}
	if (want == DEPSPEC_ALL_TASKS)
		return whole_test(ctld, it, now);
	r = task_find(ctld, it->job_id, want, &pending);
	if (!r)
		return DEPEND_OK;
	return pending ? DEPEND_WAIT : record_test(r, it, now);
}

/* Parse job's spec; NULL when it has none (or it no longer parses). */
static struct depspec *job_spec(const struct job *job)
{
	struct depspec *d = NULL;

	if (!job->desc.dependency || !job->desc.dependency[0])
		return NULL;
	if (depspec_parse(job->desc.dependency, &d, NULL) < 0)
		return NULL;
	return d;
}

static enum depend_result spec_test(struct ctld *ctld, const struct job *job,
                                    uint32_t task, const struct depspec *d,
                                    enum depend_result *each, time_t now)
{
	int wait = 0, never = 0, ok = 0;

	for (size_t i = 0; i < d->n; i++) {
		enum depend_result res = item_test(ctld, job, task, &d->items[i], now);
		if (each)
			each[i] = res;
		wait |= res == DEPEND_WAIT;
		never |= res == DEPEND_NEVER;
		ok |= res == DEPEND_OK;
	}
	if (d->any)
		return ok ? DEPEND_OK : wait ? DEPEND_WAIT : DEPEND_NEVER;
	return never ? DEPEND_NEVER : wait ? DEPEND_WAIT : DEPEND_OK;
}

enum depend_result depend_test(struct ctld *ctld, const struct job *job, uint32_t task,
                               time_t now)
{
	struct depspec *d = job_spec(job);
	enum depend_result res;

	if (!d)
		return DEPEND_OK;
	res = spec_test(ctld, job, task, d, NULL, now);
	depspec_destroy(d);
	return res;
}

char *depend_show(struct ctld *ctld, const struct job *job, time_t now)
{
	struct depspec *d = job_spec(job);
	enum depend_result *each;
	const char **status;
	char *out = NULL;
	size_t n = 0;

	if (!d)
		return NULL;
	each = xcalloc(d->n, sizeof(*each));
	status = xcalloc(d->n, sizeof(*status));
	if (spec_test(ctld, job, NO_VAL, d, each, now) == DEPEND_OK)
		goto out;
	/* satisfied items are dropped from the display, as Slurm does */
	for (size_t i = 0; i < d->n; i++) {
		if (each[i] == DEPEND_OK)
			continue;
		status[n] = each[i] == DEPEND_WAIT ? "unfulfilled" : "failed";
		d->items[n++] = d->items[i];
	}
	d->n = n;
	out = depspec_format(d, status);
	if (!out)
		fatal("out of memory");
out:
	free(each);
	free(status);
	depspec_destroy(d);
	return out;
}

int depend_validate(struct ctld *ctld, const char *spec, uint32_t self,
                    struct rota_error *err)
{
	struct depspec *d = NULL;
	int rc = 0;

	if (!spec || !spec[0])
		return 0;
	if (depspec_parse(spec, &d, err) < 0)
		return -ESLURM_INVALID_DEPENDENCY;
	for (size_t i = 0; i < d->n && !rc; i++) {
		const struct depspec_item *it = &d->items[i];
		int pending;
		if (it->type == DEPSPEC_SINGLETON)
			continue;
		if (self && it->job_id == self) {
			errprintf(err, "job %u cannot depend on itself", self);
			rc = -ESLURM_INVALID_DEPENDENCY;
		} else if (it->task_id == DEPSPEC_ALL_TASKS
		               ? !job_find(ctld->jobs, it->job_id)
		               : !task_find(ctld, it->job_id, it->task_id, &pending)) {
			errprintf(err, "dependency on job %u, which is not in the system",
			          it->job_id);
			rc = -ESLURM_INVALID_DEPENDENCY;
		}
	}
	depspec_destroy(d);
	return rc;
}
