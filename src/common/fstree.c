/* fstree.c - remove a tree; apply an image layer with whiteouts (fstree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/fstree.h"

#define WH_PREFIX ".wh."
#define WH_OPAQUE ".wh..wh..opq"

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

int fstree_remove(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) < 0 ? -errno : 0;
	if (nftw(path, remove_one, 64, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* Remove everything inside name in parent (not name itself). */
static int empty_dir_at(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d)) && rc == 0) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != ENOTEMPTY && errno != EPERM)
			rc = -errno;
		else if ((rc = empty_dir_at(fd, e->d_name)) == 0 &&
		         unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0)
			rc = -errno;
	}
	closedir(d);
	return rc;
}

/* Remove name in dirfd, whatever it is. */
static int remove_at(int dirfd, const char *name)
{
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	if (empty_dir_at(dirfd, name) < 0 || unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		return -errno;
	return 0;
}

static int apply_dir(int src, int dst);

/* One entry of the layer. */
static int apply_entry(int src, int dst, const char *name)
{
	struct stat s, d;
	int rc, sfd, dfd;

	if (!strncmp(name, WH_PREFIX, strlen(WH_PREFIX))) {
		if (!strcmp(name, WH_OPAQUE))
			return unlinkat(src, name, 0) < 0 ? -errno : 0;
		if ((rc = remove_at(dst, name + strlen(WH_PREFIX))) < 0)
			return rc;
		return unlinkat(src, name, 0) < 0 ? -errno : 0;
	}
	if (fstatat(src, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISDIR(s.st_mode) && fstatat(dst, name, &d, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(d.st_mode)) {
		sfd = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		dfd = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = sfd < 0 || dfd < 0 ? -errno : apply_dir(sfd, dfd);
		if (rc == 0) { /* the layer's mode and owner win */
			fchmod(dfd, s.st_mode & 07777);
			if (fchown(dfd, s.st_uid, s.st_gid) < 0)
				rc = -errno;
		}
		if (sfd >= 0)
			close(sfd);
		if (dfd >= 0)
			close(dfd);
		return rc;
	}
	if ((rc = remove_at(dst, name)) < 0)
		return rc;
	return renameat(src, name, dst, name) < 0 ? -errno : 0;
}

static int apply_dir(int src, int dst)
{
	int fd = dup(src), rc = 0;
	DIR *d;
	struct dirent *e;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	/* an opaque directory hides what lower layers put there */
	if (faccessat(src, WH_OPAQUE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		rc = empty_dir_at(dst, ".");
	}
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rc = apply_entry(src, dst, e->d_name);
	}
	closedir(d);
	return rc;
}

int fstree_apply_layer(const char *layer_dir, const char *rootfs_dir)
{
	int src = open(layer_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int dst = open(rootfs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = src < 0 || dst < 0 ? -errno : apply_dir(src, dst);

	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	return rc;
}
