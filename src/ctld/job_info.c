/* job_info.c - jobs as squeue and scontrol show job see them (MSG_JOB_INFO):
 * the fields a client asks for, filled from the job's own strings where they
 * can be lent, sent in frames of at most JOB_INFO_CHUNK jobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/gres_inv.h"
#include "common/gres_req.h"
#include "common/arrayspec.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/schedparams.h"
#include "common/timefmt.h"
#include "ctld/part_mem.h"
#include "ctld/crontab.h"
#include "ctld/chan.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/hetjob.h"
#include "ctld/job_mgr.h"
#include "ctld/mail.h"
#include "ctld/mcs_label.h"
#include "ctld/node_mgr.h"
#include "proto/messages.h"
#include "common/common.h"

/* Display form of an output path: relative to WorkDir, %j %x %u %% expanded. */
static char *display_path(const struct job *job, const char *pattern)
{
	const char *pat = pattern             ? pattern
	                  : job->array_job_id ? "slurm-%A_%a.out"
	                                      : "slurm-%j.out";
	size_t cap = strlen(pat) + 256, len = 0;
	char *out = xmalloc(cap + 1);

	if (pat[0] != '/' && job->desc.work_dir)
		len = snprintf(out, cap, "%s/", job->desc.work_dir);
	for (const char *p = pat; *p && len < cap - 64; p++) {
		if (*p != '%' || !p[1]) {
			out[len++] = *p;
			continue;
		}
		p++;
		if (*p == 'j' || (*p == 'A' && !job->array_job_id))
			len += snprintf(out + len, cap - len, "%u", job->job_id);
		else if (*p == 'A')
			len += snprintf(out + len, cap - len, "%u", job->array_job_id);
		else if (*p == 'a')
			len += snprintf(out + len, cap - len, "%u", job->array_task_id);
		else if (*p == 'x')
			len += snprintf(out + len, cap - len, "%s",
			                job->desc.name ? job->desc.name : "");
		else if (*p == 'u')
			len += snprintf(out + len, cap - len, "%s", job->owner->user);
		else if (*p == '%')
			out[len++] = '%';
		else {
			out[len++] = '%';
			out[len++] = *p;
		}
	}
	out[len] = '\0';
	return out;
}

/* Plain words for a pending job: what it waits for and, when backfill has
 * planned it, when and where it is expected to start.  Caller frees. */
static char *pending_detail(const struct job *job)
{
	static const struct job_sched none;
	const struct job_sched *s = job->sched ? job->sched : &none;
	char when[64];
	const char *why = s->reason_detail;
	char *own = NULL, *out;

	if (!job_is_pending(job))
		return xstrdup(s->reason_detail);
	if (!why && job->reason == WAIT_PRIORITY && job->part)
		why = own = xasprintf("waits for higher-priority jobs in partition %s",
		                      job->part->cfg->name);
	if (!s->est_start)
		return own ? own : xstrdup(why);
	timefmt_iso(s->est_start, when, sizeof(when));
	out = xasprintf("%s%sexpected to start at %s on %s", why ? why : "",
	                why ? "; " : "", when, s->sched_nodes ? s->sched_nodes : "?");
	free(own);
	return out;
}

/* The fields a request did not ask for, which job_info_fill() sets anyway
 * and must clear again (the codec leaves out 0 and NULL): found once for the
 * request's mask, not per job. */
struct info_clear {
	uint16_t off[64];
	uint8_t wide[64]; /* 8 bytes (a pointer, a 64-bit number), else 4 */
	size_t n;
};

static void info_clear_plan(uint64_t mask, struct info_clear *c)
{
	c->n = 0;
	for (size_t i = 0; i < job_info_type.nfields && i < 64; i++) {
		const struct rota_field *f = &job_info_type.fields[i];

		if (mask & (UINT64_C(1) << i))
			continue;
		if (f->kind == FK_STR || f->kind == FK_U64 || f->kind == FK_I64)
			c->wide[c->n] = 1;
		else if (f->kind == FK_U32 || f->kind == FK_I32)
			c->wide[c->n] = 0;
		else
			continue;
		c->off[c->n++] = (uint16_t)f->offset;
	}
}

/* "gres:" before each item of a --gres list (Slurm 22.05's TresPerNode),
 * then more ("gres:gpu:2" for --gpus-per-node), or NULL when neither. */
static char *tres_words(const char *list, const char *more)
{
	char *out = NULL;

	for (const char *s = list; s && *s;) {
		size_t len = strcspn(s, ",");
		char *next = xasprintf("%s%sgres:%.*s", out ? out : "", out ? "," : "",
		                       (int)len, s);
		free(out);
		out = next;
		s += len + (s[len] == ',');
	}
	if (more) {
		char *next =
		    xasprintf("%s%sgres:gpu:%s", out ? out : "", out ? "," : "", more);
		free(out);
		out = next;
	}
	return out;
}

static void fill_tres(const struct job *job, struct job_info *o, uint64_t mask)
{
	const struct job_desc *d = &job->desc;
	const struct job_desc_ext *x = job_desc_X(d);

	if (mask & JI(tres_per_node))
		o->tres_per_node = tres_words(x->gres, x->gpus_per_node);
	if (mask & JI(tres_per_job))
		o->tres_per_job = tres_words(NULL, x->gpus);
	if (mask & JI(tres_per_task))
		o->tres_per_task = tres_words(NULL, x->gpus_per_task);
	if (mask & JI(tres_per_socket))
		o->tres_per_socket = tres_words(NULL, x->gpus_per_socket);
	if ((mask & JI(cpus_per_tres)) && x->cpus_per_gpu)
		o->cpus_per_tres = xasprintf("gres:gpu:%u", x->cpus_per_gpu);
	if ((mask & JI(mem_per_tres)) && x->mem_per_gpu && x->mem_per_gpu != NO_VAL64)
		o->mem_per_tres =
		    xasprintf("gres:gpu:%llu", (unsigned long long)x->mem_per_gpu);
	if ((mask & JI(tres_gres)) && job->run->gres)
		o->tres_gres = gres_alloc_tres(job->run->gres, job->run->nnodes);
}

/* What the job holds on each node, as scontrol -d shows it. */
static char *node_detail(struct ctld *ctld, const struct job *job)
{
	const struct job_run *run = job->run;
	char *out = xstrdup("");

	for (uint32_t k = 0; k < run->nnodes; k++) {
		uint64_t cores[GRES_CORE_WORDS] = {0};
		char ids[256], *next;
		/* completing: the nodes it still holds; ended: all (Slurm
		 * keeps an ended job's resources to show) */
		if (!job_is_finished(job) && (!run->held || !run->held[k]))
			continue;
		for (uint32_t c = 0; c < run->cpus[k]; c++)
			if (run->cores[k][c] < GRES_CORES_MAX)
				cores[run->cores[k][c] / 64] |=
				    1ull << (run->cores[k][c] % 64);
		gres_cores_format(cores, ids, sizeof(ids));
		next = xasprintf("%sNodes=%s CPU_IDs=%s Mem=%llu GRES=%s\n", out,
		                 node_mgr_get(ctld->nodes, run->node_idx[k])->cfg->name,
		                 ids, (unsigned long long)run->mem[k],
		                 run->gres && run->gres[k] ? run->gres[k] : "");
		free(out);
		out = next;
	}
	return out;
}

/* A pending job's node count as Slurm shows it: at least its -N, and as many
 * of its partition's largest nodes as its tasks need (by --ntasks-per-node,
 * else by CPUs a task). */
static uint32_t pending_nodes(const struct job *job)
{
	const struct job_desc *d = &job->desc;
	uint32_t n = job_min_nodes(job), max = job->part ? job->part->max_cpus : 0;
	uint32_t est = 0, per_node;

	if (d->num_tasks == NO_VAL || !d->num_tasks || !max)
		return n;
	if (d->ntasks_per_node != NO_VAL && d->ntasks_per_node)
		est = d->num_tasks / d->ntasks_per_node;
	else {
		per_node = d->cpus_per_task != NO_VAL && d->cpus_per_task > 1
		               ? max / d->cpus_per_task
		               : max;
		if (!per_node)
			per_node = 1;
		est = (d->num_tasks + per_node - 1) / per_node;
	}
	return est > n ? est : n;
}

void job_info_fill(struct ctld *ctld, const struct job *job, struct job_info *o,
                   uint64_t mask)
{
	const struct job_desc *d = &job->desc;
	const struct job_desc_ext *x = job_desc_X(d);
	uint32_t cpt = d->cpus_per_task == NO_VAL ? 1 : d->cpus_per_task;
	int pending = job_is_pending(job);
	struct part_mem_req mr;

#define WANT(n) (mask & JI(n))
	o->job_id = job->job_id;
	o->uid = job->owner->uid;
	o->gid = job->owner->gid;
	o->state = job->state;
	if (job->state & JOB_SUSPEND_FLAG) /* shown as Slurm's state */
		o->state =
		    (job->state & ~(JOB_STATE_BASE | JOB_SUSPEND_FLAG)) | JOB_SUSPENDED;
	if (job->hold == JOB_HOLD_SPECIAL_EXIT && job_is_pending(job))
		o->state |= JOB_SPECIAL_EXIT;
	o->reason = job->reason;
	o->priority = job->priority;
	o->hold = job->hold;
	o->submit_time = job->submit_time;
	o->eligible_time = job->eligible_time;
	o->start_time =
	    pending ? (job->sched ? job->sched->est_start : 0) : job->run->start_time;
	/* with no estimate yet, a pending job held back by --begin starts no
	 * sooner than that (Slurm shows it as the StartTime) */
	if (pending && !o->start_time && d->begin_time > (int64_t)time(NULL))
		o->start_time = (time_t)d->begin_time;
	o->end_time = job->run->end_time;
	o->suspend_time = job->run->suspend_time;
	o->pre_sus_secs = job->run->pre_sus_secs;
	o->sus_secs = job->run->sus_secs;
	if ((job->state & JOB_SUSPEND_FLAG) && time(NULL) > job->run->suspend_time)
		o->sus_secs += (uint32_t)(time(NULL) - job->run->suspend_time);
	if (job_is_running(job) && job->time_limit != INFINITE32)
		o->end_time = job->run->start_time + (time_t)job->time_limit * 60 +
		              (time_t)o->sus_secs;
	o->time_limit = job->time_limit;
	o->min_nodes = job_min_nodes(job);
	o->num_nodes = job->run->nnodes ? job->run->nnodes
	               : pending        ? pending_nodes(job)
	                                : job_min_nodes(job);
	o->num_tasks = d->num_tasks != NO_VAL         ? d->num_tasks
	               : d->ntasks_per_node != NO_VAL ? d->ntasks_per_node * o->num_nodes
	                                              : o->num_nodes;
	o->ntasks_per_node = d->ntasks_per_node;
	o->cpus_per_task = d->cpus_per_task;
	o->mem_per_node = d->mem_per_node;
	o->mem_per_cpu = d->mem_per_cpu;
	if ((d->flags & JOB_F_MEM_DEFAULT) && (pending || job_multi_part(job)) &&
	    job->part && part_mem_job(ctld, job->part, job, &mr) == 0) {
		o->mem_per_node = mr.mem_per_node; /* its partition's default */
		o->mem_per_cpu = mr.mem_per_cpu;
	}
	o->pn_min_cpus = d->pn_min_cpus;
	o->pn_min_tmp = x->pn_min_tmp;
	o->sockets_per_node = x->sockets_per_node;
	o->cores_per_socket = x->cores_per_socket;
	o->threads_per_core = x->threads_per_core;
	o->ntasks_per_core = x->ntasks_per_core;
	o->ntasks_per_socket = x->ntasks_per_socket;
	o->prefer = x->prefer;
	o->batch_features = x->batch_features;
	o->mcs_label = x->mcs_label;
	o->licenses = x->licenses;
	o->time_min = x->time_min;
	o->deadline = x->deadline;
	o->reservation = x->reservation;
	o->req_switch = x->req_switch;
	if (x->req_switch) {
		struct sched_params sp;
		sched_params_parse(ctld->conf->scheduler_params, &sp);
		o->wait4switch = job_switch_wait(job, sp.max_switch_wait);
	}
	o->batch_flag = !(d->flags & JOB_F_INTERACTIVE);
	o->exit_code = job->run->exit_code;
	o->restart_cnt = job->restart_cnt;
	o->derived_exit_code = job->run->derived_exit;
	o->flags = d->flags;
	o->nice = d->nice;
	o->array_job_id = job->array_job_id;
	o->array_task_id = job->array_task_id;
	if (job->run->nnodes) {
		for (uint32_t i = 0; i < job->run->nnodes; i++)
			o->num_cpus += job->run->cpus[i];
		if (WANT(cpus_per_node))
			o->cpus_per_node =
			    (struct rota_u32v){job->run->cpus, job->run->nnodes};
		o->nodes = job->run->nodes_str;
		if (WANT(batch_host))
			o->batch_host =
			    (char *)node_mgr_get(ctld->nodes, job_batch_node(job))
			        ->cfg->name;
	} else {
		o->num_cpus =
		    (d->flags & JOB_F_OVERCOMMIT ? o->num_nodes : o->num_tasks) * cpt;
	}
	o->name = d->name;
	o->user = job->owner->user;
	o->group = job->owner->group;
	o->partition = job_part_name(job);
	o->account = d->account;
	o->qos = d->qos;
	fill_tres(job, o, mask);
	if (WANT(node_detail) && (job_is_running(job) || job->run->nnodes))
		o->node_detail = node_detail(ctld, job);
	o->req_nodes = d->req_nodes;
	o->exc_nodes = d->exc_nodes;
	o->features = d->features;
	o->work_dir = d->work_dir;
	o->command = d->command;
	o->submit_host = d->submit_host;
	o->comment = x->comment;
	o->mail_type = x->mail_type;
	o->cron_spec = x->cron_spec;
	o->het_job_id = x->het_job_id;
	o->het_offset = x->het_offset;
	o->cron_job = x->cron_spec && crontab_listed(ctld, job);
	/* past the 64th field: always sent, never cleared (job_info_release) */
	if (x->mail_type)
		o->mail_user = job_mail_user(ctld, job);
	if (pending && job->sched) {
		o->sched_nodes = job->sched->sched_nodes;
		o->unavail_nodes = job->sched->unavail_nodes;
	}
	if (WANT(reason_detail))
		o->reason_detail = pending_detail(job);
	if (o->batch_flag) {
		if (WANT(std_out))
			o->std_out = display_path(job, d->std_out);
		if (WANT(std_err))
			o->std_err =
			    display_path(job, d->std_err ? d->std_err : d->std_out);
		o->std_in = x->std_in ? x->std_in : (char *)"/dev/null";
	}
	/* what is still outstanding, as Slurm shows it; nothing once it ran */
	if (pending && WANT(dependency))
		o->dependency = depend_show(ctld, job, time(NULL));
	if (job->array_rem) {
		if (WANT(array_task_str))
			o->array_task_str = arrayspec_format(job->array_rem, 1);
		o->array_max_tasks = job->array_rem->throttle;
	}
#undef WANT
}

/* What was not asked for is not sent (the codec leaves out 0 and NULL). */
static void info_clear_apply(struct job_info *o, const struct info_clear *clear)
{
	for (size_t i = 0; i < clear->n; i++) {
		char *p = (char *)o + clear->off[i];
		if (clear->wide[i])
			*(uint64_t *)p = 0;
		else
			*(uint32_t *)p = 0;
	}
}

void job_info_release(struct job_info *o)
{
	free(o->reason_detail);
	free(o->std_out);
	free(o->std_err);
	free(o->dependency);
	free(o->array_task_str);
	free(o->tres_per_node);
	free(o->tres_per_job);
	free(o->tres_per_task);
	free(o->tres_per_socket);
	free(o->cpus_per_tres);
	free(o->mem_per_tres);
	free(o->tres_gres);
	free(o->node_detail);
	free(o->mail_user);
}

/* Jobs a frame holds at most: "more" says another frame follows. */
#define JOB_INFO_CHUNK 4096

struct info_batch {
	struct caller *who; /* who asks: what PrivateData hides */
	struct job_info_resp r;
	size_t cap;
	uint64_t mask;
	struct info_clear clear;
};

static void batch_add(struct ctld *ctld, struct info_batch *b, const struct job *job)
{
	if (mcs_job_hidden(ctld, b->who, job))
		return;
	if (b->r.jobs_count == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->r.jobs = xrealloc(b->r.jobs, b->cap * sizeof(struct job_info));
	}
	memset(&b->r.jobs[b->r.jobs_count], 0, sizeof(struct job_info));
	job_info_fill(ctld, job, &b->r.jobs[b->r.jobs_count], b->mask);
	info_clear_apply(&b->r.jobs[b->r.jobs_count++], &b->clear);
}

static void batch_send(struct chan *ch, struct info_batch *b, int more)
{
	b->r.more = (uint32_t)more;
	chan_send(ch, MSG_JOB_INFO_RESP, &b->r);
	/* the client decodes this frame while the next is made */
	if (more)
		chan_write_now(ch);
	for (uint32_t i = 0; i < b->r.jobs_count; i++)
		job_info_release(&b->r.jobs[i]);
	b->r.jobs_count = 0;
}

void job_mgr_info(struct ctld *ctld, struct caller *who, const struct job_info_req *req,
                  struct chan *ch)
{
	struct info_batch b = {.who = who, .r.now = time(NULL), .mask = req->fields};

	/* the fields job_info_fill() must compute to be sent at all */
	if (!b.mask)
		b.mask = ~UINT64_C(0);
	b.mask |= JI(job_id) | JI(array_job_id) | JI(array_task_id);
	info_clear_plan(b.mask, &b.clear);
	if (req->job_ids.n) {
		for (uint32_t i = 0; i < req->job_ids.n; i++) {
			uint32_t id = req->job_ids.v[i];
			struct job *job = job_find(ctld->jobs, id);

			if (job)
				batch_add(ctld, &b, job);
			/* a heterogeneous job's leader stands for every
			 * component, as Slurm (its own id for one) */
			if (job && job_x(job)->het_job_id == id) {
				struct job *comps[HET_MAX];
				size_t n = hetjob_components(ctld, job, comps);
				for (size_t k = 1; k < n; k++)
					batch_add(ctld, &b, comps[k]);
				continue;
			}
			/* an array's id stands for all its tasks (its first task's
			 * id is the array's) */
			if (job && job->array_job_id != id)
				continue;
			for (struct job *t = job_first(ctld->jobs); t; t = t->next)
				if (t->array_job_id == id && t->job_id != id)
					batch_add(ctld, &b, t);
		}
		if (!b.r.jobs_count) {
			free(b.r.jobs);
			chan_send_rc(ch, -ESLURM_INVALID_JOB_ID, NULL);
			return;
		}
	} else {
		for (struct job *job = job_first(ctld->jobs); job; job = job->next) {
			batch_add(ctld, &b, job);
			if (b.r.jobs_count == JOB_INFO_CHUNK && job->next)
				batch_send(ch, &b, 1);
		}
	}
	batch_send(ch, &b, 0);
	free(b.r.jobs);
}
