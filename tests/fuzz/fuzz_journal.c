/* fuzz_journal - the controller's journal read back at start-up, applied to a
 * real controller state (job_mgr/node_mgr on a small slurm.conf) as rotactld's
 * ctld_restore() does.  The first input byte picks the way in:
 *   even: the rest is the journal file as on disk; it is written to a
 *         temporary directory and read with journal_open() + journal_replay()
 *         (framing, checksums, torn tails: whatever the on-disk format is);
 *   odd:  the rest is a sequence of msgpack job_event records, decoded with the
 *         codec and applied one by one with job_event_apply() - hostile records
 *         that a checksum would not catch (a record written by a buggy or older
 *         controller, or a resynchronised reader landing on garbage).
 * Either way the state is then torn down, so a leak on any path shows. */
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "ctld/crontab.h"
#include "ctld/ctld.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/journal.h"
#include "ctld/node_mgr.h"
#include "ctld/resv.h"
#include "ctld/trigger.h"
#include "proto/mp.h"
#include "common/conf.h"
#include "common/log.h"
#include "sched/predict.h"
#include "fuzz.h"

/* What rotactld's main.c provides to the modules. */
int ctld_is_admin(const struct ctld *ctld, uid_t uid)
{
	return uid == 0;
}

void ctld_sched_kick(struct ctld *ctld)
{
}

void ctld_backfill_kick(struct ctld *ctld)
{
}

static char workdir[] = "/tmp/rota-fuzz-journal-XXXXXX";
static char *journal_path;
static struct conf *conf;
static struct event_base *base;

static void cleanup(void)
{
	unlink(journal_path);
	rmdir(workdir);
	free(journal_path);
	conf_destroy(conf);
	event_base_free(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rota_error err = {""};
	char *text;

	log_init("fuzz_journal", LOG_CRIT, NULL);
	if (!mkdtemp(workdir))
		abort();
	if (asprintf(&journal_path, "%s/journal", workdir) < 0)
		abort();
	if (asprintf(&text,
	             "ClusterName=fuzz\nStateSaveLocation=%s\nMaxArraySize=1001\n"
	             "NodeName=node[01-04] CPUs=4 RealMemory=4000\n"
	             "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE\n"
	             "PartitionName=small Nodes=node[01-02] MaxTime=60\n",
	             workdir) < 0)
		abort();
	if (conf_load_string(text, "fuzz.conf", &conf, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		abort();
	}
	free(text);
	base = event_base_new();
	atexit(cleanup);
	return 0;
}

static int apply_one(union job_event *ev, void *arg)
{
	job_event_apply(arg, ev);
	return 0; /* replay_one() in main.c: a misfit event is skipped */
}

static void replay_file(struct ctld *ctld, const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	int fd = open(journal_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) < 0)
		abort();
	if (journal_open(ctld->base, workdir, &ctld->journal, &err) < 0)
		abort();
	/* as ctld_state_restore: events are lent the kept texts */
	journal_set_texts(ctld->journal, job_mgr_texts(ctld->jobs));
	journal_replay(ctld->journal, apply_one, ctld, &err);
	journal_destroy(ctld->journal);
	ctld->journal = NULL;
}

static void replay_records(struct ctld *ctld, const uint8_t *data, size_t size)
{
	struct mp_reader r = {data, data + size};
	const uint8_t *start = data;

	while (r.p < r.end && mp_skip(&r) == 0) {
		struct rota_error err = {""};
		union job_event ev;
		if (job_event_decode((const char *)start, (size_t)(r.p - start), &ev,
		                     &err) == 0) {
			job_event_apply(ctld, &ev);
			job_event_release(&ev);
		}
		start = r.p;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctld ctld = {0};
	unsigned sel = fuzz_take_byte(&data, &size);

	ctld.conf = conf;
	ctld.base = base;
	ctld.hostname = "fuzz";
	ctld.replaying = 1;
	if (node_mgr_create(&ctld, &ctld.nodes) < 0 ||
	    job_mgr_create(&ctld, &ctld.jobs) < 0)
		abort();
	ctld.predict = predict_create(PREDICT_USER_MEAN2);
	for (size_t i = 0; i < 4; i++) {
		struct node *n = node_mgr_get(ctld.nodes, i);
		n->registered = 1;
		n->down = 0;
	}
	if (sel & 1)
		replay_records(&ctld, data, size);
	else
		replay_file(&ctld, data, size);
	predict_destroy(ctld.predict);
	/* made by the first EV_CRONTAB, EV_TRIGGER or EV_RESV */
	crontab_mgr_destroy(ctld.crontabs);
	trigger_mgr_destroy(ctld.triggers);
	resv_mgr_destroy(ctld.resvs);
	job_mgr_destroy(ctld.jobs);
	node_mgr_destroy(ctld.nodes);
	return 0;
}
