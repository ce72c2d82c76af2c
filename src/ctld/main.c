/* main.c - rotactld: options, start-up, the loop. */
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/arrayspec.h"
#include "common/fdlimit.h"
#include "common/sdnotify.h"
#include "common/conf.h"
#include "common/states.h"
#include "common/uid.h"
#include "ctld/bcast.h"
#include "ctld/crontab.h"
#include "ctld/trigger.h"
#include "common/trigtype.h"
#include "ctld/mail.h"
#include "ctld/acct.h"
#include "ctld/ctld.h"
#include "ctld/sched_pass.h"
#include "ctld/topo.h"
#include "ctld/reconfig.h"
#include "ctld/repl.h"
#include "ctld/resv.h"
#include "ctld/suspend.h"
#include "ctld/gang.h"
#include "ctld/state.h"
#include "proto/client.h"
#include "ctld/stats.h"
#include "ctld/step_stat.h"
#include "ctld/job_event.h"
#include "ctld/job_mgr.h"
#include "ctld/mcs_label.h"
#include "ctld/image.h"
#include "ctld/journal.h"
#include "ctld/assoc.h"
#include "ctld/listener.h"
#include "ctld/node_mgr.h"
#include "proto/auth.h"
#include "sched/predict.h"
#include "common/timefmt.h"
#include "common/common.h"

int ctld_is_admin(const struct ctld *ctld, uid_t uid)
{
	return uid == 0 || uid == ctld->slurm_uid || uid == getuid();
}

/* Passes are at least this far apart (Slurm's sched_min_interval, 2 ms): under a
 * flood of submissions and completions one pass serves many events. */
#define SCHED_MIN_INTERVAL_S 0.002

static void sched_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *ctld = arg;

	unsigned flags = ctld->sched_full ? SCHED_PASS_FULL : 0;

	ctld->sched_pending = 0;
	if (journal_error(ctld->journal))
		return; /* a start that cannot be recorded waits (tick_cb kicks) */
	ctld->sched_full = 0;
	sched_pass(ctld, time(NULL), flags);
	ctld->sched_last = time_mono();
}

static void backfill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *ctld = arg;

	if (journal_error(ctld->journal))
		return;
	if (!backfill_continue(ctld, time(NULL), 0))
		ctld_backfill_kick(ctld);
}

void ctld_backfill_kick(struct ctld *ctld)
{
	struct timeval now = {0, 0};

	if (ctld->bf_ev && ctld->bf_run)
		event_add(ctld->bf_ev, &now); /* after the I/O ready by then */
}

void ctld_sched_kick(struct ctld *ctld)
{
	double wait;

	if (ctld->replaying || ctld->standby || !ctld->sched_ev || ctld->sched_pending ||
	    journal_error(ctld->journal))
		return;
	ctld->sched_pending = 1;
	wait = ctld->sched_last + SCHED_MIN_INTERVAL_S - time_mono();
	if (wait <= 0) {
		event_active(ctld->sched_ev, 0, 0);
	} else {
		struct timeval tv = {0, (long)(wait * 1e6) + 1};
		event_add(ctld->sched_ev, &tv);
	}
}

/* Heap the requests' short-lived allocations grew and left free (a burst
 * of submissions, many at once) goes back to the system, once a second when
 * there is this much of it: the jobs themselves live in their slab. */
#define HEAP_TRIM_FREE (256u << 10)

static void heap_tick(size_t *free_after_trim)
{
	struct mallinfo2 mi = mallinfo2();

	/* free holes between live blocks stay counted after a trim has given
	 * their pages back: trim again only when more has been freed since */
	if (mi.fordblks >= *free_after_trim + HEAP_TRIM_FREE) {
		malloc_trim(0);
		*free_after_trim = mallinfo2().fordblks;
	} else if (mi.fordblks < *free_after_trim) {
		*free_after_trim = mi.fordblks;
	}
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ctld *ctld = arg;
	time_t now = time(NULL);

	if (ctld->standby) {
		/* nodes and jobs are the primary's to watch until we take over */
		repl_standby_tick(ctld, now);
		listener_tick(ctld->listener);
		return;
	}
	node_mgr_tick(ctld, now);
	job_mgr_tick(ctld, now);
	resv_tick(ctld, now);
	suspend_tick(ctld, now);
	gang_tick(ctld, now);
	trigger_tick(ctld, now);
	crontab_tick(ctld, now);
	mail_tick(ctld, now);
	ctld_state_tick(ctld, now);
	acct_tick(ctld, now);
	repl_tick(ctld, now);
	/* a pass over every pending job each second also re-evaluates
	 * time-based reasons (BeginTime, dependency +minutes, purged
	 * dependencies), frees forced releases and reaches the jobs beyond
	 * default_queue_depth */
	ctld->sched_full = 1;
	ctld_sched_kick(ctld);
	listener_tick(ctld->listener);
	job_list_tick(ctld, now);
	heap_tick(&ctld->heap_free_after_trim);
}

static void sync_stats(void *arg, uint64_t usec)
{
	struct ctld *ctld = arg;

	stats_sync(ctld->stats, usec);
}

/* SIGUSR1: compact the journal now, in a child process (as Redis's
 * BGREWRITEAOF); an admin's or a benchmark's way to choose the moment. */
static void compact_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rota_error err = {""};
	struct ctld *ctld = arg;

	if (!acct_may_compact(ctld)) {
		/* started once rotadbd has what it would drop (acct_stored) */
		ctld->acct.compact_asked = 1;
		log_info("SIGUSR1: the compaction waits for rotadbd");
	} else if (ctld_state_compact_start(ctld, &err) < 0) {
		log_info("SIGUSR1: no compaction now: %s", err.text);
	}
}

/* SIGHUP: read slurm.conf again, as scontrol reconfigure. */
static void hup_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rota_error err = {""};
	struct ctld *ctld = arg;

	sdnotify_reloading(ctld->notify_socket);
	if (ctld_reconfigure(ctld, &err) < 0)
		log_err("SIGHUP: slurm.conf not applied: %s", err.text);
	sdnotify_send(ctld->notify_socket, "READY=1");
}

/* SIGUSR2: reopen the log file (logrotate). */
static void reopen_cb(evutil_socket_t fd, short what, void *arg)
{
	if (log_reopen() < 0)
		log_err("SIGUSR2: cannot reopen the log file");
	else
		log_info("SIGUSR2: log file reopened");
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	log_info("caught signal %d, shutting down", (int)fd);
	event_base_loopbreak(arg);
}

static void usage(void)
{
	fprintf(stderr, "Usage: rotactld [-f slurm.conf] [-L logfile] [-v] [-D] [-T] "
	                "[-i controller-index -s state-dir]\n");
}

/* StateSaveLocation holds rotactld.sock, which every user must reach: made here
 * it is 0755 whatever the umask (the journal in it is 0600); an existing one is
 * left as the administrator made it, with a warning if others cannot enter. */
static void state_dir_prepare(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0) {
		if (chmod(dir, 0755) < 0)
			log_warn("chmod %s: %s", dir, strerror(errno));
		return;
	}
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    !(st.st_mode & S_IXOTH))
		log_warn("StateSaveLocation %s has mode %04o: users other than its owner "
		         "cannot reach rotactld.sock",
		         dir, (unsigned)(st.st_mode & 07777));
}

int main(int argc, char **argv)
{
	const char *conf_path = NULL, *logfile = NULL;
	struct conf *conf = NULL;
	struct rota_error err = {""};
	struct ctld ctld = {0};
	const char *state_dir = NULL;
	char *own_state_dir = NULL;
	struct event *sigterm, *sigint, *sigusr1, *sigusr2, *sighup;
	struct timeval one_sec = {1, 0};
	int level = LOG_INFO, opt, dump = 0, tcp_fd;
	long nofile;
	char host[256];

	while ((opt = getopt(argc, argv, "f:L:vDTi:s:h")) != -1) {
		switch (opt) {
		case 'i': /* which SlurmctldHost line we are: 0 the primary */
			ctld.ctld_index = strtoul(optarg, NULL, 10);
			break;
		case 's': /* a state directory of our own (a backup on the primary's
		           * host: rota up --standby) */
			state_dir = optarg;
			break;
		case 'f':
			conf_path = optarg;
			break;
		case 'L':
			logfile = optarg;
			break;
		case 'v':
			level = LOG_DEBUG;
			break;
		case 'D':
			break;
		case 'T':
			dump = 1;
			break;
		default:
			usage();
			return 1;
		}
	}
	log_init("rotactld", level, NULL);
	/* before anything is started that could inherit it */
	ctld.notify_socket = sdnotify_take();
	if (!conf_path)
		conf_path = conf_default_path();
	if (conf_load(conf_path, &conf, &err) < 0 || prio_tres_check(conf, &err) < 0)
		fatal("%s", err.text);
	if (ctld.ctld_index >= conf_ctld_count(conf))
		fatal("-i %zu: slurm.conf has %zu SlurmctldHost line(s)", ctld.ctld_index,
		      conf_ctld_count(conf));
	/* the socket clients look for; a backup with its own state directory
	 * serves it once it takes over */
	ctld.clients_path = client_ctld_socket_path(conf);
	/* a backup keeps its own journal: in StateSaveLocation/backupN unless
	 * told (-s), so that a StateSaveLocation shared with the primary works
	 * too, each controller writing its own files */
	if (!state_dir && ctld.ctld_index > 0)
		state_dir = own_state_dir =
		    xasprintf("%s/backup%zu", conf->state_save_location, ctld.ctld_index);
	if (state_dir) {
		free(conf->state_save_location);
		conf->state_save_location = xstrdup(state_dir);
		ctld.state_dir = state_dir;
	}
	if (dump) {
		struct conf_kv *kv;
		size_t n;
		conf_dump_kv(conf, &kv, &n);
		for (size_t i = 0; i < n; i++)
			printf("%-23s = %s\n", kv[i].key, kv[i].value);
		conf_kv_free(kv, n);
		conf_destroy(conf);
		free(ctld.clients_path);
		free(own_state_dir);
		free(ctld.notify_socket);
		return 0;
	}
	if (!logfile)
		logfile = conf->slurmctld_log_file;
	if (logfile && log_init("rotactld", level, logfile) < 0)
		fatal("cannot open log file %s", logfile);
	signal(SIGPIPE, SIG_IGN);
	/* many peers need many descriptors; big requests' memory goes back to the
	 * system when freed (allocations above 256 KiB are their own mappings,
	 * whatever glibc's dynamic threshold would have grown to) */
	nofile = fdlimit_raise();
	if (nofile < 0)
		log_err("cannot raise the open files limit: %s", strerror((int)-nofile));
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	mallopt(M_TRIM_THRESHOLD, 1 << 20);
	ctld.conf = conf;
	ctld.start_time = time(NULL);
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	ctld.hostname = xstrdup(conf_ctld_host(conf, ctld.ctld_index)
	                            ? conf_ctld_host(conf, ctld.ctld_index)
	                            : host);
	ctld.standby = ctld.ctld_index > 0;
	if (name_to_uid(conf->slurm_user ? conf->slurm_user : "root", &ctld.slurm_uid) <
	    0)
		ctld.slurm_uid = 0;
	ctld.base = event_base_new();
	/* two priorities: 0 for local clients' connections (listener.c), 1 for
	 * everything else */
	if (!ctld.base || event_base_priority_init(ctld.base, 2) < 0)
		fatal("cannot create the event loop");
	if (auth_create(conf, AUTH_NEED_KEY, &ctld.auth, &err) < 0)
		fatal("%s", err.text);
	node_mgr_create(&ctld, &ctld.nodes);
	if (ctld_topo_load(conf, ctld.nodes, &ctld.topo, &err) < 0)
		fatal("%s", err.text);
	ctld_conf_files_load(&ctld);
	job_mgr_create(&ctld, &ctld.jobs);
	ctld.assoc = assoc_mgr_create();
	ctld.resvs = resv_mgr_create();
	ctld.predict = predict_create(PREDICT_USER_MEAN2);
	ctld.learned = predict_create(PREDICT_LEARNED);
	if (!ctld.predict || !ctld.learned)
		fatal("out of memory");
	predict_set_correction(ctld.learned, PREDICT_CORRECT_REQUESTED);
	state_dir_prepare(conf->state_save_location);
	if ((tcp_fd = listener_bind_tcp(&ctld, &err)) < 0)
		fatal("%s", err.text);
	acct_load(&ctld);
	if (journal_open(ctld.base, conf->state_save_location, &ctld.journal, &err) < 0 ||
	    ctld_state_restore(&ctld, &err) < 0)
		fatal("state: %s", err.text);
	/* another controller may be serving (a backup that took over while we
	 * were down): then we stand by and follow it */
	if (conf_ctld_count(conf) > 1) {
		int leader = repl_find_leader(&ctld);
		if (leader >= 0 && !ctld.standby)
			log_warn("the controller at %s serves: standing by",
			         conf_ctld_addr(conf, (size_t)leader));
		if (leader >= 0)
			ctld.standby = 1;
		ctld.leader_index = leader >= 0 ? (size_t)leader : 0;
	}
	ctld.stats = stats_create(time(NULL));
	journal_on_sync(ctld.journal, sync_stats, &ctld);
	if (listener_create(&ctld, tcp_fd, &ctld.listener, &err) < 0)
		fatal("%s", err.text);
	ctld.sched_ev = event_new(ctld.base, -1, 0, sched_cb, &ctld);
	ctld.bf_ev = evtimer_new(ctld.base, backfill_cb, &ctld);
	ctld.tick_ev = event_new(ctld.base, -1, EV_PERSIST, tick_cb, &ctld);
	event_add(ctld.tick_ev, &one_sec);
	sigterm = evsignal_new(ctld.base, SIGTERM, stop_cb, ctld.base);
	sigint = evsignal_new(ctld.base, SIGINT, stop_cb, ctld.base);
	sigusr1 = evsignal_new(ctld.base, SIGUSR1, compact_cb, &ctld);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_add(sigusr1, NULL);
	sigusr2 = evsignal_new(ctld.base, SIGUSR2, reopen_cb, NULL);
	event_add(sigusr2, NULL);
	sighup = evsignal_new(ctld.base, SIGHUP, hup_cb, &ctld);
	event_add(sighup, NULL);
	log_info("rotactld started on port %u, cluster %s, %ld open files allowed%s",
	         conf->slurmctld_port, conf->cluster_name, nofile,
	         ctld.standby ? ", as a backup" : "");
	if (ctld.standby) {
		repl_standby_start(&ctld);
	} else {
		repl_serve_start(&ctld);
		/* strigger -A and -b: the primary (the first SlurmctldHost)
		 * serves, as Slurm's says at each start */
		if (ctld.ctld_index == 0)
			trigger_note(&ctld,
			             TRIG_T_PRI_CTLD_RES_OP | TRIG_T_PRI_CTLD_RES_CTRL);
	}
	ctld_sched_kick(&ctld);
	sdnotify_send(ctld.notify_socket, "READY=1");
	event_base_dispatch(ctld.base);
	if (!ctld.step_down)
		sdnotify_send(ctld.notify_socket, "STOPPING=1");

	if (journal_flush(ctld.journal) < 0) {
		/* a last chance for what only memory holds */
		ctld_state_retry(&ctld, time(NULL), 1);
		if (journal_error(ctld.journal))
			log_err("journal: state since the write failure is lost");
	}
	repl_destroy(&ctld);
	/* a primary's next start loads this instead of replaying the journal */
	if (!ctld.standby && !ctld.step_down && !journal_error(ctld.journal) &&
	    image_write(&ctld, &err) < 0)
		log_info("state image not written: %s", err.text);
	listener_destroy(ctld.listener);
	event_free(sigterm);
	event_free(sigint);
	event_free(sigusr1);
	event_free(sigusr2);
	event_free(sighup);
	event_free(ctld.sched_ev);
	backfill_abandon(&ctld);
	event_free(ctld.bf_ev);
	event_free(ctld.tick_ev);
	journal_destroy(ctld.journal);
	predict_destroy(ctld.predict);
	predict_destroy(ctld.learned);
	stats_destroy(ctld.stats);
	step_stats_destroy(ctld.step_stats);
	bcasts_destroy(ctld.bcasts);
	trigger_mgr_destroy(ctld.triggers);
	crontab_mgr_destroy(ctld.crontabs);
	job_list_bufs_free(&ctld);
	free(ctld.pass_jobs);
	job_mgr_destroy(ctld.jobs);
	ctld_topo_destroy(ctld.topo);
	node_mgr_destroy(ctld.nodes);
	assoc_mgr_destroy(ctld.assoc);
	mcs_ctld_release(&ctld);
	resv_mgr_destroy(ctld.resvs);
	auth_destroy(ctld.auth);
	event_base_free(ctld.base);
	free(ctld.hostname);
	free(ctld.clients_path);
	free(own_state_dir);
	ctld_reconfig_release(&ctld);
	conf_destroy((struct conf *)ctld.conf); /* the last one read */
	if (ctld.step_down) {
		/* every descriptor is close-on-exec: the new image starts clean,
		 * finds the controller that serves, and follows it; the same
		 * service, it tells the manager when it serves again */
		if (ctld.notify_socket)
			setenv("NOTIFY_SOCKET", ctld.notify_socket, 1);
		execv("/proc/self/exe", argv);
		fatal("cannot start again to stand by: %s", strerror(errno));
	}
	free(ctld.notify_socket);
	return 0;
}
