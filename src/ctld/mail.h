/* mail.h - --mail-type's mails: the controller runs MailProg ("/bin/mail" by
 * default) as SlurmUser with `-s SUBJECT USER` and Slurm's subjects
 * ("Slurm Job_id=7 Name=x Began, Queued time 00:00:01", "... Ended, Run time
 * 00:01:00, COMPLETED, ExitCode 0", "... Failed, ...", "... Requeued, ...",
 * "... Reached 50% of time limit, Run time ...", "... Invalid
 * dependency") and the SLURM_JOB_* variables Slurm sets, for the events the
 * job asked about; USER is --mail-user, else the job's user, with
 * @MailDomain when it has no domain.  An array without ARRAY_TASKS sends
 * one Began and one Ended (or Failed) for all its tasks ("Slurm Array
 * Summary Job_id=7_* (7) Name=x Ended, Mixed, ExitCode [0-1]").  The program
 * runs detached: the loop never waits for it.  Nothing is sent while the
 * journal is replayed. */
#ifndef ROTA_CTLD_MAIL_H
#define ROTA_CTLD_MAIL_H

#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

/* The job's event (one MAIL_* bit; MAIL_END covers FAIL, chosen here by
 * state), if it asked for it.  state, exit_code: how it ended (MAIL_END). */
void mail_job(struct ctld *ctld, const struct job *job, uint32_t event, uint32_t state,
              uint32_t exit_code, time_t now);
/* Whom its mails go to (caller frees): --mail-user, else the job's user,
 * @MailDomain added (scontrol show job's MailUser=). */
char *job_mail_user(struct ctld *ctld, const struct job *job);
/* job is being ended for its time limit: its TIME_LIMIT mail, if asked and
 * not yet sent (before the job's end mail, as Slurm sends them). */
void mail_time_limit(struct ctld *ctld, struct job *job, time_t now);
/* Each second: the running jobs' TIME_LIMIT_50/80/90/100 mails. */
void mail_tick(struct ctld *ctld, time_t now);

#endif
