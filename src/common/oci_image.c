/* oci_image.c - import container images into the node's cache (oci_image.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/fstree.h"
#include "common/oci_image.h"
#include "common/sha256.h"

#define REF_NAME_ANN "org.opencontainers.image.ref.name"
#define DIGEST_HEX   64

/* ---- naming ---- */

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && !strcmp(s + n - k, suf);
}

enum oci_kind oci_image_kind(const char *image, int is_dir)
{
	if (is_dir)
		return OCI_KIND_LAYOUT;
	if (image[0] == '/' || image[0] == '.' || has_suffix(image, ".tar") ||
	    has_suffix(image, ".tar.gz") || has_suffix(image, ".tgz"))
		return OCI_KIND_TARBALL;
	return OCI_KIND_REFERENCE;
}

static int name_ok(const char *s, const char *extra)
{
	if (!*s || s[0] == '/' || s[0] == '.' || strstr(s, ".."))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return 0;
	return 1;
}

int oci_image_reference(const char *ref, const char *mirror_dir, char **ret_dir,
                        char **ret_tag, struct rota_error *err)
{
	const char *p = strchr(ref, '@'), *hash, *slash, *colon;
	char *name = NULL, *tag = NULL, *reg = NULL, *dir = NULL;
	int rc = -1;

	if (!mirror_dir)
		return errprintf(err,
		                 "image `%s' is not a file and this node has no image "
		                 "mirror (ContainerImageMirror)",
		                 ref);
	p = p ? p + 1 : ref; /* USER@: credentials, not needed for a mirror */
	if ((hash = strchr(p, '#'))) {
		reg = strndup(p, (size_t)(hash - p));
		p = hash + 1;
	}
	slash = strrchr(p, '/');
	colon = strrchr(p, ':');
	if (colon && (!slash || colon > slash)) {
		name = strndup(p, (size_t)(colon - p));
		tag = strdup(colon + 1);
	} else {
		name = strdup(p);
		tag = strdup("latest");
	}
	if (!name || !tag || (hash && !reg)) {
		errprintf(err, "out of memory");
		goto out;
	}
	if (!name_ok(name, "._-/") || !name_ok(tag, "._-") ||
	    (reg && !name_ok(reg, ".-:"))) {
		errprintf(err, "invalid image reference `%s'", ref);
		goto out;
	}
	if (reg ? asprintf(&dir, "%s/%s/%s", mirror_dir, reg, name) < 0
	        : asprintf(&dir, "%s/%s", mirror_dir, name) < 0) {
		dir = NULL;
		errprintf(err, "out of memory");
		goto out;
	}
	*ret_dir = dir;
	*ret_tag = tag;
	dir = tag = NULL;
	rc = 0;
out:
	free(reg);
	free(name);
	free(tag);
	free(dir);
	return rc;
}

/* "sha256:HEX" with 64 lower-case hex digits: its HEX, or NULL. */
static const char *digest_hex(const char *digest)
{
	if (!digest || strncmp(digest, "sha256:", 7) ||
	    strlen(digest + 7) != DIGEST_HEX ||
	    strspn(digest + 7, "0123456789abcdef") != DIGEST_HEX)
		return NULL;
	return digest + 7;
}

static int is_index_type(const char *mt)
{
	return mt && (strstr(mt, "image.index") || strstr(mt, "manifest.list"));
}

/* This machine's architecture in OCI's words. */
#if defined(__x86_64__)
#define OCI_ARCH "amd64"
#elif defined(__aarch64__)
#define OCI_ARCH "arm64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OCI_ARCH "ppc64le"
#else
#define OCI_ARCH "unknown"
#endif
static const char PICK_ANY[] = "*"; /* no tag has one */

/* Of an index's manifests, those tagged tag (NULL: untagged ones, PICK_ANY:
 * all): the one for this machine's architecture, else the first. */
static json_t *pick_manifest(json_t *ms, const char *tag)
{
	json_t *e, *first = NULL, *best = NULL;
	size_t i;

	json_array_foreach(ms, i, e)
	{
		const char *name = json_string_value(
		    json_object_get(json_object_get(e, "annotations"), REF_NAME_ANN));
		const char *arch = json_string_value(
		    json_object_get(json_object_get(e, "platform"), "architecture"));
		if (tag != PICK_ANY && (tag ? !name || strcmp(name, tag) : name != NULL))
			continue;
		if (!first)
			first = e;
		if (!best && arch && !strcmp(arch, OCI_ARCH))
			best = e;
	}
	return best ? best : first;
}

/* The digest of the manifest pick names, checked; caller frees. */
static int pick_digest(json_t *pick, char **ret_digest, struct rota_error *err)
{
	const char *d = json_string_value(json_object_get(pick, "digest"));

	if (!digest_hex(d))
		return errprintf(err, "index: not a sha256 digest");
	if (!(*ret_digest = strdup(d)))
		return errprintf(err, "out of memory");
	return 0;
}

int oci_index_pick(const char *index_json, size_t len, const char *tag, char **ret_digest,
                   struct rota_error *err)
{
	json_t *root = json_loadb(index_json, len, 0, NULL), *pick = NULL;
	json_t *ms = json_object_get(root, "manifests");
	const char *want = tag ? tag : "latest";
	int rc = -1;

	if (!json_is_array(ms) || json_array_size(ms) == 0) {
		errprintf(err, "index.json: no manifests");
		goto out;
	}
	pick = pick_manifest(ms, want);
	if (!pick && !strcmp(want, "latest")) /* untagged ones stand for latest */
		pick = pick_manifest(ms, NULL);
	if (!pick && !tag && json_array_size(ms) == 1) /* a layout named by path */
		pick = json_array_get(ms, 0);
	if (!pick)
		errprintf(err, "index.json: no manifest tagged `%s'", want);
	else
		rc = pick_digest(pick, ret_digest, err);
out:
	json_decref(root);
	return rc;
}

/* ---- reading the image's files ---- */

static int open_image_file(const struct oci_image_opts *o, const char *path)
{
	if (o->open)
		return o->open(o->open_ctx, path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void hex_of(const uint8_t d[SHA256_LEN], char out[DIGEST_HEX + 1])
{
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Read a whole small file (at most OCI_JSON_MAX); when want_hex, it must hash
 * to it.  *ret (NUL-terminated) caller frees. */
static int read_small(const struct oci_image_opts *o, const char *path,
                      const char *want_hex, char **ret, size_t *ret_len,
                      struct rota_error *err)
{
	int fd = open_image_file(o, path);
	char *buf = NULL, hex[DIGEST_HEX + 1];
	size_t len = 0;
	ssize_t n;
	uint8_t d[SHA256_LEN];

	if (fd < 0)
		return errprintf(err, "cannot open %s: %s", path, strerror(-fd));
	if (!(buf = malloc(OCI_JSON_MAX + 1))) {
		close(fd);
		return errprintf(err, "out of memory");
	}
	while ((n = read(fd, buf + len, OCI_JSON_MAX + 1 - len)) > 0 &&
	       len <= OCI_JSON_MAX)
		len += (size_t)n;
	close(fd);
	if (n < 0 || len > OCI_JSON_MAX) {
		free(buf);
		return errprintf(err, "%s: %s", path,
		                 n < 0 ? strerror(errno) : "larger than 4 MiB");
	}
	buf[len] = '\0';
	sha256(buf, len, d);
	hex_of(d, hex);
	if (want_hex && strcmp(hex, want_hex)) {
		free(buf);
		return errprintf(err, "%s does not match its digest", path);
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

static char *blob_path(const char *layout, const char *digest)
{
	char *p;
	return asprintf(&p, "%s/blobs/sha256/%s", layout, digest_hex(digest)) < 0 ? NULL
	                                                                          : p;
}

static json_t *read_blob_json(const struct oci_image_opts *o, const char *layout,
                              const char *digest, struct rota_error *err)
{
	char *path = digest_hex(digest) ? blob_path(layout, digest) : NULL, *text = NULL;
	size_t len;
	json_t *j = NULL;

	if (!path) {
		errprintf(err, "%s: invalid digest", layout);
		return NULL;
	}
	if (read_small(o, path, digest_hex(digest), &text, &len, err) == 0 &&
	    !(j = json_loadb(text, len, 0, NULL)))
		errprintf(err, "%s: not JSON", path);
	free(text);
	free(path);
	return j;
}

/* ---- extracting ---- */

/* Run tar -x into dir reading from in_fd, hashing what it reads; when
 * want_hex, the stream must hash to it. */
static int extract(int in_fd, const char *dir, const char *want_hex, const char *what,
                   struct rota_error *err)
{
	static char buf[1 << 16];
	ssize_t n = read(in_fd, buf, sizeof(buf));
	const char *zflag = NULL;
	struct sha256 c;
	int p[2], status, wrc = 0;
	char hex[DIGEST_HEX + 1];
	uint8_t d[SHA256_LEN];
	pid_t pid;

	if (n < 0)
		return errprintf(err, "%s: %s", what, strerror(errno));
	if (n >= 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b)
		zflag = "-z";
	else if (n >= 4 && !memcmp(buf, "\x28\xb5\x2f\xfd", 4))
		zflag = "--zstd";
	if (pipe2(p, O_CLOEXEC) < 0)
		return errprintf(err, "pipe: %s", strerror(errno));
	if ((pid = fork()) == 0) {
		int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
		dup2(p[0], 0);
		if (nul >= 0)
			dup2(nul, 1);
		execlp("tar", "tar", "-x", "-f", "-", "-C", dir, "--numeric-owner",
		       "--no-overwrite-dir", zflag, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return errprintf(err, "fork: %s", strerror(errno));
	}
	sha256_init(&c);
	while (n > 0 && !wrc) { /* tar gone: stop */
		sha256_update(&c, buf, (size_t)n);
		for (ssize_t off = 0, w; off < n && !wrc; off += w)
			if ((w = write(p[1], buf + off, (size_t)(n - off))) < 0)
				wrc = errno == EINTR ? (w = 0) : -errno;
		n = read(in_fd, buf, sizeof(buf));
	}
	close(p[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sha256_final(&c, d);
	hex_of(d, hex);
	if (n < 0)
		return errprintf(err, "%s: %s", what, strerror(errno));
	if (wrc || !WIFEXITED(status) || WEXITSTATUS(status))
		return errprintf(err, "%s: not a tar archive tar(1) can extract", what);
	if (want_hex && strcmp(hex, want_hex))
		return errprintf(err, "%s does not match its digest", what);
	return 0;
}

static int extract_file(const struct oci_image_opts *o, const char *path, const char *dir,
                        const char *want_hex, struct rota_error *err)
{
	int fd = open_image_file(o, path), rc;

	if (fd < 0)
		return errprintf(err, "cannot open %s: %s", path, strerror(-fd));
	rc = extract(fd, dir, want_hex, path, err);
	close(fd);
	return rc;
}

static int hash_file(const struct oci_image_opts *o, const char *path,
                     char hex[DIGEST_HEX + 1], struct rota_error *err)
{
	static char buf[1 << 16];
	int fd = open_image_file(o, path);
	struct sha256 c;
	uint8_t d[SHA256_LEN];
	ssize_t n;

	if (fd < 0)
		return errprintf(err, "cannot open image %s: %s", path, strerror(-fd));
	sha256_init(&c);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&c, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return errprintf(err, "image %s: %s", path, strerror(errno));
	sha256_final(&c, d);
	hex_of(d, hex);
	return 0;
}

/* The image configuration's Env and WorkingDir, as files of the entry. */
static int write_config(const char *tmp, json_t *cfg, struct rota_error *err)
{
	json_t *c = json_object_get(cfg, "config"), *v;
	const char *wd = json_string_value(json_object_get(c, "WorkingDir"));
	char path[4096];
	size_t i;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/env", tmp) >= (int)sizeof(path) ||
	    !(f = fopen(path, "we")))
		return errprintf(err, "%s: %s", path, strerror(errno));
	json_array_foreach(json_object_get(c, "Env"), i, v) if (json_string_value(v))
	    fwrite(json_string_value(v), 1, strlen(json_string_value(v)) + 1, f);
	if (fclose(f) != 0)
		return errprintf(err, "%s: %s", path, strerror(errno));
	if (!wd || wd[0] != '/')
		return 0;
	if (snprintf(path, sizeof(path), "%s/workdir", tmp) >= (int)sizeof(path) ||
	    !(f = fopen(path, "we")))
		return errprintf(err, "%s: %s", path, strerror(errno));
	fputs(wd, f);
	return fclose(f) != 0 ? errprintf(err, "%s: %s", path, strerror(errno)) : 0;
}

/* A manifest (descending one image index, picking this machine's platform). */
static json_t *layout_manifest(const struct oci_image_opts *o, const char *layout,
                               const char *tag, char **ret_digest, struct rota_error *err)
{
	char *path = NULL, *text = NULL, *digest = NULL;
	size_t len;
	json_t *m = NULL;

	if (asprintf(&path, "%s/index.json", layout) < 0) {
		errprintf(err, "out of memory");
		return NULL;
	}
	if (read_small(o, path, NULL, &text, &len, err) < 0 ||
	    oci_index_pick(text, len, tag, &digest, err) < 0)
		goto out;
	m = read_blob_json(o, layout, digest, err);
	if (m && is_index_type(json_string_value(json_object_get(m, "mediaType")))) {
		/* an image index (several platforms): this machine's */
		json_t *pick = pick_manifest(json_object_get(m, "manifests"), PICK_ANY);

		free(digest);
		digest = NULL;
		if (!pick)
			errprintf(err, "%s: empty image index", layout);
		else if (is_index_type(
		             json_string_value(json_object_get(pick, "mediaType"))))
			errprintf(err, "%s: an image index inside an image index",
			          layout);
		else
			pick_digest(pick, &digest, err);
		json_decref(m);
		m = digest ? read_blob_json(o, layout, digest, err) : NULL;
	}
	if (m && ret_digest) {
		*ret_digest = digest;
		digest = NULL;
	}
out:
	free(path);
	free(text);
	free(digest);
	return m;
}

/* The layers of manifest m, in order, into tmp/rootfs. */
static int import_layers(const struct oci_image_opts *o, const char *layout, json_t *m,
                         const char *tmp, struct rota_error *err)
{
	json_t *layers = json_object_get(m, "layers"), *l, *cfg;
	char rootfs[4096], stage[4096];
	size_t i;
	int rc = 0;

	if (!json_is_array(layers) || json_array_size(layers) > OCI_LAYERS_MAX)
		return errprintf(err, "%s: manifest without layers or more than %d",
		                 layout, OCI_LAYERS_MAX);
	if (snprintf(rootfs, sizeof(rootfs), "%s/rootfs", tmp) >= (int)sizeof(rootfs) ||
	    snprintf(stage, sizeof(stage), "%s/layer", tmp) >= (int)sizeof(stage))
		return errprintf(err, "%s: path too long", tmp);
	json_array_foreach(layers, i, l)
	{
		const char *digest = json_string_value(json_object_get(l, "digest"));
		char *path = digest_hex(digest) ? blob_path(layout, digest) : NULL;
		if (!path)
			return errprintf(err, "%s: layer %zu: invalid digest", layout, i);
		if (mkdir(stage, 0700) < 0) {
			free(path);
			return errprintf(err, "mkdir %s: %s", stage, strerror(errno));
		}
		rc = extract_file(o, path, stage, digest_hex(digest), err);
		free(path);
		if (rc == 0 && (rc = fstree_apply_layer(stage, rootfs)) < 0)
			return errprintf(err, "layer %zu: %s", i, strerror(-rc));
		fstree_remove(stage);
		if (rc < 0)
			return rc;
	}
	cfg = json_object_get(m, "config");
	if (!digest_hex(json_string_value(json_object_get(cfg, "digest"))))
		return 0;
	if (!(cfg = read_blob_json(
	          o, layout, json_string_value(json_object_get(cfg, "digest")), err)))
		return -1;
	rc = write_config(tmp, cfg, err);
	json_decref(cfg);
	return rc;
}

/* ---- the cache ---- */

static int entry_exists(const char *entry)
{
	char path[4096];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/rootfs", entry);
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Move tmp to entry; when someone else was first, theirs stays. */
static int publish(char *tmp, const char *entry, int *ret_imported,
                   struct rota_error *err)
{
	if (rename(tmp, entry) == 0) {
		*ret_imported = 1;
		return 0;
	}
	if (errno != EEXIST && errno != ENOTEMPTY)
		return errprintf(err, "rename %s: %s", entry, strerror(errno));
	fstree_remove(tmp);
	*ret_imported = 0;
	return 0;
}

int oci_image_get(const char *image, const struct oci_image_opts *o, char **ret_dir,
                  int *ret_imported, struct rota_error *err)
{
	char *layout = NULL, *tag = NULL, *digest = NULL, *entry = NULL, tmp[4096];
	char hex[DIGEST_HEX + 1], rootfs[4200];
	json_t *m = NULL;
	struct stat sb;
	int rc = -1, imported = 0, tmp_made = 0, lock = -1;
	enum oci_kind kind;

	if (mkdir(o->cache_dir, 0700) < 0 && errno != EEXIST)
		return errprintf(err, "mkdir %s: %s", o->cache_dir, strerror(errno));
	kind = oci_image_kind(image, stat(image, &sb) == 0 && S_ISDIR(sb.st_mode));
	if (kind == OCI_KIND_REFERENCE) {
		if (oci_image_reference(image, o->mirror_dir, &layout, &tag, err) < 0)
			return -1;
		if (stat(layout, &sb) < 0) {
			errprintf(err, "image `%s' is not in this node's mirror (%s)",
			          image, layout);
			goto out;
		}
	} else if (kind == OCI_KIND_LAYOUT && !(layout = strdup(image))) {
		return errprintf(err, "out of memory");
	}
	if (layout) {
		if (!(m = layout_manifest(o, layout, tag, &digest, err)))
			goto out;
		snprintf(hex, sizeof(hex), "%s", digest_hex(digest));
	} else if (hash_file(o, image, hex, err) < 0) {
		goto out;
	}
	if (asprintf(&entry, "%s/sha256-%s", o->cache_dir, hex) < 0) {
		entry = NULL;
		errprintf(err, "out of memory");
		goto out;
	}
	if (entry_exists(entry)) {
		rc = 0;
		goto out;
	}
	/* one import at a time per image on this node: the others wait, then
	 * find it (the rename below keeps even unlocked imports safe) */
	snprintf(tmp, sizeof(tmp), "%s/.lock-%s", o->cache_dir, hex);
	if ((lock = open(tmp, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		while (flock(lock, LOCK_EX) < 0 && errno == EINTR)
			;
	if (entry_exists(entry)) {
		rc = 0;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s/.import-XXXXXX", o->cache_dir);
	if (!mkdtemp(tmp)) {
		errprintf(err, "mkdtemp %s: %s", tmp, strerror(errno));
		goto out;
	}
	tmp_made = 1;
	chmod(tmp, 0755);
	snprintf(rootfs, sizeof(rootfs), "%s/rootfs", tmp);
	if (mkdir(rootfs, 0755) < 0) {
		errprintf(err, "mkdir %s: %s", rootfs, strerror(errno));
		goto out;
	}
	if (layout ? import_layers(o, layout, m, tmp, err) < 0
	           : extract_file(o, image, rootfs, hex, err) < 0)
		goto out;
	if (publish(tmp, entry, &imported, err) < 0)
		goto out;
	tmp_made = 0;
	rc = 0;
out:
	if (tmp_made)
		fstree_remove(tmp);
	if (lock >= 0)
		close(lock);
	if (rc == 0) {
		*ret_dir = entry;
		*ret_imported = imported;
		entry = NULL;
	}
	json_decref(m);
	free(entry);
	free(layout);
	free(tag);
	free(digest);
	return rc;
}
