#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/strv.h"
#include "stepd/logtee.h"
#include "stepd/msglink.h"
#include "stepd/stepd.h"
#include "common/common.h"

#define LOGTEE_WAIT_MAX 256 /* lines kept until srun's I/O connection is up */
/* bytes waiting for srun above which the lines are dropped (an srun that
 * stopped reading must not grow the daemon) */
#define LOGTEE_PENDING_MAX (1u << 20)

struct logtee {
	struct stepd *st;
	pid_t pid;   /* the step daemon's: a forked child sends nothing */
	char **wait; /* lines until the I/O connection is up */
	size_t nwait;
	int flushed;
};

static void send_line(struct logtee *tee, const char *line)
{
	if (tee->flushed) {
		if (!tee->st->io || msglink_pending(tee->st->io) < LOGTEE_PENDING_MAX)
			stepd_user_error(tee->st, NULL, line);
		return;
	}
	if (tee->nwait < LOGTEE_WAIT_MAX) {
		tee->wait = strv_append(tee->wait, line);
		tee->nwait++;
	}
}

static void on_log(int level, const char *msg, void *arg)
{
	struct logtee *tee = arg;
	char *line;

	if (getpid() != tee->pid)
		return;
	line = xasprintf("slurmstepd: %s%s\n",
	                 level <= LOG_WARNING ? "error: "
	                 : level >= LOG_DEBUG ? "debug:  "
	                                      : "",
	                 msg);
	send_line(tee, line);
	free(line);
}

void logtee_start(struct stepd *st)
{
	uint32_t level = st->req->slurmd_debug;
	uint32_t shown = level > 5 ? 7 : 2 + level; /* Slurm's: error + level */
	int rota_level = shown >= 5   ? LOG_DEBUG
	                 : shown >= 3 ? LOG_INFO
	                 : shown >= 2 ? LOG_WARNING
	                              : LOG_CRIT;
	struct logtee *tee;
	char *line;

	if (!level || st->batch)
		return;
	tee = xcalloc(1, sizeof(*tee));
	tee->st = st;
	tee->pid = getpid();
	st->logtee = tee; /* lives as long as the daemon */
	log_set_tee(rota_level, on_log, tee);
	if (shown >= 4) { /* Slurm says so at verbose */
		line = xasprintf("slurmstepd: debug levels are stderr='%s', "
		                 "logfile='info', syslog='quiet'\n",
		                 log_slurm_level_name(shown));
		send_line(tee, line);
		free(line);
	}
}

void logtee_flush(struct stepd *st)
{
	struct logtee *tee = st->logtee;

	if (!tee || tee->flushed)
		return;
	tee->flushed = 1;
	for (size_t i = 0; i < tee->nwait; i++)
		stepd_user_error(st, NULL, tee->wait[i]);
	strv_free(tee->wait);
	tee->wait = NULL;
	tee->nwait = 0;
}

void logtee_release(struct stepd *st)
{
	struct logtee *tee = st->logtee;

	if (!tee)
		return;
	log_set_tee(-1, NULL, NULL);
	strv_free(tee->wait);
	free(tee);
	st->logtee = NULL;
}
