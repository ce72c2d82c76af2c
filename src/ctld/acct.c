/* acct.c - what rotadbd has stored, and the compaction it holds back. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "ctld/acct.h"
#include "ctld/ctld.h"
#include "ctld/journal.h"
#include "ctld/trigger.h"
#include "common/trigtype.h"
#include "ctld/state.h"
#include "common/common.h"

#define ACCT_SEQ_FILE "acct_seq"

int acct_enabled(const struct ctld *ctld)
{
	return conf_accounting(ctld->conf);
}

static char *seq_path(const struct ctld *ctld)
{
	return xasprintf("%s/" ACCT_SEQ_FILE, ctld->conf->state_save_location);
}

void acct_load(struct ctld *ctld)
{
	char *path = seq_path(ctld), buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		ctld->acct.stored = ctld->acct.saved = strtoull(buf, NULL, 10);
	}
	free(path);
}

void acct_stored(struct ctld *ctld, uint64_t seq)
{
	if (seq <= ctld->acct.stored)
		return;
	ctld->acct.stored = seq;
	if (ctld->acct.compact_asked && acct_may_compact(ctld)) {
		struct rota_error err = {""};
		ctld->acct.compact_asked = 0;
		if (ctld_state_compact_start(ctld, &err) < 0)
			log_info("SIGUSR1: no compaction now: %s", err.text);
	} else if (ctld->acct.held_back) {
		ctld_state_maybe_compact(ctld);
	}
}

/* Events MaxDBDMsgs allows to wait for rotadbd. */
static uint64_t backlog_max(const struct ctld *ctld)
{
	uint64_t d = 2 * (uint64_t)ctld->conf->max_job_count + 4 * ctld->conf->node_count;

	if (ctld->conf->max_dbd_msgs)
		return ctld->conf->max_dbd_msgs;
	return d > 10000 ? d : 10000;
}

int acct_may_compact(struct ctld *ctld)
{
	uint64_t last = journal_next_seq(ctld->journal) - 1;
	uint64_t behind;

	if (!acct_enabled(ctld) || ctld->acct.stored >= last) {
		ctld->acct.held_back = 0;
		return 1;
	}
	behind = last - ctld->acct.stored;
	if (behind > backlog_max(ctld)) {
		log_err("accounting: rotadbd has not stored the last %" PRIu64
		        " events (MaxDBDMsgs %" PRIu64 "): compacting the journal "
		        "anyway; it will be sent the jobs held now",
		        behind, backlog_max(ctld));
		trigger_note(ctld, TRIG_T_PRI_CTLD_ACCT_FULL); /* strigger -e */
		ctld->acct.held_back = 0;
		return 1;
	}
	if (!ctld->acct.held_back)
		log_debug("journal compaction waits for rotadbd (%" PRIu64
		          " events behind)",
		          behind);
	ctld->acct.held_back = 1;
	return 0;
}

void acct_tick(struct ctld *ctld, time_t now)
{
	char *path, *tmp, buf[32];
	int fd, len;

	if (ctld->acct.stored == ctld->acct.saved)
		return;
	path = seq_path(ctld);
	tmp = xasprintf("%s.new", path);
	len = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", ctld->acct.stored);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && write(fd, buf, (size_t)len) == len && close(fd) == 0 &&
	    rename(tmp, path) == 0) {
		ctld->acct.saved = ctld->acct.stored;
	} else {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
	}
	free(tmp);
	free(path);
}
