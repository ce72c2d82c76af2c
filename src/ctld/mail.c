/* mail.c - --mail-type's mails (see mail.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/mailtype.h"
#include "common/states.h"
#include "common/strv.h"
#include "common/timefmt.h"
#include "ctld/ctld.h"
#include "ctld/detach.h"
#include "ctld/job_mgr.h"
#include "ctld/mail.h"
#include "ctld/owner.h"
#include "ctld/suspend.h"
#include "common/common.h"

#define MAIL_RUN_LIMIT_S 300

static const char *event_words(uint32_t event)
{
	switch (event) {
	case MAIL_BEGIN:
		return "Began";
	case MAIL_END:
		return "Ended";
	case MAIL_FAIL:
		return "Failed";
	case MAIL_REQUEUE:
		return "Requeued";
	case MAIL_TIME100:
		return "Reached time limit";
	case MAIL_TIME90:
		return "Reached 90% of time limit";
	case MAIL_TIME80:
		return "Reached 80% of time limit";
	case MAIL_TIME50:
		return "Reached 50% of time limit";
	case MAIL_INVALID_DEPEND:
		return "Invalid dependency";
	default:
		return "unknown";
	}
}

/* Run MailProg detached, as SlurmUser. */
static void run_mail(struct ctld *ctld, const char *subject, const char *to, char **env)
{
	const char *prog = ctld->conf->mail_prog;
	char *argv[] = {(char *)prog, "-s", (char *)subject, (char *)to, NULL};
	struct detached d = {.argv = argv,
	                     .env = env,
	                     .uid = ctld->slurm_uid,
	                     .gid = (gid_t)ctld->slurm_uid,
	                     .limit_s = MAIL_RUN_LIMIT_S};
	int rc;

	if (!prog || !*prog)
		return;
	if ((rc = ctld_run_detached(&d)) < 0)
		log_err("mail: %s: %s", prog, strerror(-rc));
}

/* Seconds it has run (suspended time left out), up to end (0: now). */
static long run_secs(const struct job *job, time_t end, time_t now)
{
	if (!job->run->start_time)
		return 0;
	if (end && !(job->state & JOB_SUSPEND_FLAG))
		return (long)(end - job->run->start_time) - (long)job->run->sus_secs;
	return job_run_secs(job, now);
}

char *job_mail_user(struct ctld *ctld, const struct job *job)
{
	const struct job_desc_ext *x = job_x(job);
	char *to = x->mail_user && *x->mail_user
	               ? xstrdup(x->mail_user)
	               : xstrdup(job->owner->user ? job->owner->user : "");

	/* MailDomain completes the default (the user's name), as Slurm does */
	if (!(x->mail_user && *x->mail_user) && !strchr(to, '@') &&
	    ctld->conf->mail_domain && *ctld->conf->mail_domain) {
		char *t = xasprintf("%s@%s", to, ctld->conf->mail_domain);
		free(to);
		to = t;
	}
	return to;
}

/* Mail subject to the job's --mail-user (its user@MailDomain by default),
 * with env; both are freed. */
static void mail_send(struct ctld *ctld, const struct job *job, char *subject, char **env)
{
	char *to = job_mail_user(ctld, job);

	if (to[0] == '-' || !to[0]) /* never an option of MailProg */
		log_err("JobId=%u: not mailing '%s': not a mail address", job->job_id,
		        to);
	else
		run_mail(ctld, subject, to, env);
	log_info("JobId=%u mail to %s: %s", job->job_id, to, subject);
	free(subject);
	free(to);
	strv_free(env);
}

/* The SLURM_* variables MailProg is given for the job (id: the one named). */
static char **mail_env(struct ctld *ctld, const struct job *job, uint32_t id,
                       uint32_t base, uint32_t event, char **env)
{
	const struct job_desc *d = &job->desc;

	env = strv_setenvf(env, "SLURM_JOB_ID", "%u", id);
	env = strv_setenv(env, "SLURM_JOB_NAME", d->name ? d->name : "");
	env =
	    strv_setenv(env, "SLURM_JOB_USER", job->owner->user ? job->owner->user : "");
	env = strv_setenv(env, "SLURM_JOB_STATE", job_state_name(base));
	env = strv_setenv(env, "SLURM_JOB_MAIL_TYPE", event_words(event));
	env = strv_setenv(env, "SLURM_CLUSTER_NAME",
	                  ctld->conf->cluster_name ? ctld->conf->cluster_name : "");
	env = strv_setenv(env, "SLURM_JOB_WORK_DIR", d->work_dir ? d->work_dir : "");
	return strv_setenv(env, "PATH", "/usr/bin:/bin");
}

/* ", STATE, ExitCode [min-max]" of an array's tasks (Mixed when some exited
 * 0 and some not), or the highest signal or code when not all exited. */
static void array_term(const struct job_array_sum *s, uint32_t base, char *buf,
                       size_t len, char ***env)
{
	if (WIFEXITED(s->min_exit) && WIFEXITED(s->max_exit)) {
		int lo = WEXITSTATUS(s->min_exit), hi = WEXITSTATUS(s->max_exit);
		snprintf(buf, len, ", %s, ExitCode [%d-%d]",
		         !lo && hi ? "Mixed" : job_state_name(base), lo, hi);
		*env = strv_setenvf(*env, "SLURM_JOB_EXIT_CODE_MIN", "%d", lo);
		*env = strv_setenvf(*env, "SLURM_JOB_EXIT_CODE_MAX", "%d", hi);
	} else if (WIFSIGNALED(s->max_exit)) {
		snprintf(buf, len, ", Mixed, MaxSignal [%d]", WTERMSIG(s->max_exit));
		*env = strv_setenvf(*env, "SLURM_JOB_TERM_SIGNAL_MAX", "%d",
		                    WTERMSIG(s->max_exit));
	} else if (WIFEXITED(s->max_exit)) {
		snprintf(buf, len, ", Mixed, MaxExitCode [%d]", WEXITSTATUS(s->max_exit));
		*env = strv_setenvf(*env, "SLURM_JOB_EXIT_CODE_MAX", "%d",
		                    WEXITSTATUS(s->max_exit));
	} else {
		snprintf(buf, len, ", %s", job_state_name(base));
		*env = strv_setenv(*env, "SLURM_JOB_EXIT_CODE_MAX", "0");
	}
}

/* The array's summary mail of event (term: its end's words). */
static void mail_array_send(struct ctld *ctld, const struct job *job, uint32_t event,
                            uint32_t base, const char *term, char **env)
{
	env = mail_env(ctld, job, job->array_job_id, base, event, env);
	env = strv_setenvf(env, "SLURM_ARRAY_JOB_ID", "%u", job->array_job_id);
	mail_send(ctld, job,
	          xasprintf("Slurm Array Summary Job_id=%u_* (%u) Name=%s %s%s",
	                    job->array_job_id, job->array_job_id,
	                    job->desc.name ? job->desc.name : "", event_words(event),
	                    term),
	          env);
}

/* An array asked for no ARRAY_TASKS mails as one job, as Slurm does: Began
 * when its first task starts, Ended when its last one ends (Failed instead
 * when a task exited non-zero and FAIL was asked; Requeued before it when a
 * task was requeued and REQUEUE asked), its tasks summed up and named by the
 * array's id. */
static void mail_array(struct ctld *ctld, const struct job *job, uint32_t event,
                       uint32_t state)
{
	const struct job *meta = job_find(ctld->jobs, job->array_job_id);
	uint32_t want = job_x(job)->mail_type;
	uint32_t base = (meta ? meta->state : state) & JOB_STATE_BASE;
	struct job_array_sum s;
	char term[128] = "", **env = NULL;

	job_array_sum(ctld->jobs, job->array_job_id, &s);
	if (event == MAIL_BEGIN) {
		if (s.begun == 1 && !job->restart_cnt && (want & MAIL_BEGIN))
			mail_array_send(ctld, job, MAIL_BEGIN, base, "", NULL);
		return; /* else not its first task, or not its first start */
	}
	if (s.open)
		return; /* tasks to come */
	if (s.requeued && (want & MAIL_REQUEUE))
		mail_array_send(ctld, job, MAIL_REQUEUE, base, "", NULL);
	if (WIFEXITED(s.max_exit) && WEXITSTATUS(s.max_exit) && (want & MAIL_FAIL))
		event = MAIL_FAIL;
	else if (!(want & MAIL_END))
		return;
	array_term(&s, base, term, sizeof(term), &env);
	if (s.requeued)
		strncat(term, ", with requeued tasks", sizeof(term) - strlen(term) - 1);
	mail_array_send(ctld, job, event, base, term, env);
}

void mail_job(struct ctld *ctld, const struct job *job, uint32_t event, uint32_t state,
              uint32_t exit_code, time_t now)
{
	const struct job_desc *d = &job->desc;
	const struct job_desc_ext *x = job_desc_X(d);
	uint32_t base = state & JOB_STATE_BASE;
	char times[96] = "", term[96] = "", dur[48], id[64], *subject, **env = NULL;
	int failed = base == JOB_FAILED || base == JOB_TIMEOUT || base == JOB_NODE_FAIL ||
	             base == JOB_PREEMPTED || base == JOB_OOM || base == JOB_DEADLINE ||
	             base == JOB_BOOT_FAIL;

	if (ctld->replaying || !x->mail_type)
		return;
	/* an array's: its first start and its end, each task's requeue
	 * told at the end */
	if (job->array_job_id && !(x->mail_type & MAIL_ARRAY_TASKS) &&
	    (event == MAIL_BEGIN || event == MAIL_END || event == MAIL_REQUEUE)) {
		uint32_t asks = event == MAIL_BEGIN ? MAIL_BEGIN
		                : event == MAIL_END ? MAIL_END | MAIL_FAIL | MAIL_REQUEUE
		                                    : 0;
		if (x->mail_type & asks)
			mail_array(ctld, job, event, state);
		return;
	}
	if (event == MAIL_END) { /* FAIL when it failed and FAIL was asked */
		if (failed && (x->mail_type & MAIL_FAIL))
			event = MAIL_FAIL;
		else if (!(x->mail_type & MAIL_END))
			return;
	} else if (!(x->mail_type & event)) {
		return;
	}
	if (job->array_job_id && job->array_task_id != NO_VAL)
		snprintf(id, sizeof(id), "Array Task Job_id=%u_%u (%u)",
		         job->array_job_id, job->array_task_id, job->job_id);
	else
		snprintf(id, sizeof(id), "Job_id=%u", job->job_id);
	env = mail_env(ctld, job, job->job_id, base, event, env);
	if (job->array_job_id) {
		env = strv_setenvf(env, "SLURM_ARRAY_JOB_ID", "%u", job->array_job_id);
		env = strv_setenvf(env, "SLURM_ARRAY_TASK_ID", "%u", job->array_task_id);
	}
	if (event == MAIL_BEGIN) {
		timefmt_duration((long)(job->run->start_time - job->submit_time), dur,
		                 sizeof(dur));
		snprintf(times, sizeof(times), ", Queued time %s", dur);
		env = strv_setenv(env, "SLURM_JOB_QUEUED_TIME", dur);
	} else if (event != MAIL_INVALID_DEPEND && job->run->start_time) {
		timefmt_duration(
		    run_secs(job, event & (MAIL_END | MAIL_FAIL | MAIL_REQUEUE) ? now : 0,
		             now),
		    dur, sizeof(dur));
		snprintf(times, sizeof(times), ", Run time %s", dur);
		env = strv_setenv(env, "SLURM_JOB_RUN_TIME", dur);
	}
	if (event == MAIL_END || event == MAIL_FAIL) {
		if (WIFEXITED(exit_code))
			snprintf(term, sizeof(term), ", %s, ExitCode %d",
			         job_state_name(base), WEXITSTATUS(exit_code));
		else
			snprintf(term, sizeof(term), ", %s", job_state_name(base));
		env = strv_setenvf(env, "SLURM_JOB_EXIT_CODE_MAX", "%d",
		                   WIFEXITED(exit_code) ? WEXITSTATUS(exit_code) : 0);
	}
	subject = xasprintf("Slurm %s Name=%s %s%s%s", id, d->name ? d->name : "",
	                    event_words(event), times, term);
	mail_send(ctld, job, subject, env);
}

void mail_time_limit(struct ctld *ctld, struct job *job, time_t now)
{
	if (!(job_x(job)->mail_type & MAIL_TIME100) ||
	    (job->run->mail_sent & MAIL_TIME100))
		return;
	job_run_mut(job)->mail_sent |= MAIL_TIME100;
	mail_job(ctld, job, MAIL_TIME100, job->state, 0, now);
}

void mail_tick(struct ctld *ctld, time_t now)
{
	static const struct {
		uint32_t bit, pct;
	} marks[] = {
	    {MAIL_TIME100, 100}, {MAIL_TIME90, 90}, {MAIL_TIME80, 80}, {MAIL_TIME50, 50}};

	for (struct job *job = job_first_active(ctld->jobs); job; job = job->lnext) {
		const uint32_t want =
		    job_x(job)->mail_type &
		    (MAIL_TIME100 | MAIL_TIME90 | MAIL_TIME80 | MAIL_TIME50);
		long ran, limit;
		if (!want || !job_is_running(job) || job->time_limit == INFINITE32 ||
		    !job->time_limit)
			continue;
		ran = job_run_secs(job, now);
		limit = (long)job->time_limit * 60;
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			if (!(want & marks[i].bit) ||
			    (job->run->mail_sent & marks[i].bit) ||
			    ran * 100 < limit * (long)marks[i].pct)
				continue;
			job_run_mut(job)->mail_sent |= marks[i].bit;
			mail_job(ctld, job, marks[i].bit, job->state, 0, now);
			break; /* one a second: the highest reached */
		}
	}
}
