/* rota.c - `rota up|down|status`: a whole cluster on localhost in one directory.
 *
 * DESIGN: everything lives under DIR: slurm.conf and slurm.key (written once,
 * reused on every later `up`, so state survives restarts), state/ (rotactld's
 * StateSaveLocation and its unix socket), spool/, log/ and run/<daemon>.pid.
 * Daemons are started detached (setsid, stdio to log/<daemon>.out) with
 * SLURM_CONF and ROTA_CLUSTER_DIR in their environment; the latter marks every
 * process of this cluster (stepds inherit it from rotad) so that `down` can find
 * them after their parents are gone.  A pid file only counts while the process it
 * names is alive and its command line mentions this cluster's slurm.conf (pids
 * get reused).  `up` on a directory where some daemons died starts just those.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/rota_gpus.h"
#include "cli/rota_netns.h"
#include "cli/eff.h"
#include "common/conf.h"
#include "common/spool.h"
#include "common/states.h"
#include "common/strv.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/messages.h"
#include "proto/net.h"
#include "common/common.h"

#define ROTA_MAX_NODES    512
#define ROTA_UP_TIMEOUT_S 30
#define ROTA_DOWN_WAIT_MS 10000
#define ROTA_POLL_MS      50
/* While a start is young, ask this often: a restarted controller answers in
 * tens of ms and its nodes register a few ms after, so a backoff from the
 * first try would add its own wait to each (a refused connection costs tens
 * of µs, a ping a fraction of a ms). */
#define ROTA_POLL_FAST_MS  2
#define ROTA_POLL_FAST_FOR 500 /* ms */
#define ROTA_PORT_LOW      10000
#define ROTA_LOG_TAIL      20
#define ROTA_MAX_PROCS     65536

struct rota_opts {
	const char *dir;
	uint32_t nodes;
	uint32_t cpus;
	uint64_t mem;
	const char *partition;
	uint32_t gpus; /* --gpus: GPUs per node (cli/rota_gpus.h) */
	uint32_t timeout;
	const char *munge_socket; /* AuthType=auth/munge through this munged */
	int standby;              /* --standby: a backup controller as well */
	int netns;                /* --netns: hosts as namespaces (rota_netns.h) */
};

/* One daemon of the cluster: "rotactld", "rotadbd" or "rotad-node01". */
struct daemon {
	char *name;
	char *node;        /* NULL for the controller and rotadbd */
	int dbd;           /* rotadbd (AccountingStorageType=.../slurmdbd) */
	int restd;         /* rotarestd: REST on DIR/run/rotarestd.sock */
	size_t ctld_index; /* a controller: its SlurmctldHost line (0 primary) */
	pid_t pid;         /* 0 when not running */
	int started;       /* started by this `up` */
};

struct cluster {
	char *dir;       /* absolute */
	char *conf_path; /* DIR/slurm.conf */
	char *bin_dir;   /* where rotactld/rotad live */
	struct conf *conf;
	struct daemon *daemons;
	size_t daemon_count;
	struct rota_netns *netns; /* NULL unless DIR/netns.conf */
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: rota up --dir DIR [--nodes N] [--cpus C] [--mem MB] "
	    "[--partition NAME] [--gpus N] [--timeout SECS] [--munge-socket PATH] "
	    "[--standby]\n"
	    "       rota up --netns --dir DIR [--nodes N] [--cpus C] [--mem MB]\n"
	    "       rota down --dir DIR\n"
	    "       rota status --dir DIR\n"
	    "       rota env --dir DIR\n"
	    "       rota exec --dir DIR [--host HOST] -- COMMAND [ARG]...\n"
	    "       rota eff JOBID\n"
	    "\n"
	    "up      start a controller and N node daemons on this host, all state\n"
	    "        in DIR (slurm.conf is written on the first up, then reused);\n"
	    "        prints shell exports: eval \"$(rota up --dir DIR)\"\n"
	    "down    stop every process of the cluster in DIR\n"
	    "status  show which daemons of DIR are running\n"
	    "env     print the exports of `up` without starting anything\n"
	    "exec    run COMMAND on a host of a --netns cluster (default control)\n"
	    "eff     a job's CPU, memory and time efficiency (seff's figures)\n"
	    "\n"
	    "up defaults: --nodes 4, --cpus <online cpus, at least 2>, --mem 2048,\n"
	    "--partition debug, --timeout 30.  --gpus N gives each node N GPUs (files\n"
	    "under DIR/dev, DIR/gres.conf) and a partition gpu.\n"
	    "--netns (root): the tutorial's hosts control, node01.. in network\n"
	    "namespaces on a bridge, each with its own munged; rota down removes\n"
	    "them.\n"
	    "Also: rota sbatch|srun|squeue|... ARGS\n");
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- files ---- */

static int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s && rc == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			rc = -errno;
		*s = '/';
	}
	if (rc == 0 && mkdir(p, mode) < 0 && errno != EEXIST)
		rc = -errno;
	free(p);
	return rc;
}

/* Read a whole small file (NUL-separated /proc files included); NULL on error.
 * *ret_len gets the length.  Caller frees. */
static char *read_small_file(const char *path, size_t max, size_t *ret_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = xmalloc(max + 1);
	while (len < max && (n = read(fd, buf + len, max - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	return buf;
}

/* Does the NUL-separated list buf[0..len) hold an entry equal to s? */
static int nul_list_has(const char *buf, size_t len, const char *s)
{
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		if (!strcmp(buf + i, s))
			return 1;
	}
	return 0;
}

/* ---- processes ---- */

/* State letter of a process from /proc/PID/stat ('\0' if gone); also its parent,
 * session and start time when the pointers are non-NULL. */
static char proc_stat(pid_t pid, pid_t *ppid, pid_t *sid, unsigned long long *start)
{
	char path[64], *buf, *p, state = '\0';
	int ppid_v = 0, pgrp = 0, sid_v = 0;
	unsigned long long start_v = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf = read_small_file(path, 4096, NULL);
	if (!buf)
		return '\0';
	p = strrchr(buf, ')'); /* comm may contain anything */
	if (p && sscanf(p + 1,
	                " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
	                "%*d %*d %*d %*d %llu",
	                &state, &ppid_v, &pgrp, &sid_v, &start_v) >= 4) {
		if (ppid)
			*ppid = ppid_v;
		if (sid)
			*sid = sid_v;
		if (start)
			*start = start_v;
	}
	free(buf);
	return state;
}

static int proc_alive(pid_t pid)
{
	char st = proc_stat(pid, NULL, NULL, NULL);

	return st != '\0' && st != 'Z' && st != 'X';
}

/* Is pid a live process of this cluster: a rota* program with conf_path as an
 * argument, or (when marker) one whose environment holds marker? */
static int proc_is_ours(pid_t pid, const char *conf_path, const char *marker)
{
	char path[64], *buf;
	size_t len = 0;
	int ours = 0;

	if (pid <= 0 || !proc_alive(pid))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	buf = read_small_file(path, 65536, &len);
	if (buf && len) {
		const char *base = strrchr(buf, '/');

		base = base ? base + 1 : buf;
		ours = !strncmp(base, "rota", 4) && nul_list_has(buf, len, conf_path);
	}
	free(buf);
	if (ours || !marker)
		return ours;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	buf = read_small_file(path, 1 << 20, &len);
	if (buf && nul_list_has(buf, len, marker))
		ours = 1;
	free(buf);
	return ours;
}

/* Reap pid if it is our child; returns 1 if it has exited. */
static int child_exited(pid_t pid)
{
	int status;
	pid_t r = waitpid(pid, &status, WNOHANG);

	if (r == pid)
		return 1;
	return r < 0 && errno == ECHILD ? !proc_alive(pid) : 0;
}

/* Wait until none of pids[0..n) is alive, or deadline.  Returns 1 if all gone. */
static int wait_gone(const pid_t *pids, size_t n, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	for (;;) {
		size_t alive = 0;

		for (size_t i = 0; i < n; i++) {
			if (pids[i] > 0 && !child_exited(pids[i]))
				alive++;
		}
		if (!alive)
			return 1;
		if (now_ms() >= deadline)
			return 0;
		sleep_ms(ROTA_POLL_MS);
	}
}

/* ---- the cluster object ---- */

static char *self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

static struct cluster *cluster_create(const char *dir)
{
	struct cluster *c = xcalloc(1, sizeof(*c));
	char buf[PATH_MAX];

	if (realpath(dir, buf))
		c->dir = xstrdup(buf);
	else
		c->dir = xstrdup(dir);
	c->conf_path = xasprintf("%s/slurm.conf", c->dir);
	c->bin_dir = self_dir();
	if (rota_netns_load(c->dir, &c->netns) < 0)
		c->netns = NULL;
	return c;
}

static void cluster_destroy(struct cluster *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->daemon_count; i++) {
		free(c->daemons[i].name);
		free(c->daemons[i].node);
	}
	free(c->daemons);
	rota_netns_destroy(c->netns);
	conf_destroy(c->conf);
	free(c->dir);
	free(c->conf_path);
	free(c->bin_dir);
	free(c);
}

static char *cluster_marker(const struct cluster *c)
{
	return xasprintf("ROTA_CLUSTER_DIR=%s", c->dir);
}

static char *pid_path(const struct cluster *c, const char *name)
{
	return xasprintf("%s/run/%s.pid", c->dir, name);
}

/* The pid recorded for name if that process is alive and ours, else 0. */
static pid_t pidfile_live(const struct cluster *c, const char *name)
{
	char *path = pid_path(c, name), *buf = read_small_file(path, 64, NULL);
	long v = buf ? strtol(buf, NULL, 10) : 0;
	pid_t pid = 0;

	if (v > 0 && v < INT_MAX && proc_is_ours((pid_t)v, c->conf_path, NULL))
		pid = (pid_t)v;
	free(buf);
	free(path);
	return pid;
}

static int pidfile_write(const struct cluster *c, const char *name, pid_t pid)
{
	char *path = pid_path(c, name);
	FILE *f = fopen(path, "we");
	int rc = 0;

	if (!f || fprintf(f, "%d\n", (int)pid) < 0)
		rc = -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "rota: error: write %s: %s\n", path, strerror(errno));
	free(path);
	return rc;
}

static void cluster_add_daemon(struct cluster *c, const char *name, const char *node)
{
	struct daemon *d;

	c->daemons = xrealloc(c->daemons, (c->daemon_count + 1) * sizeof(*c->daemons));
	d = &c->daemons[c->daemon_count++];
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	d->node = xstrdup(node);
	d->pid = pidfile_live(c, name);
}

static int cluster_has_dbd(const struct cluster *c)
{
	return conf_accounting(c->conf);
}

/* Load slurm.conf and list the daemons it implies. */
static int cluster_load(struct cluster *c)
{
	struct rota_error err = {""};

	if (conf_load(c->conf_path, &c->conf, &err) < 0) {
		fprintf(stderr, "rota: error: %s\n", err.text);
		return -1;
	}
	cluster_add_daemon(c, "rotactld", NULL);
	/* the backups: one per SlurmctldHost line after the first, each with a
	 * state directory of its own (on one host they would share one) */
	for (size_t i = 1; i < conf_ctld_count(c->conf); i++) {
		char *name = xasprintf("rotactld-backup%zu", i);

		cluster_add_daemon(c, name, NULL);
		c->daemons[c->daemon_count - 1].ctld_index = i;
		free(name);
	}
	/* the accounting daemon, once the controller answers */
	if (cluster_has_dbd(c)) {
		cluster_add_daemon(c, "rotadbd", NULL);
		c->daemons[c->daemon_count - 1].dbd = 1;
	}
	for (size_t i = 0; i < c->conf->node_count; i++) {
		char *name = xasprintf("rotad-%s", c->conf->nodes[i].name);

		cluster_add_daemon(c, name, c->conf->nodes[i].name);
		free(name);
	}
	/* REST, once the controller answers */
	cluster_add_daemon(c, "rotarestd", NULL);
	c->daemons[c->daemon_count - 1].restd = 1;
	return 0;
}

/* ---- writing a new cluster directory ---- */

/* Is port free to listen on 127.0.0.1?  Kept bound in *ret_fd when ret_fd. */
static int port_free(uint16_t port, int *ret_fd)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, ok;

	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (ok && ret_fd)
		*ret_fd = fd;
	else
		close(fd);
	return ok;
}

/* Lowest port of the kernel's ephemeral range: outgoing connections take their
 * local ports from there, so our listening ports stay below it. */
static uint16_t ephemeral_low(void)
{
	char *buf = read_small_file("/proc/sys/net/ipv4/ip_local_port_range", 64, NULL);
	long low = buf ? strtol(buf, NULL, 10) : 32768;

	free(buf);
	if (low <= ROTA_PORT_LOW + 2 * ROTA_MAX_NODES || low > 65535)
		low = 32768;
	return (uint16_t)low;
}

/* Find count consecutive free ports below the ephemeral range.  The ports stay
 * bound (fds[0..count)) until the caller closes them, so later searches in the
 * same run skip them.  Returns the first port or 0. */
static uint16_t ports_find(uint32_t count, int *fds)
{
	uint16_t high = ephemeral_low();
	uint32_t span = (uint32_t)(high - ROTA_PORT_LOW) - count;

	for (int attempt = 0; attempt < 200; attempt++) {
		uint16_t base = (uint16_t)(ROTA_PORT_LOW + (uint32_t)random() % span);
		uint32_t got = 0;

		while (got < count && port_free((uint16_t)(base + got), &fds[got]))
			got++;
		if (got == count)
			return base;
		for (uint32_t i = 0; i < got; i++)
			close(fds[i]);
	}
	return 0;
}

static char *node_range(uint32_t nodes, uint32_t first, uint32_t last)
{
	int width = nodes < 100 ? 2 : nodes < 1000 ? 3 : 4;

	if (first == last)
		return xasprintf("node%0*u", width, first);
	return xasprintf("node[%0*u-%0*u]", width, first, width, last);
}

static int conf_write(const struct cluster *c, const struct rota_opts *o,
                      const char *host, const uint16_t *ports)
{
	char *nodes = node_range(o->nodes, 1, o->nodes);
	char *tmp = xasprintf("%s.tmp", c->conf_path);
	FILE *f = fopen(tmp, "we");
	int rc = 0;

	if (!f) {
		fprintf(stderr, "rota: error: create %s: %s\n", tmp, strerror(errno));
		rc = -1;
		goto out;
	}
	fprintf(f,
	        "# generated by rota up\n"
	        "ClusterName=rota\n"
	        "SlurmctldHost=%s(127.0.0.1)\n"
	        "SlurmctldPort=%u\n"
	        "SlurmdPort=%u\n"
	        "StateSaveLocation=%s/state\n"
	        "SlurmdSpoolDir=%s/spool/%%n\n"
	        "SlurmctldLogFile=%s/log/rotactld.log\n"
	        "SlurmdLogFile=%s/log/rotad-%%n.log\n"
	        "AccountingStorageType=accounting_storage/slurmdbd\n",
	        host, ports[0], ports[1], c->dir, c->dir, c->dir, c->dir);
	/* a backup controller beside the primary: another loopback address */
	if (o->standby)
		fprintf(f, "SlurmctldHost=%s-backup(127.0.0.2)\nSlurmctldTimeout=10\n",
		        host);
	if (o->munge_socket)
		fprintf(f, "AuthType=auth/munge\nAuthInfo=socket=%s\n", o->munge_socket);
	else
		fprintf(f, "AuthType=auth/slurm\n");
	/* REST over TCP: tokens from scontrol token, signed with this key */
	fprintf(f, "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=%s/jwt_hs256.key\n",
	        c->dir);
	fprintf(f, "SchedulerType=sched/backfill\n"
	           "SelectType=select/cons_tres\n"
	           "SelectTypeParameters=CR_Core_Memory\n"
	           "MinJobAge=300\n"
	           "SlurmdTimeout=30\n"
	           "KillWait=5\n"
	           "ReturnToService=2\n"
	           "PrologFlags=Contain\n");
	if (o->gpus)
		fprintf(f, "GresTypes=gpu\n");
	if (o->nodes == 1)
		fprintf(f, "NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%u",
		        nodes, host, ports[2]);
	else
		fprintf(f, "NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=[%u-%u]",
		        nodes, host, ports[2], ports[2] + o->nodes - 1);
	fprintf(f, " CPUs=%u RealMemory=%llu", o->cpus, (unsigned long long)o->mem);
	if (o->gpus)
		fprintf(f, " Gres=gpu:%u", o->gpus);
	fprintf(f, " State=UNKNOWN\n");
	fprintf(f, "PartitionName=%s Nodes=%s Default=YES MaxTime=01:00:00 State=UP\n",
	        o->partition, nodes);
	if (o->gpus && strcmp(o->partition, "gpu"))
		fprintf(f, "PartitionName=gpu Nodes=%s MaxTime=01:00:00 State=UP\n",
		        nodes);
	if (o->gpus && rota_gpus_setup(c->dir, nodes, o->gpus) < 0) {
		fclose(f);
		unlink(tmp);
		rc = -1;
		goto out;
	}
	if (fclose(f) != 0 || rename(tmp, c->conf_path) < 0) {
		fprintf(stderr, "rota: error: write %s: %s\n", c->conf_path,
		        strerror(errno));
		rc = -1;
	}
out:
	free(tmp);
	free(nodes);
	return rc;
}

/* Write slurm.key and slurm.conf into a new cluster directory. */
static int cluster_init(const struct cluster *c, const struct rota_opts *o)
{
	struct rota_error err = {""};
	char host[256] = "localhost", *key = xasprintf("%s/slurm.key", c->dir);
	char *jwt_key = xasprintf("%s/jwt_hs256.key", c->dir);
	int fds[2 + ROTA_MAX_NODES], rc = -1;
	uint16_t ports[3];

	srandom((unsigned)(getpid() ^ time(NULL)));
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (!(ports[0] = ports_find(1, &fds[0])))
		goto no_ports;
	if (!(ports[1] = ports_find(1, &fds[1]))) {
		close(fds[0]);
		goto no_ports;
	}
	if (!(ports[2] = ports_find(o->nodes, &fds[2]))) {
		close(fds[0]);
		close(fds[1]);
		goto no_ports;
	}
	for (uint32_t i = 0; i < 2 + o->nodes; i++)
		close(fds[i]);
	unlink(key); /* a stale key from an interrupted first up */
	unlink(jwt_key);
	if (auth_key_generate(key, &err) < 0 || auth_key_generate(jwt_key, &err) < 0) {
		fprintf(stderr, "rota: error: %s\n", err.text);
		goto out;
	}
	rc = conf_write(c, o, host, ports);
	goto out;
no_ports:
	fprintf(stderr, "rota: error: no free TCP ports on 127.0.0.1\n");
out:
	free(key);
	free(jwt_key);
	return rc;
}

/* ---- starting daemons ---- */

static void child_exec(const struct cluster *c, const struct daemon *d, char **argv)
{
	char *out = xasprintf("%s/log/%s.out", c->dir, d->name);
	sigset_t none;
	int fd;

	setsid();
	if (chdir(c->dir) < 0)
		_exit(127);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (close_range(3, ~0U, 0) < 0) {
		for (int i = 3; i < 1024; i++)
			close(i);
	}
	if (c->netns &&
	    rota_netns_enter(c->netns, d->node ? d->node : ROTA_NETNS_CTLD_HOST) < 0)
		_exit(126);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	execv(argv[0], argv);
	fprintf(stderr, "rota: error: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int daemon_start(struct cluster *c, struct daemon *d)
{
	char *prog = xasprintf("%s/%s", c->bin_dir,
	                       d->node    ? "rotad"
	                       : d->dbd   ? "rotadbd"
	                       : d->restd ? "rotarestd"
	                                  : "rotactld");
	char idx[24], *state = xasprintf("%s/state-backup%zu", c->dir, d->ctld_index);
	char *log = xasprintf("%s/log/%s.log", c->dir, d->name);
	char *urls = xasprintf("%s/run/rotarestd.url", c->dir);
	char *sock = xasprintf("unix:%s/run/rotarestd.sock", c->dir);
	char *argv[] = {prog,    "-f", c->conf_path, d->node ? "-N" : NULL,
	                d->node, NULL, NULL,         NULL,
	                NULL,    NULL, NULL};
	pid_t pid;
	int rc = 0;

	if (d->restd) {
		/* the unix socket for this host's users, TCP (JWT) on a free port */
		argv[3] = "-L";
		argv[4] = log;
		argv[5] = "-U";
		argv[6] = urls;
		argv[7] = sock;
		argv[8] = "127.0.0.1:0";
	} else if (d->dbd) {
		argv[3] = "-L";
		argv[4] = log;
	} else if (d->ctld_index) {
		snprintf(idx, sizeof(idx), "%zu", d->ctld_index);
		argv[3] = "-i";
		argv[4] = idx;
		argv[5] = "-s";
		argv[6] = state;
		argv[7] = "-L"; /* SlurmctldLogFile is the primary's */
		argv[8] = log;
	}
	if (access(prog, X_OK) < 0) {
		fprintf(stderr, "rota: error: %s: %s (run make first)\n", prog,
		        strerror(errno));
		rc = -1;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rota: error: fork: %s\n", strerror(errno));
		rc = -1;
		goto out;
	}
	if (pid == 0)
		child_exec(c, d, argv);
	d->pid = pid;
	d->started = 1;
	rc = pidfile_write(c, d->name, pid);
out:
	free(prog);
	free(state);
	free(log);
	free(urls);
	free(sock);
	return rc;
}

/* Terminate the given daemons: SIGTERM, up to wait_ms, then SIGKILL. */
static void daemons_stop(struct daemon *ds, size_t n, int only_started, int wait_ms)
{
	pid_t *pids = xcalloc(n ? n : 1, sizeof(*pids));

	for (size_t i = 0; i < n; i++) {
		if (ds[i].pid > 0 && (!only_started || ds[i].started)) {
			pids[i] = ds[i].pid;
			kill(pids[i], SIGTERM);
		}
	}
	if (!wait_gone(pids, n, wait_ms)) {
		for (size_t i = 0; i < n; i++) {
			if (pids[i] > 0 && !child_exited(pids[i]))
				kill(pids[i], SIGKILL);
		}
		wait_gone(pids, n, 2000);
	}
	for (size_t i = 0; i < n; i++) {
		if (pids[i] > 0)
			ds[i].pid = 0;
	}
	free(pids);
}

/* ---- waiting for the cluster ---- */

/* The first URL rotarestd wrote that starts with prefix ("http:", "unix:"),
 * malloc'd; NULL when it has not written them (not started, or not yet). */
static char *rest_url(const struct cluster *c, const char *prefix)
{
	char *path = xasprintf("%s/run/rotarestd.url", c->dir), line[512], *url = NULL;
	FILE *f = fopen(path, "re");

	while (f && !url && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, prefix, strlen(prefix)))
			url = xstrdup(line);
	}
	if (f)
		fclose(f);
	free(path);
	return url;
}

/* 1 when the controller answers and every configured node is up, 0 if not yet. */
static int cluster_ready(const struct cluster *c, int ctld_only, char *why,
                         size_t why_len)
{
	struct rota_error err = {""};
	struct empty_msg req = {0};
	struct node_info_resp *resp;
	uint16_t type = 0;
	void *body = NULL;
	size_t ok = 0;
	int fd, ready = 0;

	fd = client_connect(c->conf, NULL, NULL, 0, &err);
	if (fd < 0) {
		snprintf(why, why_len, "controller not answering (%s)", err.text);
		return 0;
	}
	if (net_rpc(fd, MSG_PING_REQ, &req, &type, &body, 2000, &err) < 0 ||
	    type != MSG_PING_RESP) {
		snprintf(why, why_len, "controller did not answer a ping");
		goto out;
	}
	msg_body_free(type, body);
	body = NULL;
	snprintf(why, why_len, "controller answers");
	if (ctld_only) {
		ready = 1;
		goto out;
	}
	if (net_rpc(fd, MSG_NODE_INFO_REQ, &req, &type, &body, 2000, &err) < 0 ||
	    type != MSG_NODE_INFO_RESP) {
		snprintf(why, why_len, "controller did not answer a node query");
		goto out;
	}
	resp = body;
	for (uint32_t i = 0; i < resp->nodes_count; i++) {
		uint32_t st = resp->nodes[i].state, base = st & NODE_STATE_BASE;

		if (!(st & NODE_NO_RESPOND) && base != NODE_UNKNOWN && base != NODE_DOWN)
			ok++;
	}
	snprintf(why, why_len, "%zu of %zu nodes up", ok, c->conf->node_count);
	ready = ok == c->conf->node_count && ok > 0;
	if (ready && cluster_has_dbd(c)) {
		/* a socket left by a rotadbd that was killed stays: connect */
		char *sock = client_dbd_socket_path(c->conf);
		int dfd = net_connect_unix(sock, &err);
		ready = dfd >= 0;
		if (dfd >= 0)
			close(dfd);
		else
			snprintf(why, why_len, "rotadbd not answering");
		free(sock);
	}
	if (ready) {
		char *url = rest_url(c, "unix:");

		ready = url != NULL;
		if (!url)
			snprintf(why, why_len, "rotarestd not listening yet");
		free(url);
	}
out:
	msg_body_free(type, body);
	close(fd);
	return ready;
}

/* Name of a daemon we started that has exited, or NULL. */
static const char *cluster_dead_daemon(struct cluster *c)
{
	for (size_t i = 0; i < c->daemon_count; i++) {
		struct daemon *d = &c->daemons[i];

		if (d->pid > 0 && child_exited(d->pid))
			return d->name;
	}
	return NULL;
}

static void file_tail(const char *path, int lines)
{
	char *buf = xmalloc(65537), *p;
	off_t size;
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		goto out;
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > 65536 ? size - 65536 : 0, SEEK_SET);
	while (len < 65536 && (n = read(fd, buf + len, 65536 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (!len)
		goto out;
	buf[len] = '\0';
	p = buf + len;
	if (p[-1] == '\n')
		p--;
	while (p > buf && lines > 0) {
		if (*--p == '\n')
			lines--;
	}
	if (*p == '\n')
		p++;
	fprintf(stderr, "==> %s <==\n%s%s", path, p, buf[len - 1] != '\n' ? "\n" : "");
out:
	free(buf);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tail of every log file of the cluster, on stderr. */
static void cluster_logs_tail(const struct cluster *c)
{
	char *dir = xasprintf("%s/log", c->dir), **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *dp = opendir(dir);

	while (dp && (de = readdir(dp)) != NULL && n < 4096) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xasprintf("%s/%s", dir, de->d_name);
	}
	if (dp)
		closedir(dp);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		file_tail(names[i], ROTA_LOG_TAIL);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* Wait until the controller answers (ctld_only) or the whole cluster is up. */
static int cluster_wait_ready(struct cluster *c, int ctld_only, long long deadline,
                              uint32_t timeout_s)
{
	char why[ROTA_ERROR_TEXT + 64] = "not started";
	const char *dead;
	long long fast_until = now_ms() + ROTA_POLL_FAST_FOR;
	int wait_ms = ROTA_POLL_FAST_MS;

	for (;;) {
		if ((dead = cluster_dead_daemon(c)) != NULL) {
			fprintf(stderr, "rota: error: %s exited during start-up\n", dead);
			return -1;
		}
		if (cluster_ready(c, ctld_only, why, sizeof(why)))
			return 0;
		if (now_ms() >= deadline)
			break;
		sleep_ms(wait_ms);
		if (now_ms() >= fast_until && (wait_ms *= 2) > ROTA_POLL_MS)
			wait_ms = ROTA_POLL_MS;
	}
	fprintf(stderr, "rota: error: cluster in %s not up after %u s: %s\n", c->dir,
	        timeout_s, why);
	return -1;
}

/* ---- finding every process of a cluster (for down) ---- */

struct proc {
	pid_t pid, ppid;
	unsigned long long start;
	int victim;
};

static size_t proc_table(struct proc **ret)
{
	struct proc *t = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *dp = opendir("/proc");

	while (dp && (de = readdir(dp)) != NULL && n < ROTA_MAX_PROCS) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		struct proc p = {0};
		char st;

		if (*end || v <= 0 || v > INT_MAX)
			continue;
		p.pid = (pid_t)v;
		st = proc_stat(p.pid, &p.ppid, NULL, &p.start);
		if (st == '\0' || st == 'Z' || st == 'X')
			continue;
		t = xrealloc(t, (n + 1) * sizeof(*t));
		t[n++] = p;
	}
	if (dp)
		closedir(dp);
	*ret = t;
	return n;
}

static int proc_is_self_or_ancestor(pid_t pid)
{
	pid_t p = getpid();

	for (int depth = 0; p > 1 && depth < 256; depth++) {
		pid_t parent = 0;

		if (p == pid)
			return 1;
		if (proc_stat(p, &parent, NULL, NULL) == '\0')
			break;
		p = parent;
	}
	return 0;
}

/* "/rota/<node>_<hash>" for each node of the cluster (common/spool.h): its
 * jobs' cgroups.  NULL when slurm.conf does not load. */
static char **cluster_cgroup_dirs(const struct cluster *c)
{
	struct rota_error err = {""};
	struct conf *conf = NULL;
	char host[256] = "", **dirs = NULL;

	if (conf_load(c->conf_path, &conf, &err) < 0 || !conf->slurmd_spool_dir) {
		conf_destroy(conf);
		return NULL;
	}
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < conf->node_count; i++) {
		const char *node = conf->nodes[i].name;
		char *spool = spool_dir_expand(conf->slurmd_spool_dir, node, host);
		char *name = spool ? spool_cgroup_name(node, spool) : NULL;
		char *dir = name ? xasprintf("/rota/%s", name) : NULL;

		if (dir)
			dirs = strv_append(dirs, dir);
		free(dir);
		free(name);
		free(spool);
	}
	conf_destroy(conf);
	return dirs;
}

/* Is pid in one of dirs (or below) in some cgroup hierarchy?  A job's
 * processes are, even when their step daemon is gone (killed while it
 * started them) and they no longer descend from anything of ours. */
static int proc_in_cgroups(pid_t pid, char *const *dirs)
{
	char path[64], *buf, *line, *save = NULL;
	int in = 0;

	if (!dirs)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(buf = read_small_file(path, 65536, NULL)))
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && !in;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *cg = strchr(line, ':');

		cg = cg ? strchr(cg + 1, ':') : NULL;
		for (size_t k = 0; cg && dirs[k] && !in; k++) {
			const char *at = strstr(cg + 1, dirs[k]);
			size_t len = strlen(dirs[k]);

			in = at && (at[len] == '/' || at[len] == '\0');
		}
	}
	free(buf);
	return in;
}

/* Mark the processes of this cluster in t: the daemons, anything carrying our
 * marker in its environment or in its jobs' cgroups (cgdirs, from
 * cluster_cgroup_dirs), and all their descendants.  Returns the count. */
static size_t proc_mark(struct proc *t, size_t n, const struct cluster *c,
                        char *const *cgdirs, const pid_t *daemons, size_t daemon_count)
{
	char *marker = cluster_marker(c);
	size_t count = 0;
	int changed = 1;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < daemon_count; j++)
			t[i].victim |= t[i].pid == daemons[j];
		if (!t[i].victim)
			t[i].victim = proc_is_ours(t[i].pid, c->conf_path, marker) ||
			              proc_in_cgroups(t[i].pid, cgdirs);
	}
	while (changed) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < n && !t[i].victim; j++) {
				if (t[j].victim && t[j].pid == t[i].ppid)
					t[i].victim = changed = 1;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (t[i].victim && proc_is_self_or_ancestor(t[i].pid))
			t[i].victim = 0;
		count += (size_t)t[i].victim;
	}
	free(marker);
	return count;
}

/* Still the same process as recorded (pids get reused)? */
static int proc_same(const struct proc *p)
{
	unsigned long long start = 0;
	char st = proc_stat(p->pid, NULL, NULL, &start);

	return st != '\0' && st != 'Z' && st != 'X' && start == p->start;
}

/* Signal the marked processes of t; returns how many are still there. */
static size_t proc_signal(const struct proc *t, size_t n, int sig)
{
	size_t left = 0;

	for (size_t i = 0; i < n; i++) {
		if (t[i].victim && proc_same(&t[i])) {
			left++;
			if (sig)
				kill(t[i].pid, sig);
		}
	}
	return left;
}

/* SIGTERM the marked processes, wait up to wait_ms, SIGKILL what is left. */
static size_t proc_kill_marked(const struct proc *t, size_t n, int wait_ms)
{
	long long deadline = now_ms() + wait_ms;

	if (!proc_signal(t, n, SIGTERM))
		return 0;
	while (now_ms() < deadline && proc_signal(t, n, 0))
		sleep_ms(ROTA_POLL_MS);
	if (!proc_signal(t, n, SIGKILL))
		return 0;
	deadline = now_ms() + 2000;
	while (now_ms() < deadline && proc_signal(t, n, 0))
		sleep_ms(ROTA_POLL_MS);
	return proc_signal(t, n, 0);
}

/* ---- the commands ---- */

static int lock_dir(const struct cluster *c)
{
	char *path = xasprintf("%s/run/lock", c->dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	free(path);
	if (fd >= 0 && lockf(fd, F_LOCK, 0) < 0) {
		close(fd);
		fd = -1;
	}
	return fd; /* released at exit */
}

static void make_dirs(const struct cluster *c)
{
	static const char *const sub[] = {"state", "spool", "log", "run"};

	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		char *p = xasprintf("%s/%s", c->dir, sub[i]);

		mkdir_p(p, 0755);
		free(p);
	}
}

/* rotad may not create its own spool directory: SlurmdSpoolDir with %n. */
static void make_spool_dirs(const struct cluster *c)
{
	const char *spool = c->conf->slurmd_spool_dir, *pct;

	if (!spool || !(pct = strstr(spool, "%n")))
		return;
	for (size_t i = 0; i < c->conf->node_count; i++) {
		char *p = xasprintf("%.*s%s%s", (int)(pct - spool), spool,
		                    c->conf->nodes[i].name, pct + 2);

		mkdir_p(p, 0755);
		free(p);
	}
}

static void print_exports(const struct cluster *c)
{
	char *url = rest_url(c, "http:");

	printf("export PATH=%s:$PATH\n", c->bin_dir);
	printf("export SLURM_CONF=%s\n", c->conf_path);
	if (url)
		printf("export ROTA_REST_URL=%s\n", url);
	free(url);
	if (c->netns)
		rota_netns_print_help(c->netns, stdout);
	fflush(stdout);
}

static void up_report(const struct cluster *c)
{
	const struct conf_part *part = conf_part_default(c->conf);

	if (!part && c->conf->part_count)
		part = &c->conf->parts[0];
	print_exports(c);
	fprintf(stderr, "rota: cluster up in %s: %zu node%s %s, partition %s\n", c->dir,
	        c->conf->node_count, c->conf->node_count == 1 ? "" : "s",
	        part && part->nodes ? part->nodes : "", part ? part->name : "(none)");
}

/* Everything already running?  Then there is nothing to start. */
static int up_refuse(const struct cluster *c)
{
	for (size_t i = 0; i < c->daemon_count; i++) {
		if (c->daemons[i].pid <= 0)
			return 0;
	}
	fprintf(stderr, "rota: error: a cluster is already running in %s\n", c->dir);
	return 1;
}

/* The node daemons that were running while the controller was not: they
 * retry their connection with a backoff (up to 250 ms); SIGHUP has them try
 * now, so that the cluster is whole again as soon as the controller answers. */
static void nodes_reconnect(const struct cluster *c)
{
	for (size_t i = 0; i < c->daemon_count; i++) {
		const struct daemon *d = &c->daemons[i];
		if (d->node && d->pid > 0 && !d->started)
			kill(d->pid, SIGHUP);
	}
}

/* Start the daemons that are not running (all of them on a clean start): the
 * controller first, and the node daemons once it answers, so that they register
 * at their first attempt.  Then wait until every node is up. */
static int up_start(struct cluster *c, uint32_t timeout_s)
{
	long long deadline = now_ms() + (long long)timeout_s * 1000;
	size_t alive = 0;

	for (size_t i = 0; i < c->daemon_count; i++)
		alive += c->daemons[i].pid > 0;
	for (size_t i = 0; i < c->daemon_count; i++) {
		if (c->daemons[i].pid > 0)
			continue;
		if (alive)
			fprintf(stderr, "rota: restarting %s\n", c->daemons[i].name);
		if (daemon_start(c, &c->daemons[i]) < 0)
			return -1;
		if (!c->daemons[i].node && !c->daemons[i].dbd && !c->daemons[i].restd) {
			if (cluster_wait_ready(c, 1, deadline, timeout_s) < 0)
				return -1;
			nodes_reconnect(c);
		}
	}
	return cluster_wait_ready(c, 0, deadline, timeout_s);
}

/* --netns, or a directory that holds a namespaced cluster: make the hosts and
 * write their slurm.conf (1) unless they are there (0), then start each host's
 * munged.  0 at once for a plain cluster. */
static int up_netns(struct cluster *c, const struct rota_opts *o)
{
	const struct rota_netns_size size = {
	    .nodes = o->nodes, .cpus = o->cpus, .mem_mb = o->mem};

	if (!c->netns && !o->netns)
		return 0;
	if (!c->netns && access(c->conf_path, F_OK) == 0) {
		fprintf(stderr, "rota: error: %s holds a cluster without --netns\n",
		        c->dir);
		return -1;
	}
	return rota_netns_up(&c->netns, c->dir, c->conf_path, &size);
}

static int cmd_up(const struct rota_opts *o, int explicit_opts)
{
	struct cluster *c;
	int rc = 1, made;

	/* Users other than the one running `rota up` reach the controller through
	 * DIR/state/rotactld.sock and read DIR/slurm.conf: a umask of 077 must not
	 * lock them out (the daemons started here inherit 022 as well). */
	umask(022);
	if (mkdir_p(o->dir, 0755) < 0) {
		fprintf(stderr, "rota: error: mkdir %s: %s\n", o->dir, strerror(errno));
		return 1;
	}
	c = cluster_create(o->dir);
	make_dirs(c);
	if (lock_dir(c) < 0) {
		fprintf(stderr, "rota: error: cannot lock %s/run/lock\n", c->dir);
		goto out;
	}
	if ((made = up_netns(c, o)) < 0)
		goto out;
	if (!made && access(c->conf_path, F_OK) < 0) {
		if (cluster_init(c, o) < 0)
			goto out;
	} else if (!made && explicit_opts) {
		fprintf(stderr, "rota: %s exists: reusing it (node options ignored)\n",
		        c->conf_path);
	}
	if (cluster_load(c) < 0)
		goto out;
	make_spool_dirs(c);
	setenv("SLURM_CONF", c->conf_path, 1);
	setenv("ROTA_CLUSTER_DIR", c->dir, 1);
	if (up_refuse(c))
		goto out;
	if (up_start(c, o->timeout) < 0) {
		cluster_logs_tail(c);
		if (c->netns)
			fprintf(stderr,
			        "rota: the hosts and their munged stay: rota down "
			        "--dir %s removes them\n",
			        c->dir);
		daemons_stop(c->daemons, c->daemon_count, 1, 5000);
		for (size_t i = 0; i < c->daemon_count; i++) {
			char *p = pid_path(c, c->daemons[i].name);

			if (c->daemons[i].started)
				unlink(p);
			free(p);
		}
		goto out;
	}
	up_report(c);
	rc = 0;
out:
	cluster_destroy(c);
	return rc;
}

/* Live daemons named by the pid files in run/. */
static size_t down_pidfiles(const struct cluster *c, pid_t **ret)
{
	char *dir = xasprintf("%s/run", c->dir);
	pid_t *pids = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *dp = opendir(dir);

	while (dp && (de = readdir(dp)) != NULL) {
		size_t len = strlen(de->d_name);
		char *name;
		pid_t pid;

		if (len < 5 || strcmp(de->d_name + len - 4, ".pid") != 0)
			continue;
		name = xstrndup(de->d_name, len - 4);
		if ((pid = pidfile_live(c, name)) > 0) {
			pids = xrealloc(pids, (n + 1) * sizeof(*pids));
			pids[n++] = pid;
		}
		free(name);
	}
	if (dp)
		closedir(dp);
	free(dir);
	*ret = pids;
	return n;
}

static void down_remove_pidfiles(const struct cluster *c)
{
	char *dir = xasprintf("%s/run", c->dir);
	struct dirent *de;
	DIR *dp = opendir(dir);

	while (dp && (de = readdir(dp)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".pid")) {
			char *p = xasprintf("%s/%s", dir, de->d_name);

			unlink(p);
			free(p);
		}
	}
	if (dp)
		closedir(dp);
	free(dir);
}

static int cmd_down(const struct rota_opts *o)
{
	struct cluster *c = cluster_create(o->dir);
	char *run = xasprintf("%s/run", c->dir);
	struct proc *t = NULL;
	pid_t *pids = NULL;
	char **cgdirs = cluster_cgroup_dirs(c);
	size_t n, np, found, left = 0;
	int lockfd = -1;

	if (access(run, F_OK) == 0)
		lockfd = lock_dir(c);
	n = down_pidfiles(c, &pids);
	np = proc_table(&t);
	found = proc_mark(t, np, c, cgdirs, pids, n);
	/* the daemons first (they end their steps), then whatever is left */
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	wait_gone(pids, n, ROTA_DOWN_WAIT_MS);
	for (int round = 0; round < 3 && found; round++) {
		left = proc_kill_marked(t, np, round ? 1000 : 2000);
		free(t);
		np = proc_table(&t);
		if (!proc_mark(t, np, c, cgdirs, NULL, 0) && !left)
			break;
	}
	left = proc_signal(t, np, 0);
	down_remove_pidfiles(c);
	if (c->netns)
		rota_netns_remove(c->netns); /* says what it could not remove */
	if (left)
		fprintf(stderr,
		        "rota: warning: %zu process(es) of %s could not be stopped\n",
		        left, c->dir);
	else if (found)
		fprintf(stderr, "rota: cluster in %s is down\n", c->dir);
	else
		fprintf(stderr, "rota: nothing was running in %s\n", c->dir);
	if (lockfd >= 0)
		close(lockfd);
	free(t);
	free(pids);
	strv_free(cgdirs);
	free(run);
	cluster_destroy(c);
	return 0;
}

static int cmd_status(const struct rota_opts *o)
{
	struct cluster *c = cluster_create(o->dir);
	char why[ROTA_ERROR_TEXT + 64] = "";
	size_t alive = 0;
	int rc = 1;

	if (access(c->conf_path, F_OK) < 0) {
		fprintf(stderr, "rota: no cluster in %s\n", c->dir);
		goto out;
	}
	if (cluster_load(c) < 0)
		goto out;
	for (size_t i = 0; i < c->daemon_count; i++) {
		struct daemon *d = &c->daemons[i];

		if (d->pid > 0)
			printf("%-16s running (pid %d)\n", d->name, (int)d->pid);
		else
			printf("%-16s stopped\n", d->name);
		alive += d->pid > 0;
	}
	if (c->daemons[0].pid > 0) {
		int ready = cluster_ready(c, 0, why, sizeof(why));

		printf("controller: %s: %s\n", ready ? "UP" : "not ready", why);
	}
	for (const char *const *p = (const char *const[]){"http:", "unix:", NULL}; *p;
	     p++) {
		char *url = rest_url(c, *p);

		if (url)
			printf("rest: %s\n", url);
		free(url);
	}
	rc = alive == c->daemon_count ? 0 : 1;
out:
	cluster_destroy(c);
	return rc;
}

static int cmd_env(const struct rota_opts *o)
{
	struct cluster *c = cluster_create(o->dir);
	int rc = 0;

	if (access(c->conf_path, F_OK) < 0) {
		fprintf(stderr, "rota: error: no cluster in %s (rota up --dir %s)\n",
		        c->dir, o->dir);
		rc = 1;
	} else {
		print_exports(c);
	}
	cluster_destroy(c);
	return rc;
}

/* rota exec --dir DIR [--host HOST] -- COMMAND...: COMMAND in HOST's
 * namespaces, with this cluster's SLURM_CONF and commands on its PATH. */
static int cmd_exec(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"dir", required_argument, NULL, 'd'},
	    {"host", required_argument, NULL, 'H'},
	    {"netns-host", required_argument, NULL, 'H'},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = "cluster", *host = ROTA_NETNS_CTLD_HOST;
	struct cluster *c;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+d:H:", lopts, NULL)) != -1) {
		if (ch == 'd')
			dir = optarg;
		else if (ch == 'H')
			host = optarg;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "rota: error: exec: no command\n");
		return 2;
	}
	c = cluster_create(dir);
	if (!c->netns) {
		fprintf(stderr, "rota: error: no --netns cluster in %s\n", c->dir);
		cluster_destroy(c);
		return 1;
	}
	return rota_netns_exec(c->netns, host, c->bin_dir, argv + optind);
}

/* ---- options ---- */

static int parse_u32(const char *opt, const char *s, uint32_t min, uint32_t max,
                     uint32_t *ret)
{
	long v = cli_parse_long(s);

	if (v < (long)min || v > (long)max) {
		fprintf(stderr,
		        "rota: error: %s: expected a number from %u to %u, not '%s'\n",
		        opt, min, max, s);
		return -1;
	}
	*ret = (uint32_t)v;
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++) {
		if (!(*s == '_' || *s == '-' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	}
	return 1;
}

/* Parse the options after the subcommand.  Returns 0, 1 (--help) or -1. */
static int parse_opts(int argc, char **argv, struct rota_opts *o, int *explicit_opts)
{
	static const struct option lopts[] = {
	    {"dir", required_argument, NULL, 'd'},
	    {"nodes", required_argument, NULL, 'N'},
	    {"cpus", required_argument, NULL, 'c'},
	    {"mem", required_argument, NULL, 'm'},
	    {"partition", required_argument, NULL, 'p'},
	    {"gpus", required_argument, NULL, 'G'},
	    {"timeout", required_argument, NULL, 't'},
	    {"munge-socket", required_argument, NULL, 'M'},
	    {"standby", no_argument, NULL, 'S'},
	    {"netns", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint32_t mem = 0;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "d:N:c:m:p:t:M:h", lopts, NULL)) != -1) {
		*explicit_opts |= ch != 'd' && ch != 't' && ch != 'n';
		if ((ch == 'N' &&
		     parse_u32("--nodes", optarg, 1, ROTA_MAX_NODES, &o->nodes)) ||
		    (ch == 'c' && parse_u32("--cpus", optarg, 1, 4096, &o->cpus)) ||
		    (ch == 'G' &&
		     parse_u32("--gpus", optarg, 0, ROTA_GPUS_MAX, &o->gpus)) ||
		    (ch == 'm' && parse_u32("--mem", optarg, 1, 1u << 30, &mem)) ||
		    (ch == 't' && parse_u32("--timeout", optarg, 1, 3600, &o->timeout)))
			return -1;
		if (ch == 'd')
			o->dir = optarg;
		else if (ch == 'm')
			o->mem = mem;
		else if (ch == 'p')
			o->partition = optarg;
		else if (ch == 'M')
			o->munge_socket = optarg;
		else if (ch == 'S')
			o->standby = 1;
		else if (ch == 'n')
			o->netns = 1;
		else if (ch == 'h')
			return 1;
		else if (ch == '?')
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "rota: error: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!valid_name(o->partition)) {
		fprintf(stderr, "rota: error: --partition: invalid name '%s'\n",
		        o->partition);
		return -1;
	}
	return 0;
}

/* rota sim ARGS: rota-sim ARGS (cli/sim_main.c), from this program's own
 * directory, else from PATH. */
static int exec_sim(char **argv)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			*slash = '\0';
			path = xasprintf("%s/rota-sim", self);
			execv(path, argv);
			free(path);
		}
	}
	execvp("rota-sim", argv);
	fprintf(stderr,
	        "rota: error: rota sim needs rota-sim beside rota or in PATH: %s\n",
	        strerror(errno));
	return 127;
}

int cmd_rota(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct rota_opts o = {
	    .dir = "cluster",
	    .nodes = 4,
	    .cpus = ncpu > 2 ? (uint32_t)ncpu : 2,
	    .mem = 2048,
	    .partition = "debug",
	    .timeout = ROTA_UP_TIMEOUT_S,
	};
	const char *sub = argc > 1 ? argv[1] : NULL;
	int explicit_opts = 0, rc;

	if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    !strcmp(sub, "help")) {
		usage(sub ? stdout : stderr);
		return sub ? 0 : 2;
	}
	if (!strcmp(sub, "sim"))
		return exec_sim(argv + 1);
	if (!strcmp(sub, "eff"))
		return cmd_eff(argc - 1, argv + 1);
	if (!strcmp(sub, "exec"))
		return cmd_exec(argc - 1, argv + 1);
	if (strcmp(sub, "up") && strcmp(sub, "down") && strcmp(sub, "status") &&
	    strcmp(sub, "env")) {
		fprintf(stderr, "rota: error: unknown command '%s' (see rota --help)\n",
		        sub);
		return 2;
	}
	rc = parse_opts(argc - 1, argv + 1, &o, &explicit_opts);
	if (rc > 0) {
		usage(stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "Try 'rota --help' for more information.\n");
		return 2;
	}
	if (!strcmp(sub, "up"))
		return cmd_up(&o, explicit_opts);
	if (!strcmp(sub, "down"))
		return cmd_down(&o);
	if (!strcmp(sub, "env"))
		return cmd_env(&o);
	return cmd_status(&o);
}
