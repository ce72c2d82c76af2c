/* container.c - the step's container: image, mounts, entering (container.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common/gres_req.h"
#include "common/conf.h"
#include "common/ctrspec.h"
#include "common/fstree.h"
#include "common/oci_bundle.h"
#include "common/oci_image.h"
#include "proto/messages.h"
#include "stepd/container.h"
#include "stepd/stepd.h"
#include "common/common.h"

struct container {
	char *dir;     /* SPOOL/containers/jobN/NAME */
	char *root;    /* dir/root: where the overlay is mounted */
	char *workdir; /* inside the container */
	int named;     /* kept for the job's later steps */
	uint32_t flags;
};

char *container_job_dir(const char *spool, unsigned job_id)
{
	return xasprintf("%s/containers/job%05u", spool, job_id);
}

/* ---- as the user ---- */

/* Run open() with the user's file-system identity (the step daemon is one
 * thread): what the user could not open, the import does not read. */
static int open_as_user(void *ctx, const char *path, int flags)
{
	const struct stepd *st = ctx;
	int n = getgroups(0, NULL), fd, e, rc;
	gid_t *saved;

	if (!st->as_root)
		return (fd = open(path, flags | O_CLOEXEC)) < 0 ? -errno : fd;
	if (n < 0)
		return -errno;
	saved = xcalloc((size_t)n + 1, sizeof(gid_t));
	n = getgroups(n, saved);
	rc = st->gids ? setgroups((size_t)st->ngids, st->gids)
	              : initgroups(st->user, st->gid);
	if (n < 0 || rc < 0) {
		e = errno;
		free(saved);
		return -e;
	}
	setfsgid(st->gid);
	setfsuid(st->uid);
	fd = open(path, flags | O_CLOEXEC);
	e = errno;
	setfsuid(0);
	setfsgid(0);
	if (setgroups((size_t)n, saved) < 0)
		fatal("cannot restore the step daemon's groups: %s", strerror(errno));
	free(saved);
	return fd < 0 ? -e : fd;
}

static int open_image_file(void *ctx, const char *path)
{
	return open_as_user(ctx, path, O_RDONLY);
}

/* ---- inside the root ---- */

static int open_in_root(int rootfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
	                       .mode = (flags & O_CREAT) ? mode : 0,
	                       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	while (*path == '/')
		path++;
	return (int)syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof(how));
}

/* mkdir -p path inside the root (symbolic links resolved in it), and a file
 * at its end unless is_dir.  Returns an O_PATH fd of it, or -1. */
static int make_target(int rootfd, const char *path, int is_dir)
{
	char prefix[CTRSPEC_PATH_MAX + 2] = "";
	size_t len = 0;
	const char *p = path;

	while (*p) {
		size_t n;
		int parent, rc;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (len + n + 2 > sizeof(prefix))
			return -1;
		parent =
		    open_in_root(rootfd, len ? prefix : "/", O_PATH | O_DIRECTORY, 0);
		if (parent < 0)
			return -1;
		memcpy(prefix + len, "/", 1);
		memcpy(prefix + len + 1, p, n);
		len += n + 1;
		prefix[len] = '\0';
		p += n;
		if (*p || is_dir) {
			rc = mkdirat(parent, prefix + len - n, 0755);
		} else {
			int fd =
			    openat(parent, prefix + len - n,
			           O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
			rc = fd < 0 ? -1 : close(fd);
		}
		close(parent);
		if (rc < 0 && errno != EEXIST)
			return -1;
	}
	return open_in_root(rootfd, path, O_PATH, 0);
}

static int fd_path(char buf[32], int fd)
{
	return snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

/* Bind what src_fd is onto dst inside the root; read-only when asked. */
static int bind_fd(int rootfd, int src_fd, const char *dst, unsigned long extra,
                   struct rota_error *err)
{
	struct stat sb;
	char from[32], to[32];
	int tfd, rc = 0;

	if (fstat(src_fd, &sb) < 0)
		return errprintf(err, "%s: %s", dst, strerror(errno));
	if ((tfd = make_target(rootfd, dst, S_ISDIR(sb.st_mode))) < 0)
		return errprintf(err, "cannot make mount point %s: %s", dst,
		                 strerror(errno));
	fd_path(from, src_fd);
	fd_path(to, tfd);
	if (mount(from, to, NULL, MS_BIND | MS_REC, NULL) < 0)
		rc = errprintf(err, "cannot mount %s: %s", dst, strerror(errno));
	else if ((extra & MS_RDONLY) &&
	         mount(NULL, to, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL) <
	             0)
		rc = errprintf(err, "cannot make %s read-only: %s", dst, strerror(errno));
	close(tfd);
	return rc;
}

/* Bind a host path as it is (root opens it). */
static int bind_host(int rootfd, const char *path, struct rota_error *err)
{
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return errprintf(err, "%s: %s", path, strerror(errno));
	rc = bind_fd(rootfd, fd, path, 0, err);
	close(fd);
	return rc;
}

/* Bind a host path the user can reach (opened as the user). */
static int bind_user_path(struct stepd *st, int rootfd, const char *src, const char *dst,
                          unsigned long extra, struct rota_error *err)
{
	int fd = open_as_user(st, src, O_PATH), rc;

	if (fd < 0)
		return errprintf(err, "--container-mounts: %s: %s", src, strerror(-fd));
	rc = bind_fd(rootfd, fd, dst, extra, err);
	close(fd);
	return rc;
}

/* Mount a file system of type on path inside the root. */
static int mount_fs(int rootfd, const char *path, const char *type, unsigned long flags,
                    const char *data, struct rota_error *err)
{
	char to[32];
	int tfd = make_target(rootfd, path, 1), rc = 0;

	if (tfd < 0)
		return errprintf(err, "cannot make mount point %s: %s", path,
		                 strerror(errno));
	fd_path(to, tfd);
	if (mount(type, to, type, flags, data) < 0)
		rc = errprintf(err, "cannot mount %s on %s: %s", type, path,
		               strerror(errno));
	close(tfd);
	return rc;
}

/* A small /dev: the usual character devices, the node's pseudo-terminals
 * (a task's --pty is one of them: `tty` finds its name), its own shm. */
static int mount_dev(int rootfd, struct rota_error *err)
{
	static const char *const nodes[] = {"/dev/null",   "/dev/zero",    "/dev/full",
	                                    "/dev/random", "/dev/urandom", "/dev/tty",
	                                    "/dev/ptmx",   "/dev/pts"};
	int dev, rc;

	if (mount_fs(rootfd, "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k",
	             err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (access(nodes[i], F_OK) == 0 && bind_host(rootfd, nodes[i], err) < 0)
			return -1;
	if (mount_fs(rootfd, "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777",
	             err) < 0)
		return -1;
	if ((dev = open_in_root(rootfd, "/dev", O_PATH | O_DIRECTORY, 0)) < 0)
		return errprintf(err, "/dev: %s", strerror(errno));
	rc = symlinkat("/proc/self/fd", dev, "fd") |
	     symlinkat("/proc/self/fd/0", dev, "stdin") |
	     symlinkat("/proc/self/fd/1", dev, "stdout") |
	     symlinkat("/proc/self/fd/2", dev, "stderr");
	close(dev);
	return rc < 0 ? errprintf(err, "/dev links: %s", strerror(errno)) : 0;
}

/* Is device i of the node's list (devs) one of alloc's?  Its index is its
 * place among the node's devices of its name. */
static int dev_allocated(const struct gres_dev_info *devs, size_t i, const char *alloc)
{
	char *idx = gres_alloc_indexes(alloc, devs[i].name ? devs[i].name : "");
	uint32_t k = 0;
	int yes = 0;

	for (size_t j = 0; j < i; j++)
		k += devs[j].name && devs[i].name && !strcmp(devs[j].name, devs[i].name);
	for (const char *p = idx; p && *p && !yes;) {
		char *e;
		unsigned long v = strtoul(p, &e, 10);
		yes = e != p && v == k;
		p = *e == ',' ? e + 1 : "";
	}
	free(idx);
	return yes;
}

/* The step's GPUs (and the NVIDIA control devices a CUDA program opens with
 * them) as /dev/NAME inside; the step's cgroup limits what opens. */
static int bind_devices(struct stepd *st, int rootfd, struct rota_error *err)
{
	static const char *const ctl[] = {"/dev/nvidiactl", "/dev/nvidia-uvm",
	                                  "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"};
	const struct launch_req *r = st->req;
	const char *mine = r->step_gres ? r->step_gres : r->gres;
	int any = 0;

	for (size_t i = 0; mine && i < r->node_gres_devs_count; i++) {
		const struct gres_dev_info *d = &r->node_gres_devs[i];
		const char *base;
		char *dst;
		int fd, rc;
		if (!d->file || !dev_allocated(r->node_gres_devs, i, mine))
			continue;
		base = strrchr(d->file, '/');
		dst = xasprintf("/dev/%s", base ? base + 1 : d->file);
		fd = open(d->file, O_PATH | O_CLOEXEC);
		rc = fd < 0 ? errprintf(err, "%s: %s", d->file, strerror(errno))
		            : bind_fd(rootfd, fd, dst, 0, err);
		if (fd >= 0)
			close(fd);
		free(dst);
		if (rc < 0)
			return rc;
		any = 1;
	}
	for (size_t i = 0; any && i < sizeof(ctl) / sizeof(ctl[0]); i++)
		if (access(ctl[i], F_OK) == 0 && bind_host(rootfd, ctl[i], err) < 0)
			return -1;
	return 0;
}

/* Append line to path inside the root unless a line starts with key. */
static int add_line(int rootfd, const char *path, const char *key, const char *line,
                    struct rota_error *err)
{
	int fd = open_in_root(rootfd, path, O_RDWR | O_CREAT | O_APPEND, 0644);
	char buf[1 << 16];
	ssize_t n;
	size_t klen = strlen(key);
	int found = 0;

	if (fd < 0)
		return errprintf(err, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	for (const char *l = buf; l && *l && !found;
	     l = strchr(l, '\n'), l = l ? l + 1 : l)
		found = !strncmp(l, key, klen);
	if (!found && n > 0 && buf[n - 1] != '\n' && write(fd, "\n", 1) < 0)
		found = -1;
	if (!found && write(fd, line, strlen(line)) < 0)
		found = -1;
	close(fd);
	return found < 0 ? errprintf(err, "%s: %s", path, strerror(errno)) : 0;
}

static int add_user(struct stepd *st, int rootfd, const char *home,
                    struct rota_error *err)
{
	struct group *gr = getgrgid(st->gid);
	char key[300], line[1024];

	snprintf(key, sizeof(key), "%s:", st->user);
	snprintf(line, sizeof(line), "%s:x:%u:%u::%s:/bin/sh\n", st->user,
	         (unsigned)st->uid, (unsigned)st->gid, home ? home : "/");
	if (add_line(rootfd, "/etc/passwd", key, line, err) < 0)
		return -1;
	if (!gr)
		return 0;
	snprintf(key, sizeof(key), "%s:", gr->gr_name);
	snprintf(line, sizeof(line), "%s:x:%u:\n", gr->gr_name, (unsigned)st->gid);
	return add_line(rootfd, "/etc/group", key, line, err);
}

/* ---- the container's directories and mounts ---- */

static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Whose value a variable takes when the job and the container both set it. */
enum env_rule {
	ENV_IMAGE_WINS, /* Pyxis: the image's, but for the --container-env names */
	ENV_JOB_WINS,   /* Slurm's --container: the job's */
};

/* The container's environment (NAME=VALUE strings) into the tasks'. */
static void apply_env(struct stepd *st, char *const *env, enum env_rule rule)
{
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		if (!eq || eq == env[i])
			continue;
		name = xstrndup(env[i], (size_t)(eq - env[i]));
		if (!strv_getenv(st->env, name) ||
		    (rule == ENV_IMAGE_WINS &&
		     !ctrspec_env_has(st->req->container_env, name, strlen(name))))
			st->env = strv_setenv(st->env, name, eq + 1);
		free(name);
	}
}

/* The image's Env, kept NUL-separated in its cache entry. */
static char **read_env_file(const char *entry)
{
	char *path = xasprintf("%s/env", entry), *buf = xmalloc(1 << 20), **env = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, (1 << 20) - 1);

	for (ssize_t off = 0; n > 0 && off < n;) {
		size_t len = strnlen(buf + off, (size_t)(n - off));
		if (len < (size_t)(n - off)) /* a whole one */
			env = strv_append(env, buf + off);
		off += (ssize_t)len + 1;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	free(path);
	return env;
}

static int check_request(const struct launch_req *r, struct ctr_mounts *m,
                         struct rota_error *err)
{
	if (ctrspec_check_image(r->container_image, err) < 0 ||
	    ctrspec_check_bundle(r->container, err) < 0 ||
	    ctrspec_check_workdir(r->container_workdir, err) < 0 ||
	    ctrspec_check_name(r->container_name, err) < 0 ||
	    ctrspec_check_env(r->container_env, err) < 0)
		return -1;
	int rc = ctrspec_mounts_parse(r->container_mounts, m, err);
	return rc == -ENOMEM ? errprintf(err, "out of memory") : rc;
}

/* mkdir dir/NAME (0755) unless there. */
static int mkdir_in(const char *dir, const char *name, mode_t mode,
                    struct rota_error *err)
{
	char *p = xasprintf("%s/%s", dir, name);
	int rc = mkdir(p, mode) < 0 && errno != EEXIST ? -1 : 0;

	if (rc < 0)
		errprintf(err, "mkdir %s: %s", p, strerror(errno));
	free(p);
	return rc;
}

/* The image as the job names it: a relative path from its work dir. */
static char *image_path(const struct stepd *st)
{
	const char *img = st->req->container_image;

	if (img[0] != '/' && oci_image_kind(img, 0) == OCI_KIND_TARBALL &&
	    st->req->work_dir)
		return xasprintf("%s/%s", st->req->work_dir, img);
	return xstrdup(img);
}

/* The step daemon's own mount namespace, where the container's mounts live
 * (and end with it).  First: overlayfs refuses a lower directory opened in
 * another namespace. */
static int enter_mount_ns(struct rota_error *err)
{
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return errprintf(err, "cannot make a mount namespace: %s",
		                 strerror(errno));
	return 0;
}

/* The overlay: image below, the container's own upper directory above. */
static int mount_root(struct container *c, const char *lower, struct rota_error *err)
{
	char *opts = xasprintf("lowerdir=%s,upperdir=%s/upper,workdir=%s/work", lower,
	                       c->dir, c->dir);
	int rc = 0;

	if (mount("overlay", c->root, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
		rc = errprintf(err, "cannot mount the container's root: %s",
		               strerror(errno));
	free(opts);
	return rc;
}

/* Where the named container remembers its image (the first step's). */
static char *named_entry(struct container *c, const char *entry)
{
	char *path = xasprintf("%s/image", c->dir), buf[4096];
	FILE *f;

	if (read_text(path, buf, sizeof(buf)) == 0) {
		free(path);
		return xstrdup(buf);
	}
	if ((f = fopen(path, "we"))) {
		fputs(entry, f);
		fclose(f);
	}
	free(path);
	return xstrdup(entry);
}

/* The user's home at its path, when the user can reach it (else nothing). */
static int bind_home(struct stepd *st, int rootfd, const char *home,
                     struct rota_error *err)
{
	int fd = open_as_user(st, home, O_PATH | O_DIRECTORY), rc;

	if (fd < 0)
		return 0;
	rc = bind_fd(rootfd, fd, home, 0, err);
	close(fd);
	return rc;
}

static int mount_all(struct stepd *st, struct container *c, const struct ctr_mounts *m,
                     struct rota_error *err)
{
	struct passwd *pw = getpwuid(st->uid);
	const char *home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	int rootfd = open(c->root, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = -1;

	if (rootfd < 0)
		return errprintf(err, "%s: %s", c->root, strerror(errno));
	if (mount_fs(rootfd, "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL,
	             err) < 0 ||
	    bind_host(rootfd, "/sys", err) < 0 || mount_dev(rootfd, err) < 0 ||
	    bind_devices(st, rootfd, err) < 0)
		goto out;
	/* the batch script runs from the spool, at the same path inside */
	if (st->batch && st->script && bind_host(rootfd, st->script, err) < 0)
		goto out;
	if (home && !(c->flags & CTR_F_NO_MOUNT_HOME) &&
	    bind_home(st, rootfd, home, err) < 0)
		goto out;
	for (size_t i = 0; i < m->n; i++)
		if (bind_user_path(st, rootfd, m->v[i].src, m->v[i].dst,
		                   m->v[i].flags & CTR_MOUNT_RO ? MS_RDONLY : 0, err) < 0)
			goto out;
	if (!(c->flags & CTR_F_REMAP_ROOT) && add_user(st, rootfd, home, err) < 0)
		goto out;
	rc = 0;
out:
	close(rootfd);
	return rc;
}

/* What goes below the container. */
struct lower {
	char *dir;     /* the overlay's lowerdir */
	char *workdir; /* the image's or bundle's, NULL: "/" */
	char **env;    /* ... and its environment */
	enum env_rule rule;
	int fd; /* a bundle's root, opened as the user (dir is its /proc path) */
};

/* --container-image: the image, imported into the cache unless there. */
static int lower_from_image(struct stepd *st, struct container *c, struct lower *lw,
                            struct rota_error *err)
{
	const struct launch_req *r = st->req;
	char *cache = st->conf->container_cache ? xstrdup(st->conf->container_cache)
	                                        : xasprintf("%s/images", st->spool);
	char *image = image_path(st), *entry = NULL, buf[CTRSPEC_PATH_MAX + 1];
	struct oci_image_opts o = {.cache_dir = cache,
	                           .mirror_dir = st->conf->container_mirror,
	                           .open = open_image_file,
	                           .open_ctx = st};
	int imported = 0, rc = oci_image_get(image, &o, &entry, &imported, err);

	if (rc == 0 && imported)
		log_info("JobId=%u StepId=%u imported image %s into %s", r->job_id,
		         r->step_id, image, entry);
	if (rc == 0 && c->named) { /* its first step's image */
		char *first = named_entry(c, entry);
		free(entry);
		entry = first;
	}
	if (rc == 0) {
		snprintf(buf, sizeof(buf), "%s/workdir", entry);
		if (read_text(buf, buf, sizeof(buf)) == 0 && buf[0] == '/')
			lw->workdir = xstrdup(buf);
		lw->env = read_env_file(entry);
		lw->dir = xasprintf("%s/rootfs", entry);
		lw->rule = ENV_IMAGE_WINS;
	}
	free(entry);
	free(image);
	free(cache);
	return rc;
}

/* --container=PATH: an OCI bundle's config.json and root, read as the user. */
static int lower_from_bundle(struct stepd *st, struct lower *lw, struct rota_error *err)
{
	const char *path = st->req->container;
	char *bundle = path[0] != '/' && st->req->work_dir
	                   ? xasprintf("%s/%s", st->req->work_dir, path)
	                   : xstrdup(path);
	char *cfg = xasprintf("%s/config.json", bundle),
	     *text = xmalloc(OCI_JSON_MAX + 1);
	char *root = NULL;
	struct oci_bundle b = {0};
	int fd = open_as_user(st, cfg, O_RDONLY), rc = -1;
	ssize_t n = fd < 0 ? -1 : read(fd, text, OCI_JSON_MAX + 1);

	if (fd < 0) {
		errprintf(err, "--container: cannot open %s: %s", cfg, strerror(-fd));
		goto out;
	}
	if (n < 0 || n > (ssize_t)OCI_JSON_MAX) {
		errprintf(err, "--container: %s: %s", cfg,
		          n < 0 ? strerror(errno) : "larger than 4 MiB");
		goto out;
	}
	if (oci_bundle_parse(text, (size_t)n, &b, err) < 0)
		goto out;
	root = b.root[0] == '/' ? xstrdup(b.root) : xasprintf("%s/%s", bundle, b.root);
	if ((lw->fd = open_as_user(st, root, O_PATH | O_DIRECTORY)) < 0) {
		errprintf(err, "--container: cannot open %s: %s", root,
		          strerror(-lw->fd));
		goto out;
	}
	lw->dir = xasprintf("/proc/self/fd/%d", lw->fd);
	lw->workdir = b.cwd ? xstrdup(b.cwd) : NULL;
	lw->env = strv_dup(b.env);
	lw->rule = ENV_JOB_WINS;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	oci_bundle_release(&b);
	free(root);
	free(text);
	free(cfg);
	free(bundle);
	return rc;
}

static void lower_release(struct lower *lw)
{
	if (lw->fd >= 0)
		close(lw->fd);
	free(lw->dir);
	free(lw->workdir);
	strv_free(lw->env);
}

/* SPOOL/containers/jobN/NAME and its upper, work and root directories. */
static int make_dirs(struct stepd *st, struct container *c, const char *jobdir,
                     struct rota_error *err)
{
	if (mkdir_in(st->spool, "containers", 0700, err) < 0 ||
	    (mkdir(jobdir, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(c->dir, 0700) < 0 && errno != EEXIST) ||
	    mkdir_in(c->dir, "upper", 0755, err) < 0 ||
	    mkdir_in(c->dir, "work", 0700, err) < 0 ||
	    mkdir_in(c->dir, "root", 0755, err) < 0) {
		if (!err->text[0])
			errprintf(err, "mkdir %s: %s", c->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int container_setup(struct stepd *st, struct rota_error *err)
{
	const struct launch_req *r = st->req;
	struct ctr_mounts m = {0};
	struct lower lw = {.fd = -1};
	struct container *c;
	char *jobdir;
	int rc = -1;

	if (!r->container_image && !r->container)
		return 0;
	if (!st->as_root)
		return errprintf(err, "containers need rotad to run as root");
	if (r->container_image && r->container)
		return errprintf(err,
		                 "--container and --container-image exclude each other");
	if (check_request(r, &m, err) < 0)
		return -1;
	c = xcalloc(1, sizeof(*c));
	c->flags = r->container_flags;
	c->named = r->container_name != NULL;
	jobdir = container_job_dir(st->spool, r->job_id);
	c->dir = r->container_name ? xasprintf("%s/%s", jobdir, r->container_name)
	         : st->batch       ? xasprintf("%s/batch", jobdir)
	                           : xasprintf("%s/step.%u", jobdir, r->step_id);
	c->root = xasprintf("%s/root", c->dir);
	st->ctr = c;
	if (make_dirs(st, c, jobdir, err) < 0 || enter_mount_ns(err) < 0 ||
	    (r->container_image ? lower_from_image(st, c, &lw, err)
	                        : lower_from_bundle(st, &lw, err)) < 0 ||
	    mount_root(c, lw.dir, err) < 0 || mount_all(st, c, &m, err) < 0)
		goto out;
	c->workdir = xstrdup(r->container_workdir ? r->container_workdir
	                     : lw.workdir         ? lw.workdir
	                                          : "/");
	apply_env(st, lw.env, lw.rule);
	rc = 0;
out:
	lower_release(&lw);
	ctrspec_mounts_release(&m);
	free(jobdir);
	return rc;
}

/* --container-remap-root: root of a user namespace holding only the user. */
static int remap_root(uid_t uid, gid_t gid)
{
	char map[64];
	int fd, rc = 0;
	const struct {
		const char *file;
		unsigned id;
	} maps[] = {{"/proc/self/uid_map", uid}, {"/proc/self/gid_map", gid}};

	/* the uid changes left us undumpable: /proc/self/ would be root's */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 || unshare(CLONE_NEWUSER) < 0)
		return -1;
	if ((fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC)) >= 0) {
		rc = write(fd, "deny", 4) < 0 ? -1 : 0;
		close(fd);
	}
	for (size_t i = 0; i < 2 && rc == 0; i++) {
		int n = snprintf(map, sizeof(map), "0 %u 1\n", maps[i].id);
		if ((fd = open(maps[i].file, O_WRONLY | O_CLOEXEC)) < 0)
			return -1;
		rc = write(fd, map, (size_t)n) != n ? -1 : 0;
		close(fd);
	}
	return rc;
}

int container_child_enter(const struct stepd *st, char *why, size_t len)
{
	const struct container *c = st->ctr;
	const char *step = "";

	if (seteuid(0) < 0)
		step = "seteuid";
	else if (unshare(CLONE_NEWNS) < 0)
		step = "unshare";
	else if (chdir(c->root) < 0)
		step = "chdir";
	else if (syscall(SYS_pivot_root, ".", ".") < 0)
		step = "pivot_root";
	else if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		step = "umount";
	else if (setresuid(st->uid, st->uid, st->uid) < 0)
		step = "setresuid";
	else if ((c->flags & CTR_F_REMAP_ROOT) && remap_root(st->uid, st->gid) < 0)
		step = "user namespace";
	else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		step = "no_new_privs";
	if (*step) {
		snprintf(why, len, "cannot enter the container: %s: %s", step,
		         strerror(errno));
		return -1;
	}
	if (chdir(c->workdir) < 0) {
		snprintf(why, len, "couldn't chdir to `%s' in the container: %s",
		         c->workdir, strerror(errno));
		return -1;
	}
	return 0;
}

void container_destroy(struct container *c)
{
	if (!c)
		return;
	if (umount2(c->root, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		log_debug("umount %s: %s", c->root, strerror(errno));
	if (!c->named) {
		int rc = fstree_remove(c->dir);
		if (rc < 0)
			log_err("cannot remove container %s: %s", c->dir, strerror(-rc));
	}
	free(c->dir);
	free(c->root);
	free(c->workdir);
	free(c);
}
