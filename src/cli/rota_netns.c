/* rota_netns.c - the tutorial's hosts as namespaces (see rota_netns.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/rota_netns.h"
#include "proto/auth.h"
#include "common/common.h"

#define NETNS_RUN_DIR   "/run/netns"
#define NETNS_ETC_DIR   "/etc/netns"
#define NETNS_LOCK      "/run/rota-netns.lock"
#define NETNS_NET_FMT   "10.250.%u"
#define NETNS_MAX_ARGS  32
#define NETNS_MUNGED    "/usr/sbin/munged"
#define NETNS_MUNGE_DIR "/run/munge"
#define NETNS_MUNGE_KEY 1024 /* bytes, as mungekey writes */

struct netns_host {
	char *name; /* control, node01, ... */
	char *addr; /* 10.250.X.Y */
	char *ns;   /* rota-<id>-<name> */
	char *veth; /* root side: rv<id>-<index> */
};

struct rota_netns {
	char *dir;
	char id[8];
	unsigned net; /* X of 10.250.X.0/24 */
	char *bridge;
	struct netns_host *hosts; /* [0] is control */
	size_t host_count;
};

/* ---- running ip(8) ---- */

/* Run argv (NULL-terminated, argv[0] a path) with stdout to /dev/null and
 * stderr kept unless quiet; its exit status, or -1. */
static int run_argv(char *const argv[], int quiet)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			if (quiet)
				dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ip ARGS... (NULL-terminated); quiet: errors expected, not shown. */
static int ip_run(int quiet, ...)
{
	char *argv[NETNS_MAX_ARGS];
	size_t n = 0;
	va_list ap;

	argv[n++] = "/usr/sbin/ip";
	if (access(argv[0], X_OK) < 0)
		argv[0] = "/sbin/ip";
	va_start(ap, quiet);
	while (n < NETNS_MAX_ARGS - 1 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_argv(argv, quiet);
}

/* What ip -4 prints about addresses and routes, for the free-subnet scan. */
static char *ip_capture(void)
{
	static const char *const cmds[][7] = {
	    {"/usr/sbin/ip", "-4", "-o", "addr", NULL},
	    {"/usr/sbin/ip", "-4", "route", "show", "table", "all", NULL},
	};
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap + 1);

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int p[2];
		pid_t pid;
		ssize_t r;

		if (pipe2(p, O_CLOEXEC) < 0)
			break;
		pid = fork();
		if (pid == 0) {
			dup2(p[1], 1);
			execv(cmds[i][0], (char *const *)cmds[i]);
			_exit(127);
		}
		close(p[1]);
		while (len < cap && (r = read(p[0], buf + len, cap - len)) > 0)
			len += (size_t)r;
		close(p[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	buf[len] = '\0';
	return buf;
}

/* ---- the record: DIR/netns.conf ---- */

static char *record_path(const char *dir)
{
	return xasprintf("%s/netns.conf", dir);
}

static void host_add(struct rota_netns *ns, const char *name, const char *addr,
                     size_t index)
{
	struct netns_host *h;

	ns->hosts = xrealloc(ns->hosts, (ns->host_count + 1) * sizeof(*ns->hosts));
	h = &ns->hosts[ns->host_count++];
	h->name = xstrdup(name);
	h->addr = xstrdup(addr);
	h->ns = xasprintf("rota-%s-%s", ns->id, name);
	h->veth = xasprintf("rv%s-%zu", ns->id, index);
}

static int record_write(const struct rota_netns *ns)
{
	char *path = record_path(ns->dir), *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	int rc = -1;

	if (!f)
		goto out;
	fprintf(f, "# made by rota up --netns; rota down removes it all\n");
	fprintf(f, "id=%s\nnet=%u\n", ns->id, ns->net);
	for (size_t i = 0; i < ns->host_count; i++)
		fprintf(f, "host=%s %s\n", ns->hosts[i].name, ns->hosts[i].addr);
	if (fclose(f) == 0 && rename(tmp, path) == 0)
		rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "rota: error: write %s: %s\n", path, strerror(errno));
	free(tmp);
	free(path);
	return rc;
}

static struct rota_netns *netns_new(const char *dir)
{
	struct rota_netns *ns = xcalloc(1, sizeof(*ns));

	ns->dir = xstrdup(dir);
	return ns;
}

static int valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n != 6)
		return 0;
	for (; *s; s++) {
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	}
	return 1;
}

int rota_netns_load(const char *dir, struct rota_netns **ret)
{
	char *path = record_path(dir), line[256];
	FILE *f = fopen(path, "re");
	struct rota_netns *ns;
	int rc = -1;

	*ret = NULL;
	if (!f) {
		rc = errno == ENOENT ? 0 : -1;
		if (rc < 0)
			fprintf(stderr, "rota: error: %s: %s\n", path, strerror(errno));
		free(path);
		return rc;
	}
	ns = netns_new(dir);
	while (fgets(line, sizeof(line), f)) {
		char name[64], addr[64];
		unsigned v;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "id=", 3) && valid_id(line + 3))
			snprintf(ns->id, sizeof(ns->id), "%s", line + 3);
		else if (sscanf(line, "net=%u", &v) == 1 && v > 0 && v < 255)
			ns->net = v;
		else if (sscanf(line, "host=%63s %63s", name, addr) == 2 && ns->id[0] &&
		         ns->host_count <= ROTA_NETNS_MAX_NODES)
			host_add(ns, name, addr, ns->host_count);
	}
	fclose(f);
	if (!ns->id[0] || !ns->net) {
		fprintf(stderr, "rota: error: %s: no id= or net= line\n", path);
		rota_netns_destroy(ns);
		goto out;
	}
	ns->bridge = xasprintf("rb-%s", ns->id);
	*ret = ns;
	rc = 1;
out:
	free(path);
	return rc;
}

void rota_netns_destroy(struct rota_netns *ns)
{
	if (!ns)
		return;
	for (size_t i = 0; i < ns->host_count; i++) {
		free(ns->hosts[i].name);
		free(ns->hosts[i].addr);
		free(ns->hosts[i].ns);
		free(ns->hosts[i].veth);
	}
	free(ns->hosts);
	free(ns->bridge);
	free(ns->dir);
	free(ns);
}

/* ---- making it ---- */

int rota_netns_check(char *why, size_t why_len)
{
	if (geteuid() != 0) {
		snprintf(why, why_len,
		         "--netns needs root (network namespaces, a "
		         "bridge and mounts)");
		return -1;
	}
	if (ip_run(1, "netns", "list", NULL) != 0) {
		snprintf(why, why_len, "`ip netns list` does not work (iproute2?)");
		return -1;
	}
	if (access(NETNS_MUNGED, X_OK) < 0) {
		snprintf(why, why_len, "%s: %s (Debian package munge)", NETNS_MUNGED,
		         strerror(errno));
		return -1;
	}
	return 0;
}

/* The first 10.250.X.0/24 that no address or route of this machine mentions. */
static unsigned net_find_free(void)
{
	char *ip = ip_capture();
	unsigned found = 0;

	for (unsigned x = 1; x < 255 && !found; x++) {
		char pat[32];

		snprintf(pat, sizeof(pat), NETNS_NET_FMT ".", x);
		if (!strstr(ip, pat))
			found = x;
	}
	free(ip);
	return found;
}

static int id_generate(char *id, size_t len)
{
	unsigned char b[3];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b)) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(b))
		return -1;
	snprintf(id, len, "%02x%02x%02x", b[0], b[1], b[2]);
	return 0;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);
	int rc = -1;

	if (fd >= 0 && write(fd, text, len) == (ssize_t)len)
		rc = 0;
	if (fd >= 0 && close(fd) < 0)
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "rota: error: write %s: %s\n", path, strerror(errno));
	return rc;
}

/* /etc/netns/<ns>/hosts and hostname: the cluster's names, for this host. */
static int etc_write(const struct rota_netns *ns, const struct netns_host *h)
{
	char *dir = xasprintf("%s/%s", NETNS_ETC_DIR, h->ns), *p, *text;
	int rc = -1;

	text = xasprintf("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost "
	                 "ip6-loopback\n");
	for (size_t i = 0; i < ns->host_count; i++) {
		char *t =
		    xasprintf("%s%s\t%s\n", text, ns->hosts[i].addr, ns->hosts[i].name);
		free(text);
		text = t;
	}
	if ((mkdir(NETNS_ETC_DIR, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, "rota: error: mkdir %s: %s\n", dir, strerror(errno));
		goto out;
	}
	p = xasprintf("%s/hosts", dir);
	rc = write_file(p, text, 0644);
	free(p);
	if (rc == 0) {
		char *name = xasprintf("%s\n", h->name);

		p = xasprintf("%s/hostname", dir);
		rc = write_file(p, name, 0644);
		free(p);
		free(name);
	}
out:
	free(text);
	free(dir);
	return rc;
}

/* One host: its namespace, a veth into it on the bridge, its address. */
static int host_make(const struct rota_netns *ns, const struct netns_host *h)
{
	char *cidr = xasprintf("%s/24", h->addr);
	int rc = -1;

	if (ip_run(0, "netns", "add", h->ns, NULL) != 0 ||
	    ip_run(0, "link", "add", h->veth, "type", "veth", "peer", "name", "eth0",
	           "netns", h->ns, NULL) != 0 ||
	    ip_run(0, "link", "set", h->veth, "master", ns->bridge, "up", NULL) != 0 ||
	    ip_run(0, "-n", h->ns, "addr", "add", cidr, "dev", "eth0", NULL) != 0 ||
	    ip_run(0, "-n", h->ns, "link", "set", "eth0", "up", NULL) != 0 ||
	    ip_run(0, "-n", h->ns, "link", "set", "lo", "up", NULL) != 0)
		goto out;
	rc = etc_write(ns, h);
out:
	if (rc < 0)
		fprintf(stderr, "rota: error: could not make host %s (namespace %s)\n",
		        h->name, h->ns);
	free(cidr);
	return rc;
}

static int dir_make(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "rota: error: mkdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* DIR/hosts/<host>/munge for each host, and the one key, DIR/munge.key. */
static int munge_files(const struct rota_netns *ns)
{
	char *key = xasprintf("%s/munge.key", ns->dir);
	char *hosts = xasprintf("%s/hosts", ns->dir);
	unsigned char buf[NETNS_MUNGE_KEY];
	int rc = dir_make(hosts), fd;

	for (size_t i = 0; rc == 0 && i < ns->host_count; i++) {
		char *h = xasprintf("%s/%s", hosts, ns->hosts[i].name);
		char *m = xasprintf("%s/munge", h);

		rc = dir_make(h) < 0 || dir_make(m) < 0 ? -1 : 0;
		free(m);
		free(h);
	}
	if (rc < 0 || access(key, F_OK) == 0)
		goto out;
	rc = -1;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		rc = 0;
	if (fd >= 0)
		close(fd);
	if (rc == 0) {
		fd = open(key, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
		rc = fd >= 0 && write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) ? 0
		                                                                    : -1;
		if (fd >= 0)
			close(fd);
	}
	if (rc < 0)
		fprintf(stderr, "rota: error: cannot write %s\n", key);
out:
	free(hosts);
	free(key);
	return rc;
}

/* Make what ns records: the bridge, each host, the munge files.  Under the
 * lock; removes what it made on failure. */
static int netns_build(struct rota_netns *ns)
{
	char *bcidr = xasprintf(NETNS_NET_FMT ".254/24", ns->net);
	int rc = -1;

	if (ip_run(0, "link", "add", ns->bridge, "type", "bridge", NULL) != 0 ||
	    ip_run(0, "addr", "add", bcidr, "dev", ns->bridge, NULL) != 0 ||
	    ip_run(0, "link", "set", ns->bridge, "up", NULL) != 0) {
		fprintf(stderr, "rota: error: could not make bridge %s\n", ns->bridge);
		goto out;
	}
	for (size_t i = 0; i < ns->host_count; i++) {
		if (host_make(ns, &ns->hosts[i]) < 0)
			goto out;
	}
	rc = munge_files(ns);
out:
	if (rc < 0)
		rota_netns_remove(ns);
	free(bcidr);
	return rc;
}

static int lock_take(void)
{
	int fd = open(NETNS_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		fprintf(stderr, "rota: error: lock %s: %s\n", NETNS_LOCK,
		        strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int rota_netns_create(const char *dir, uint32_t nodes, struct rota_netns **ret)
{
	struct rota_netns *ns = netns_new(dir);
	char addr[32];
	int lock = -1, rc = -1;

	if (nodes < 1 || nodes > ROTA_NETNS_MAX_NODES) {
		fprintf(stderr, "rota: error: --netns: from 1 to %d nodes, not %u\n",
		        ROTA_NETNS_MAX_NODES, nodes);
		goto out;
	}
	/* two clusters starting at once must not pick the same subnet */
	if ((lock = lock_take()) < 0)
		goto out;
	if (id_generate(ns->id, sizeof(ns->id)) < 0 || !(ns->net = net_find_free())) {
		fprintf(stderr, "rota: error: no free 10.250.X.0/24 on this machine\n");
		goto out;
	}
	ns->bridge = xasprintf("rb-%s", ns->id);
	snprintf(addr, sizeof(addr), NETNS_NET_FMT ".1", ns->net);
	host_add(ns, ROTA_NETNS_CTLD_HOST, addr, 0);
	for (uint32_t k = 1; k <= nodes; k++) {
		char name[16];

		snprintf(addr, sizeof(addr), NETNS_NET_FMT ".%u", ns->net, 10 + k);
		snprintf(name, sizeof(name), "node%02u", k);
		host_add(ns, name, addr, k);
	}
	/* recorded first: a start that fails half way is undone from it */
	if (record_write(ns) < 0 || netns_build(ns) < 0)
		goto out;
	*ret = ns;
	ns = NULL;
	rc = 0;
out:
	if (lock >= 0)
		close(lock);
	rota_netns_destroy(ns);
	return rc;
}

int rota_netns_restore(struct rota_netns *ns)
{
	char pat[32], *ip;
	int lock, rc = -1;

	if ((lock = lock_take()) < 0)
		return -1;
	rota_netns_remove(ns); /* whatever is left of it */
	ip = ip_capture();
	snprintf(pat, sizeof(pat), NETNS_NET_FMT ".", ns->net);
	if (strstr(ip, pat))
		fprintf(stderr,
		        "rota: error: " NETNS_NET_FMT ".0/24 of %s is in use "
		        "on this machine now\n",
		        ns->net, ns->dir);
	else
		rc = netns_build(ns);
	free(ip);
	close(lock);
	return rc;
}

int rota_netns_present(const struct rota_netns *ns)
{
	for (size_t i = 0; i < ns->host_count; i++) {
		char *p = xasprintf("%s/%s", NETNS_RUN_DIR, ns->hosts[i].ns);
		int ok = access(p, F_OK) == 0;

		free(p);
		if (!ok)
			return 0;
	}
	return 1;
}

/* ---- the tutorial's slurm.conf ---- */

int rota_netns_conf_write(const struct rota_netns *ns, const char *path, uint32_t cpus,
                          uint64_t mem_mb)
{
	char *tmp = xasprintf("%s.tmp", path), *addrs = xstrdup("");
	size_t nodes = ns->host_count - 1;
	FILE *f = fopen(tmp, "we");
	int rc = -1;

	if (!f) {
		fprintf(stderr, "rota: error: create %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	for (size_t i = 1; i < ns->host_count; i++) {
		char *a = xasprintf("%s%s%s", addrs, i > 1 ? "," : "", ns->hosts[i].addr);
		free(addrs);
		addrs = a;
	}
	/* The tutorial's file, but for SlurmUser (no user slurm here: rota's
	 * daemons run as root), the paths (this cluster's directory rather than
	 * /var/spool) and NodeAddr (the namespaces' addresses). */
	fprintf(f,
	        "# generated by rota up --netns: the tutorial's control, node01, "
	        "node02, ...\n"
	        "ClusterName=demo-cluster\n"
	        "SlurmctldHost=%s\n"
	        "SlurmUser=root\n"
	        "SlurmdUser=root\n"
	        "AuthType=auth/munge\n"
	        "StateSaveLocation=%s/state\n"
	        "SlurmdSpoolDir=%s/spool/%%n\n"
	        "SlurmctldLogFile=%s/log/rotactld.log\n"
	        "SlurmdLogFile=%s/log/rotad-%%n.log\n"
	        "SchedulerType=sched/backfill\n"
	        "SelectType=select/cons_tres\n"
	        "SelectTypeParameters=CR_Core_Memory\n"
	        "ReturnToService=2\n",
	        ROTA_NETNS_CTLD_HOST, ns->dir, ns->dir, ns->dir, ns->dir);
	if (nodes == 1)
		fprintf(f, "NodeName=node01 NodeAddr=%s", addrs);
	else
		fprintf(f, "NodeName=node[01-%02zu] NodeAddr=%s", nodes, addrs);
	fprintf(f, " CPUs=%u RealMemory=%llu State=UNKNOWN\n", cpus,
	        (unsigned long long)mem_mb);
	if (nodes == 1)
		fprintf(f, "PartitionName=debug Nodes=node01");
	else
		fprintf(f, "PartitionName=debug Nodes=node[01-%02zu]", nodes);
	fprintf(f, " Default=YES MaxTime=01:00:00 State=UP\n");
	if (fclose(f) == 0 && rename(tmp, path) == 0)
		rc = 0;
	else
		fprintf(stderr, "rota: error: write %s: %s\n", path, strerror(errno));
out:
	free(addrs);
	free(tmp);
	return rc;
}

/* ---- a host's view ---- */

static const struct netns_host *host_find(const struct rota_netns *ns, const char *name)
{
	for (size_t i = 0; i < ns->host_count; i++) {
		if (!strcmp(ns->hosts[i].name, name))
			return &ns->hosts[i];
	}
	return NULL;
}

int rota_netns_enter(const struct rota_netns *ns, const char *host)
{
	const struct netns_host *h = host_find(ns, host);
	char *nspath = NULL, *hosts = NULL, *munge = NULL, *state = NULL;
	int fd = -1, rc = -1;

	if (!h) {
		fprintf(stderr, "rota: error: no host %s in this cluster\n", host);
		return -1;
	}
	nspath = xasprintf("%s/%s", NETNS_RUN_DIR, h->ns);
	hosts = xasprintf("%s/%s/hosts", NETNS_ETC_DIR, h->ns);
	munge = xasprintf("%s/hosts/%s/munge", ns->dir, h->name);
	state = xasprintf("%s/state", ns->dir);
	fd = open(nspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "rota: error: join %s: %s\n", nspath, strerror(errno));
		goto out;
	}
	if (unshare(CLONE_NEWNS | CLONE_NEWUTS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 ||
	    sethostname(h->name, strlen(h->name)) < 0) {
		fprintf(stderr, "rota: error: namespaces of host %s: %s\n", h->name,
		        strerror(errno));
		goto out;
	}
	/* /run/munge: the host's munged made it; make it if there is none */
	if (mkdir(NETNS_MUNGE_DIR, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "rota: error: mkdir %s: %s\n", NETNS_MUNGE_DIR,
		        strerror(errno));
		goto out;
	}
	if (mount(hosts, "/etc/hosts", NULL, MS_BIND, NULL) < 0 ||
	    mount(munge, NETNS_MUNGE_DIR, NULL, MS_BIND, NULL) < 0) {
		fprintf(stderr, "rota: error: mounts of host %s: %s\n", h->name,
		        strerror(errno));
		goto out;
	}
	/* the controller's state (and its local socket) is on its own disk: the
	 * other hosts reach it over the network, authenticated by munge */
	if (h != &ns->hosts[0] &&
	    mount("rota-netns", state, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
	          "size=4k,mode=0755") < 0) {
		fprintf(stderr, "rota: error: hide %s on host %s: %s\n", state, h->name,
		        strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(nspath);
	free(hosts);
	free(munge);
	free(state);
	return rc;
}

/* ---- munged ---- */

static int munged_answers(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, ok;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Start host h's munged in its view; munged forks and its parent exits once
 * the socket is ready. */
static int munged_start(const struct rota_netns *ns, const struct netns_host *h)
{
	char *key = xasprintf("--key-file=%s/munge.key", ns->dir);
	char *log = xasprintf("--log-file=%s/log/munged-%s.log", ns->dir, h->name);
	char *sock = xasprintf("%s/hosts/%s/munge/munge.socket.2", ns->dir, h->name);
	char *argv[] = {NETNS_MUNGED,
	                "--force",
	                key,
	                log,
	                "--socket=" NETNS_MUNGE_DIR "/munge.socket.2",
	                "--pid-file=" NETNS_MUNGE_DIR "/munged.pid",
	                "--seed-file=" NETNS_MUNGE_DIR "/munged.seed",
	                NULL};
	int status, rc = -1;
	pid_t pid;

	if (munged_answers(sock)) {
		rc = 0;
		goto out;
	}
	unlink(sock); /* one whose munged was killed with the cluster */
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		setsid();
		if (rota_netns_enter(ns, h->name) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && access(sock, F_OK) == 0)
		rc = 0;
out:
	if (rc < 0)
		fprintf(stderr,
		        "rota: error: munged of host %s did not start (see "
		        "%s/log/munged-%s.log)\n",
		        h->name, ns->dir, h->name);
	free(key);
	free(log);
	free(sock);
	return rc;
}

int rota_netns_munge_start(const struct rota_netns *ns)
{
	for (size_t i = 0; i < ns->host_count; i++) {
		if (munged_start(ns, &ns->hosts[i]) < 0)
			return -1;
	}
	return 0;
}

/* ---- taking it away ---- */

static int etc_remove(const struct netns_host *h)
{
	static const char *const files[] = {"hosts", "hostname"};
	char *dir = xasprintf("%s/%s", NETNS_ETC_DIR, h->ns);
	int left = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);

		if (unlink(p) < 0 && errno != ENOENT)
			left++;
		free(p);
	}
	if (rmdir(dir) < 0 && errno != ENOENT) {
		fprintf(stderr, "rota: warning: rmdir %s: %s\n", dir, strerror(errno));
		left++;
	}
	free(dir);
	return left;
}

static int link_exists(const char *name)
{
	char *p = xasprintf("/sys/class/net/%s", name);
	int there = access(p, F_OK) == 0;

	free(p);
	return there;
}

int rota_netns_remove(struct rota_netns *ns)
{
	int left = 0;

	if (!ns)
		return 0;
	for (size_t i = 0; i < ns->host_count; i++) {
		const struct netns_host *h = &ns->hosts[i];
		char *p = xasprintf("%s/%s", NETNS_RUN_DIR, h->ns);

		/* the veth first: that takes its peer, the namespace's eth0, at
		 * once, while a namespace goes when its last process does */
		if (link_exists(h->veth) && ip_run(1, "link", "del", h->veth, NULL) &&
		    link_exists(h->veth)) {
			fprintf(stderr, "rota: warning: could not delete %s\n", h->veth);
			left++;
		}
		if (access(p, F_OK) == 0 && ip_run(0, "netns", "del", h->ns, NULL)) {
			fprintf(stderr, "rota: warning: could not delete namespace %s\n",
			        h->ns);
			left++;
		}
		free(p);
		left += etc_remove(h);
	}
	if (link_exists(ns->bridge) && ip_run(0, "link", "del", ns->bridge, NULL)) {
		fprintf(stderr, "rota: warning: could not delete bridge %s\n",
		        ns->bridge);
		left++;
	}
	rmdir(NETNS_ETC_DIR); /* only if no one else has entries there */
	return left;
}

int rota_netns_up(struct rota_netns **nsp, const char *dir, const char *conf_path,
                  const struct rota_netns_size *size)
{
	struct rota_error err = {""};
	char why[256], *key;
	int made = 0;

	if (rota_netns_check(why, sizeof(why)) < 0) {
		fprintf(stderr, "rota: error: %s\n", why);
		return -1;
	}
	if (*nsp && !rota_netns_present(*nsp) && rota_netns_restore(*nsp) < 0)
		return -1;
	if (!*nsp) {
		if (rota_netns_create(dir, size->nodes, nsp) < 0)
			return -1;
		key = xasprintf("%s/slurm.key", dir);
		if (access(key, F_OK) < 0 && auth_key_generate(key, &err) < 0)
			fprintf(stderr, "rota: error: %s\n", err.text);
		free(key);
		if (err.text[0] ||
		    rota_netns_conf_write(*nsp, conf_path, size->cpus, size->mem_mb) < 0)
			return -1;
		made = 1;
	}
	/* munged carries the mark that `rota down` looks for */
	setenv("ROTA_CLUSTER_DIR", dir, 1);
	return rota_netns_munge_start(*nsp) < 0 ? -1 : made;
}

int rota_netns_exec(const struct rota_netns *ns, const char *host, const char *bin_dir,
                    char **argv)
{
	const char *old = getenv("PATH");
	char *path = xasprintf("%s:%s", bin_dir, old ? old : "");
	char *conf = xasprintf("%s/slurm.conf", ns->dir);

	setenv("PATH", path, 1);
	setenv("SLURM_CONF", conf, 1);
	setenv("ROTA_CLUSTER_DIR", ns->dir, 1); /* rota down ends what it left */
	free(path);
	free(conf);
	if (rota_netns_enter(ns, host) < 0)
		return 1;
	execvp(argv[0], argv);
	fprintf(stderr, "rota: error: exec %s: %s\n", argv[0], strerror(errno));
	return 127;
}

void rota_netns_print_help(const struct rota_netns *ns, FILE *f)
{
	fprintf(f,
	        "# hosts: control (rotactld) and node01.. (rotad) in namespaces "
	        "rota-%s-HOST, " NETNS_NET_FMT ".0/24\n"
	        "# run a command on a host: rota exec --dir %s [--host HOST] -- "
	        "sinfo\n",
	        ns->id, ns->net, ns->dir);
}
