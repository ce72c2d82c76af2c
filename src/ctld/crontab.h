/* crontab.h - scrontab's crontabs: recurring batch jobs, one job per entry,
 * kept by the controller (ScronParameters=enable).
 *
 * DESIGN: scrontab parses the crontab (its #SCRON options as sbatch's) and
 * sends the text with one batch job per entry; each is checked as a
 * submission by the crontab's user, with its begin time at the entry's next
 * start (common/cronspec.h), and all are accepted or none.  Then the user's
 * crontab record (EV_CRONTAB: the text, the lines of entries cancelled since,
 * and the entries' job ids) replaces the old one, and the old record's jobs
 * that have not started are cancelled (running ones finish, and do not
 * recur).  A job recurs while its record lists it: each second
 * (crontab_tick) a listed job that has ended, and is no longer completing,
 * is requeued under its id with its begin time at the next start (EV_REQUEUE
 * with begin_time; accounting keeps each run); a listed job that was
 * cancelled leaves the record and its lines are disabled ("#DISABLED: " in
 * scrontab -l), as Slurm does.  Listed jobs are not purged.  Records are
 * journaled and written whole by compactions, so crontabs survive restarts
 * and reach a standby.  Editing another user's crontab is for root and
 * SlurmUser; operators may list one.  scontrol cannot update a listed job.
 */
#ifndef ROTA_CTLD_CRONTAB_H
#define ROTA_CTLD_CRONTAB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct caller;
struct chan;
struct job;
struct crontab_update;
struct crontab_get;
struct ev_crontab;
struct crontab_mgr;

#define CRONTAB_TEXT_MAX    (1u << 20) /* bytes of one crontab */
#define CRONTAB_ENTRIES_MAX 1000       /* jobs of one crontab */

/* scrontab's requests, answered on ch. */
void crontab_update_request(struct ctld *ctld, const struct caller *who,
                            struct crontab_update *req, struct chan *ch);
void crontab_get_request(struct ctld *ctld, const struct caller *who,
                         const struct crontab_get *req, struct chan *ch);

/* EV_CRONTAB: 0 (always). */
int crontab_apply(struct ctld *ctld, const struct ev_crontab *ev);
/* The i-th record as its EV_CRONTAB (copies: the writer releases them);
 * returns 1, or 0 past the last. */
int crontab_snapshot(const struct crontab_mgr *m, size_t i, struct ev_crontab *ev);
/* Forget every record (a state reload); NULL allowed. */
void crontab_mgr_clear(struct crontab_mgr *m);
void crontab_mgr_destroy(struct crontab_mgr *m);

/* Does job's user's crontab list it (it recurs; CronJob=Yes)? */
int crontab_listed(const struct ctld *ctld, const struct job *job);
/* The next start of job's entry after now; -1: none (not an entry). */
time_t crontab_next_start(const struct job *job, time_t now);
/* Each second: requeue listed jobs that ended, let cancelled ones go. */
void crontab_tick(struct ctld *ctld, time_t now);

#endif
