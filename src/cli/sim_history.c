/* sim_history.c - a state directory's journal as a list of finished jobs
 * (sim_history.h).  The swf export is sim_history_swf.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/sim_history.h"
#include "common/recframe.h"
#include "proto/messages.h"
#include "ctld/job_event.h"
#include "common/common.h"

struct hjob_state {
	struct sim_hjob job;
	int started, ended;
	int held; /* pending on hold: eligible once released */
};

struct reader {
	struct hjob_state *s; /* by id, ascending */
	size_t n, cap;
	int too_many;
	size_t undecoded;
};

/* The slot of id, or where it goes. */
static size_t reader_find(const struct reader *r, uint32_t id)
{
	size_t lo = 0, hi = r->n;

	if (r->n && r->s[r->n - 1].job.id < id)
		return r->n; /* the common case: ids arrive ascending */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->s[mid].job.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct hjob_state *reader_get(struct reader *r, uint32_t id)
{
	size_t i = reader_find(r, id);

	return i < r->n && r->s[i].job.id == id ? &r->s[i] : NULL;
}

/* Room for a job at slot i (its contents undefined).  0, or -1 (counted)
 * past SIM_HISTORY_MAX_JOBS. */
static int reader_insert(struct reader *r, size_t i)
{
	if (r->n >= SIM_HISTORY_MAX_JOBS) {
		r->too_many = 1;
		return -1;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->s = xrealloc(r->s, r->cap * sizeof(*r->s));
	}
	memmove(&r->s[i + 1], &r->s[i], (r->n - i) * sizeof(*r->s));
	r->n++;
	return 0;
}

static void hjob_free(struct sim_hjob *j)
{
	free(j->user);
	free(j->account);
	free(j->partition);
	free(j->features);
}

static void on_submit(struct reader *r, const struct ev_submit *ev)
{
	size_t i = reader_find(r, ev->job_id);
	const struct job_desc *d = ev->desc_count ? ev->desc : NULL;
	struct sim_hjob *j;

	if (i < r->n && r->s[i].job.id == ev->job_id) {
		/* a snapshot's record of a job seen before: a fresh start */
		hjob_free(&r->s[i].job);
	} else if (reader_insert(r, i) < 0) {
		return;
	}
	memset(&r->s[i], 0, sizeof(r->s[i]));
	r->s[i].held = ev->hold != 0;
	j = &r->s[i].job;
	j->id = ev->job_id;
	j->order = SIM_HISTORY_ORDER(ev->job_id, 0);
	j->submit = ev->eligible_time > ev->time ? ev->eligible_time : ev->time;
	if (d && d->begin_time > j->submit)
		j->submit = d->begin_time;
	j->limit =
	    ev->time_limit && ev->time_limit != NO_VAL && ev->time_limit != INFINITE32
	        ? (int64_t)ev->time_limit * 60
	        : 0;
	j->user = xstrdup(ev->user && *ev->user ? ev->user : "?");
	j->account = xstrdup(d && d->account ? d->account : "");
	j->partition = d && d->partition && *d->partition ? xstrdup(d->partition) : NULL;
	if (!d)
		return;
	j->features = d->features && *d->features ? xstrdup(d->features) : NULL;
	j->mem_per_node = d->mem_per_node != NO_VAL64 ? d->mem_per_node : 0;
	j->mem_per_cpu = d->mem_per_cpu != NO_VAL64 ? d->mem_per_cpu : 0;
	j->exclusive = (d->flags & JOB_F_EXCLUSIVE) != 0;
}

static void on_start(struct reader *r, const struct ev_start *ev)
{
	struct hjob_state *s = reader_get(r, ev->job_id);
	uint64_t cpus = 0;

	if (!s)
		return;
	for (uint32_t k = 0; k < ev->cpus_per_node.n; k++)
		cpus += ev->cpus_per_node.v[k];
	s->job.start = ev->time;
	s->job.cpus = cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
	s->job.nodes = ev->cpus_per_node.n;
	s->started = 1;
	s->ended = 0;
}

static void on_end(struct reader *r, const struct ev_end *ev)
{
	struct hjob_state *s = reader_get(r, ev->job_id);

	if (!s || !s->started)
		return;
	s->job.end = ev->time;
	s->ended = 1;
}

/* A requeued job's last run, the one kept, was eligible from the requeue. */
static void on_requeue(struct reader *r, const struct ev_requeue *ev)
{
	struct hjob_state *s = reader_get(r, ev->job_id);

	if (!s)
		return;
	s->started = s->ended = 0;
	if (ev->time > s->job.submit)
		s->job.submit = ev->time;
}

/* A task of an array's pending remainder became its own record: it was
 * submitted as the remainder was. */
static void on_array_split(struct reader *r, const struct ev_array_split *ev)
{
	struct hjob_state *s = reader_get(r, ev->job_id);
	struct sim_hjob from;
	size_t i;

	if (s && !ev->new_job_id) /* the last task: the record itself */
		s->job.order = SIM_HISTORY_ORDER(ev->job_id, ev->array_task_id);
	if (!s || !ev->new_job_id || reader_get(r, ev->new_job_id))
		return;
	from = s->job; /* s moves when the array grows */
	i = reader_find(r, ev->new_job_id);
	if (reader_insert(r, i) < 0)
		return;
	memset(&r->s[i], 0, sizeof(r->s[i]));
	r->s[i].job =
	    (struct sim_hjob){.id = ev->new_job_id,
	                      .order = SIM_HISTORY_ORDER(ev->job_id, ev->array_task_id),
	                      .submit = from.submit,
	                      .limit = from.limit,
	                      .user = xstrdup(from.user),
	                      .account = xstrdup(from.account),
	                      .partition = xstrdup(from.partition),
	                      .features = xstrdup(from.features),
	                      .mem_per_node = from.mem_per_node,
	                      .mem_per_cpu = from.mem_per_cpu,
	                      .exclusive = from.exclusive};
}

/* A pending job held waits for its release: it is eligible from then on. */
static void on_hold(struct reader *r, const struct ev_hold *ev)
{
	struct hjob_state *s = reader_get(r, ev->job_id);

	if (!s || s->started)
		return;
	if (ev->hold)
		s->held = 1;
	else if (s->held) {
		s->held = 0;
		if (ev->time > s->job.submit)
			s->job.submit = ev->time;
	}
}

/* scontrol update of a pending job: its time limit, partition, account. */
static void on_update(struct reader *r, const struct ev_update *ev)
{
	struct hjob_state *s = reader_get(r, ev->job_id);
	const struct job_desc *d = ev->desc_count ? ev->desc : NULL;

	if (!s || s->started)
		return;
	if (ev->time_limit != NO_VAL)
		s->job.limit = ev->time_limit && ev->time_limit != INFINITE32
		                   ? (int64_t)ev->time_limit * 60
		                   : 0;
	if (d && d->partition && *d->partition) {
		free(s->job.partition);
		s->job.partition = xstrdup(d->partition);
	}
	if (d && d->account) {
		free(s->job.account);
		s->job.account = xstrdup(d->account);
	}
}

static int on_record(void *arg, const uint8_t *body, size_t len)
{
	struct reader *r = arg;
	struct rota_error err = {""};
	union job_event ev;

	if (job_event_decode((const char *)body, len, &ev, &err) < 0) {
		r->undecoded++;
		return 0;
	}
	switch (ev.head.type) {
	case EV_SUBMIT:
		on_submit(r, &ev.submit);
		break;
	case EV_START:
		on_start(r, &ev.start);
		break;
	case EV_END:
		on_end(r, &ev.end);
		break;
	case EV_REQUEUE:
		on_requeue(r, &ev.requeue);
		break;
	case EV_ARRAY_SPLIT:
		on_array_split(r, &ev.array_split);
		break;
	case EV_HOLD:
		on_hold(r, &ev.hold);
		break;
	case EV_UPDATE:
		on_update(r, &ev.update);
		break;
	default:
		break;
	}
	job_event_release(&ev);
	return 0;
}

/* Move the finished jobs of r into h. */
static void reader_collect(struct reader *r, struct sim_history *h)
{
	h->jobs = xcalloc(r->n ? r->n : 1, sizeof(*h->jobs));
	h->cap = r->n;
	for (size_t i = 0; i < r->n; i++) {
		struct hjob_state *s = &r->s[i];

		if (s->started && s->ended && s->job.end >= s->job.start &&
		    s->job.start >= s->job.submit && s->job.cpus) {
			h->jobs[h->n++] = s->job;
		} else {
			h->unfinished++;
			hjob_free(&s->job);
		}
	}
	free(r->s);
	r->s = NULL;
	r->n = 0;
}

int sim_history_from_journal(const char *state_dir, struct sim_history *h,
                             struct rota_error *err)
{
	char *path = xasprintf("%s/journal", state_dir);
	struct reader r = {0};
	struct recframe_result res = {0};
	struct stat st;
	void *map = MAP_FAILED;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		errprintf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			errprintf(err, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (recframe_walk(map, (size_t)st.st_size, on_record, NULL, &r, &res) <
		    0) {
			errprintf(err, "%s: out of memory", path);
			goto out;
		}
	}
	if (r.too_many) {
		errprintf(err, "%s: more than %d jobs", path, SIM_HISTORY_MAX_JOBS);
		goto out;
	}
	reader_collect(&r, h);
	rc = 0;
out:
	for (size_t i = 0; i < r.n; i++)
		hjob_free(&r.s[i].job);
	free(r.s);
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

void sim_history_release(struct sim_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		hjob_free(&h->jobs[i]);
	free(h->jobs);
	memset(h, 0, sizeof(*h));
}
