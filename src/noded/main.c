/* rotad - the node daemon: `rotad -f slurm.conf -N node01 [-L log] [-v]`,
 * `rotad -f slurm.conf --emulate LIST` (noded/emulate.h) or `rotad -C`.  Runs
 * in the foreground; see noded.h for the design. */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/fdlimit.h"
#include "common/sdnotify.h"
#include "common/spool.h"
#include "common/strv.h"
#include "proto/auth.h"
#include "proto/codec.h"
#include "proto/conf_files.h"
#include "proto/cred.h"
#include "proto/messages.h"
#include "noded/bcast.h"
#include "noded/ctld_link.h"
#include "noded/emulate.h"
#include "stepd/cgroup.h"
#include "noded/hwinfo.h"
#include "noded/gres_found.h"
#include "noded/reboot.h"
#include "common/cgroup_conf.h"
#include "common/conf_file.h"
#include "noded/noded.h"
#include "noded/stepd_mgr.h"
#include "common/common.h"

static void usage(FILE *out, int rc)
{
	fprintf(
	    out,
	    "usage: rotad -f slurm.conf -N nodename [-L logfile] [-v]\n"
	    "       rotad --conf-server HOST[:PORT][,HOST[:PORT]] [--conf-cache DIR]\n"
	    "             [--authinfo INFO] -N nodename ...\n"
	    "                  configless: slurm.conf from the controller\n"
	    "       rotad -f slurm.conf --emulate NODELIST [-L logfile] [-v]\n"
	    "                  serve those nodes of slurm.conf, jobs as timers\n"
	    "       rotad -C   print this machine's hardware and exit\n");
	exit(rc);
}

/* An absolute version of path (which may not exist yet).  Caller frees. */
static char *abs_path(const char *path)
{
	char cwd[PATH_MAX];

	if (!path || path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

/* Our argv strings, when they lie one after the other (they do as the kernel
 * lays them out): the room a step daemon's title may use. */
static void argv_area(int argc, char **argv, char **ret, size_t *ret_len)
{
	char *end = argv[0];

	for (int i = 0; i < argc; i++) {
		if (argv[i] != end)
			return;
		end = argv[i] + strlen(argv[i]) + 1;
	}
	*ret = argv[0];
	*ret_len = (size_t)(end - argv[0]);
}

static void parse_args(struct noded *nd, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"emulate", required_argument, NULL, 'E'},
	    {"conf-server", required_argument, NULL, 'S'},
	    {"conf-cache", required_argument, NULL, 'K'},
	    {"authinfo", required_argument, NULL, 'A'},
	    {NULL, 0, NULL, 0},
	};
	const char *conf = NULL, *log = NULL, *server = NULL, *cache = NULL;
	int opt;

	while ((opt = getopt_long(argc, argv, "CDf:hL:N:v", longopts, NULL)) != -1) {
		switch (opt) {
		case 'E':
			nd->emulate = xstrdup(optarg);
			break;
		case 'S':
			server = optarg;
			break;
		case 'K':
			cache = optarg;
			break;
		case 'A':
			nd->cl.auth_info = optarg;
			break;
		case 'C': {
			struct hwinfo hw;
			hwinfo_detect(&hw);
			hwinfo_print(&hw, stdout);
			exit(0);
		}
		case 'D': /* slurmd's "foreground": we always are */
			break;
		case 'f':
			conf = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'L':
			log = optarg;
			break;
		case 'N':
			nd->node_name = xstrdup(optarg);
			break;
		case 'v':
			nd->verbose++;
			break;
		default:
			usage(stderr, 1);
		}
	}
	if (optind != argc)
		usage(stderr, 1);
	/* -f, then --conf-server, then $SLURM_CONF, then $SLURM_CONF_SERVER */
	if (!conf && !server && !(getenv("SLURM_CONF") && *getenv("SLURM_CONF")))
		server = getenv("SLURM_CONF_SERVER");
	if (!conf && server && *server) {
		nd->cl.servers = server;
		nd->cache_dir = abs_path(cache ? cache : CONFIGLESS_CACHE_DEFAULT);
		nd->cl.cache_dir = nd->cache_dir;
	} else {
		nd->conf_path = abs_path(conf ? conf : conf_default_path());
	}
	nd->log_file = abs_path(log);
}

/* Check a launch's credential before anything is forked for it (proto/cred.h).
 * Only a launch the controller did sign, for this node, that came too late may
 * be reported back as failed, and not while that step runs here (an old one
 * replayed must not end the run it started): anything else may be an
 * attacker's and is only logged. */
static void on_launch(void *arg, const struct launch_req *req)
{
	struct noded *nd = arg;
	struct rota_error err = {""};
	time_t now = time(NULL);
	int rc;

	rc = cred_check(nd->auth, req, nd->node_name, now, 0, &err);
	if (rc == 0) {
		rc = cred_cache_add(nd->creds, req, now);
		if (rc == -EEXIST)
			errprintf(&err, "replayed");
		else if (rc == -ENOSPC)
			errprintf(&err, "not kept: %u credentials unexpired",
			          CRED_CACHE_MAX);
		else if (rc == -EIO) {
			/* kept in memory all the same */
			if (!nd->cred_state_failed)
				log_err("cannot write cred_state in %s", nd->spool);
			nd->cred_state_failed = 1;
			rc = 0;
		}
	}
	if (rc < 0) {
		log_err("JobId=%u StepId=%u launch refused: credential %s", req->job_id,
		        req->step_id, err.text);
		if (rc == -EKEYEXPIRED &&
		    !stepd_mgr_has(nd->stepds, req->job_id, req->step_id)) {
			struct step_complete sc = {.job_id = req->job_id,
			                           .step_id = req->step_id,
			                           .node_name = nd->node_name,
			                           .status = 1 << 8,
			                           .flags = STEP_DONE_LAUNCH_FAILED,
			                           .msg = "Job credential expired",
			                           .start_time = req->start_time};
			ctld_link_send_complete(nd->link, &sc);
		}
		return;
	}
	stepd_mgr_launch(nd->stepds, req);
}

static void on_signal(void *arg, const struct signal_req *req)
{
	struct noded *nd = arg;
	stepd_mgr_signal(nd->stepds, req);
}

static void on_stat(void *arg, const struct step_stat_req *req)
{
	struct noded *nd = arg;
	stepd_mgr_stat(nd->stepds, req);
}

static void on_stat_done(void *arg, const struct node_stat_resp *r)
{
	struct noded *nd = arg;
	ctld_link_reply(nd->link, MSG_NODE_STAT_RESP, r);
}

/* sattach: the step's stepd opens another I/O connection. */
static void on_attach(void *arg, const struct step_attach *req)
{
	struct noded *nd = arg;
	stepd_mgr_attach(nd->stepds, req);
}

/* sbcast: a block to write here as the job's user (noded/bcast.h). */
static void on_bcast(void *arg, const struct file_bcast *req)
{
	struct noded *nd = arg;
	node_bcast_write(nd->base, nd->link, req);
}

static void on_live_steps(void *arg, struct rota_u32v *jobs, struct rota_u32v *steps)
{
	struct noded *nd = arg;
	stepd_mgr_live(nd->stepds, jobs, steps);
}

static void on_step_done(void *arg, const struct step_complete *sc)
{
	struct noded *nd = arg;
	ctld_link_send_complete(nd->link, sc);
}

static void on_prolog_done(void *arg, const struct step_complete *sc)
{
	struct noded *nd = arg;
	ctld_link_send(nd->link, MSG_PROLOG_COMPLETE, sc);
}

static void on_shutdown(void *arg);

/* scontrol reboot's turn came: RebootProgram (noded/reboot.h). */
static void on_reboot(void *arg, const struct reboot_req *req)
{
	struct noded *nd = arg;
	struct node_reboot_opts o = {.program = nd->conf->reboot_program,
	                             .node_name = nd->node_name,
	                             .log_file = nd->log_file,
	                             .verbose = nd->verbose};

	node_reboot_run(&o);
}

static void start_again(struct noded *nd);

static void on_start_again(evutil_socket_t fd, short what, void *arg)
{
	start_again(arg);
}

/* The configuration changed: as slurmd on a reconfigure, the same program
 * started again in this process, reading the new files; running steps keep
 * running and are found again, with the jobs that ran here (their Epilog
 * to come: noded/here_file.h), as after any restart of rotad.  Not while
 * an Epilog runs (asked again each second), and not into files that do not
 * load: rotad goes on with the ones it has. */
static void start_again(struct noded *nd)
{
	struct rota_error err = {""};
	struct conf *probe = NULL;

	if (conf_load(nd->conf_path, &probe, &err) < 0) {
		log_err("the new configuration does not load (%s): rotad goes on with "
		        "the one it has",
		        err.text);
		return;
	}
	conf_destroy(probe);
	if (stepd_mgr_ending(nd->stepds)) {
		if (!nd->again_ev)
			nd->again_ev = evtimer_new(nd->base, on_start_again, nd);
		if (nd->again_ev) {
			struct timeval one = {1, 0};
			evtimer_add(nd->again_ev, &one);
		}
		return;
	}
	nd->reexec = 1;
	event_base_loopexit(nd->base, NULL);
}

static void on_conf_files(void *arg, const struct conf_files *files)
{
	struct noded *nd = arg;

	if (!nd->cl.servers || configless_refresh(&nd->cl, files) <= 0)
		return;
	log_info("the configuration changed: rotad starts again to apply it (running "
	         "steps keep running)");
	start_again(nd);
}

/* The digest of the files a local slurm.conf names (proto/conf_files.h);
 * 0, or -1 when one cannot be read (logged). */
static int local_digest(const struct conf *conf, uint8_t out[32])
{
	struct conf_files files = {0};
	struct rota_error err = {""};

	if (conf_files_collect(conf, &files, &err) < 0) {
		log_err("the configuration files cannot be read: %s", err.text);
		codec_release(&conf_files_type, &files);
		return -1;
	}
	conf_files_digest(&files, out);
	codec_release(&conf_files_type, &files);
	return 0;
}

/* scontrol reconfigure with a local slurm.conf: as slurmd, read it again.
 * Unchanged files change nothing; changed ones start rotad again (as a
 * configless one does). */
static void on_reconfig(void *arg)
{
	struct noded *nd = arg;
	uint8_t digest[32];

	if (nd->cl.servers || local_digest(nd->conf, digest) < 0 ||
	    !memcmp(digest, nd->conf_digest, sizeof(digest)))
		return;
	log_info("%s changed: rotad starts again to apply it (running steps keep "
	         "running)",
	         nd->conf_path);
	memcpy(nd->conf_digest, digest, sizeof(digest)); /* said once */
	start_again(nd);
}

/* Execute rotad again with the arguments it was started with.  Every
 * descriptor is closed on the exec: the new program opens its own. */
static void reexec(char **argv)
{
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		for (int fd = 3; fd < 1024; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	execv("/proc/self/exe", argv);
	log_err("cannot execute rotad again (%s): exiting; start it again by hand",
	        strerror(errno));
}

static const struct ctld_link_ops link_ops = {
    .launch = on_launch,
    .signal = on_signal,
    .stat = on_stat,
    .bcast = on_bcast,
    .attach = on_attach,
    .live_steps = on_live_steps,
    .shutdown = on_shutdown,
    .conf_files = on_conf_files,
    .reconfig = on_reconfig,
    .reboot = on_reboot,
};

static void on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct noded *nd = arg;

	log_info("signal %d: exiting, running steps keep running", (int)sig);
	event_base_loopexit(nd->base, NULL);
}

static void on_shutdown(void *arg)
{
	struct noded *nd = arg;

	log_info("shutdown requested by the controller: exiting, running steps keep "
	         "running");
	event_base_loopexit(nd->base, NULL);
}

/* SIGUSR2: reopen the log file (logrotate). */
static void on_usr2(evutil_socket_t sig, short what, void *arg)
{
	if (log_reopen() < 0)
		log_err("SIGUSR2: cannot reopen the log file");
}

/* SIGHUP: slurm.conf is not read again (restart rotad for that); a lost
 * controller connection is tried again now (`rota up` restarted it). */
static void on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct noded *nd = arg;

	log_info("SIGHUP: reconnecting to the controller if not connected "
	         "(restart rotad to re-read slurm.conf)");
	ctld_link_retry_now(nd->link);
	if (nd->emu)
		emulator_retry_now(nd->emu);
}

/* This node's spool (created, and our cwd). */
static void spool_setup(struct noded *nd)
{
	char host[256] = "";
	int rc;

	gethostname(host, sizeof(host) - 1);
	nd->spool = spool_dir_expand(nd->conf->slurmd_spool_dir, nd->node_name, host);
	if (!nd->spool)
		fatal("out of memory");
	if ((rc = spool_mkdir(nd->spool)) < 0)
		fatal("cannot create spool %s: %s", nd->spool, strerror(-rc));
	/* stepd sockets are named relative to the spool: paths may be too long */
	if (chdir(nd->spool) < 0)
		fatal("chdir %s: %s", nd->spool, strerror(errno));
}

static void noded_setup(struct noded *nd)
{
	struct rota_error err = {""};
	char host[256] = "";

	if (nd->cl.servers) {
		nd->cl.node_name = nd->emulate ? "" : nd->node_name;
		nd->conf_path = configless_fetch(&nd->cl);
	}
	if (conf_load(nd->conf_path, &nd->conf, &err) < 0)
		fatal("%s", err.text);
	if (nd->cl.servers)
		configless_conf_fix(&nd->cl, nd->conf);
	else
		local_digest(nd->conf, nd->conf_digest);
	gethostname(host, sizeof(host) - 1);
	if (!nd->log_file && nd->conf->slurmd_log_file) {
		/* SlurmdLogFile, with %n and %h as in Slurm */
		char *log =
		    spool_dir_expand(nd->conf->slurmd_log_file, nd->node_name, host);
		nd->log_file = abs_path(log);
		free(log);
		if (log_init("rotad", nd->verbose ? LOG_DEBUG : LOG_INFO, nd->log_file) <
		    0)
			fatal("cannot open log %s: %s", nd->log_file, strerror(errno));
	}
	if (!nd->emulate && !conf_node_find(nd->conf, nd->node_name))
		fatal("node %s is not in %s", nd->node_name, nd->conf_path);
	if (auth_create(nd->conf, AUTH_NEED_KEY, &nd->auth, &err) < 0)
		fatal("authentication: %s", err.text);
	if (!nd->emulate)
		spool_setup(nd);
	nd->base = event_base_new();
	if (!nd->base)
		fatal("event_base_new failed");
	signal(SIGPIPE, SIG_IGN);
	nd->sigterm_ev = evsignal_new(nd->base, SIGTERM, on_stop, nd);
	nd->sigint_ev = evsignal_new(nd->base, SIGINT, on_stop, nd);
	nd->sighup_ev = evsignal_new(nd->base, SIGHUP, on_hup, nd);
	nd->sigusr2_ev = evsignal_new(nd->base, SIGUSR2, on_usr2, nd);
	evsignal_add(nd->sigusr2_ev, NULL);
	evsignal_add(nd->sigterm_ev, NULL);
	evsignal_add(nd->sigint_ev, NULL);
	evsignal_add(nd->sighup_ev, NULL);
}

/* Have the C library load its NSS modules for users and groups now: the step
 * daemons are forks of this process, and each would otherwise load them for
 * its initgroups() (0.4 ms of CPU a job). */
static void nss_preload(void)
{
	gid_t groups[8];
	int n = 8;
	struct passwd *pw = getpwuid(0);

	getgrgid(0);
	if (pw)
		getgrouplist(pw->pw_name, pw->pw_gid, groups, &n);
	endpwent();
	endgrent();
}

/* cgroup.conf's ConstrainDevices (beside slurm.conf); a bad file is fatal,
 * as a bad gres.conf is. */
static int constrain_devices_read(const char *conf_path)
{
	char *path = conf_file_beside(conf_path, "cgroup.conf");
	struct cgroup_conf cc = {0};
	struct rota_error err = {""};

	if (!path || cgroup_conf_load(path, &cc, &err) < 0)
		fatal("%s", path ? err.text : "out of memory");
	if (cc.constrain_devices && geteuid() != 0)
		log_err("cgroup.conf: ConstrainDevices=yes, but rotad is not root: no "
		        "device cgroup, jobs may open every GRES device file");
	else if (cc.constrain_devices)
		log_info("cgroup.conf: ConstrainDevices=yes: jobs may open only their "
		         "GRES device files");
	free(path);
	return cc.constrain_devices;
}

static void noded_start(struct noded *nd)
{
	const struct conf_node *cn = conf_node_find(nd->conf, nd->node_name);
	struct stepd_mgr_opts o = {
	    .node_name = nd->node_name,
	    .spool = nd->spool,
	    .title = nd->title,
	    .title_len = nd->title_len,
	    .conf_path = nd->conf_path,
	    .conf = nd->conf,
	    .epilog = nd->conf->epilog,
	    .cluster = nd->conf->cluster_name,
	    .log_file = nd->log_file,
	    .verbose = nd->verbose > 1,
	    .done = on_step_done,
	    .prolog_done = on_prolog_done,
	    .stat_done = on_stat_done,
	    .arg = nd,
	};
	struct node_register reg;
	struct rota_error err = {""};

	if (nd->emulate) {
		if (emulator_create(nd->base, nd->conf, nd->auth, nd->emulate, &nd->emu,
		                    &err) < 0)
			fatal("%s", err.text);
		return;
	}
	nss_preload();
	cgroup_preload();
	nd->creds = cred_cache_create();
	/* in the spool (our cwd): a restarted rotad still refuses replays */
	if (cred_cache_persist(nd->creds, "cred_state", time(NULL), &err) < 0)
		log_err("launch credentials kept in memory only: %s", err.text);
	hwinfo_register_fill(cn, nd->conf->tmp_fs, nd->start_time, &reg);
	if (gres_found_detect(nd->conf_path, cn, &reg, &err) < 0)
		fatal("%s", err.text);
	if (*reg.gres)
		log_info("gres: %s", reg.gres);
	o.constrain_devices = constrain_devices_read(nd->conf_path);
	o.gres_devs = reg.gres_devs;
	o.ngres_devs = reg.gres_devs_count;
	nd->stepds = stepd_mgr_create(nd->base, &o);
	/* in the spool (our cwd) */
	nd->link = ctld_link_create(nd->base, nd->conf, nd->auth, &reg, "ctld_term",
	                            &link_ops, nd);
	/* the devices stay, for the step daemons (ConstrainDevices) */
	nd->gres_devs = reg.gres_devs;
	nd->ngres_devs = reg.gres_devs_count;
	reg.gres_devs = NULL;
	reg.gres_devs_count = 0;
	gres_found_release(&reg);
	stepd_mgr_scan(nd->stepds);
}

static void noded_destroy(struct noded *nd)
{
	emulator_destroy(nd->emu);
	ctld_link_destroy(nd->link);
	stepd_mgr_destroy(nd->stepds);
	codec_release_list(&gres_dev_info_type, nd->gres_devs, nd->ngres_devs);
	cred_cache_destroy(nd->creds);
	if (nd->sigterm_ev)
		event_free(nd->sigterm_ev);
	if (nd->sigint_ev)
		event_free(nd->sigint_ev);
	if (nd->sighup_ev)
		event_free(nd->sighup_ev);
	if (nd->sigusr2_ev)
		event_free(nd->sigusr2_ev);
	if (nd->again_ev)
		event_free(nd->again_ev);
	if (nd->base)
		event_base_free(nd->base);
	auth_destroy(nd->auth);
	conf_destroy(nd->conf);
	free(nd->conf_path);
	free(nd->cache_dir);
	configless_release(&nd->cl);
	free(nd->log_file);
	free(nd->node_name);
	free(nd->emulate);
	free(nd->spool);
}

int main(int argc, char **argv)
{
	struct noded nd = {0};
	/* taken before any fork: jobs must not see it (common/sdnotify.h) */
	char host[256] = "", *dot, *notify = sdnotify_take();

	nd.argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++)
		nd.argv[i] = xstrdup(argv[i]);
	parse_args(&nd, argc, argv);
	argv_area(argc, argv, &nd.title, &nd.title_len);
	if (!nd.node_name) {
		gethostname(host, sizeof(host) - 1);
		if ((dot = strchr(host, '.')))
			*dot = '\0';
		nd.node_name = xstrdup(host);
	}
	if (log_init("rotad", nd.verbose ? LOG_DEBUG : LOG_INFO, nd.log_file) < 0) {
		fprintf(stderr, "rotad: cannot open log %s: %s\n", nd.log_file,
		        strerror(errno));
		return 1;
	}
	nd.start_time = time(NULL);
	if (fdlimit_raise() < 0)
		log_err("cannot raise the open files limit: %s", strerror(errno));
	noded_setup(&nd);
	noded_start(&nd);
	if (!nd.emulate)
		log_info("rotad %s started for node %s (spool %s)", ROTA_NODED_VERSION,
		         nd.node_name, nd.spool);
	sdnotify_send(notify, "READY=1");
	event_base_dispatch(nd.base);
	if (!nd.reexec)
		sdnotify_send(notify, "STOPPING=1");
	noded_destroy(&nd);
	free(notify);
	if (nd.reexec)
		reexec(nd.argv); /* returns only when it failed */
	strv_free(nd.argv);
	log_info("rotad stopped");
	return nd.reexec ? 1 : 0;
}
