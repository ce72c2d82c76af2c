/* oci_image.h - container images imported once per node into a cache.
 *
 * DESIGN: an image is named three ways (--container-image):
 *   a tarball of a root file system (.tar, .tar.gz, .tgz; gzip and zstd are
 *   recognised by their first bytes),
 *   a directory in OCI image layout (index.json, blobs/sha256/...): the
 *   manifest's layers are extracted in order and their whiteouts honoured,
 *   [USER@][REGISTRY#]NAME[:TAG]: the OCI layout MIRROR/REGISTRY/NAME (or
 *   MIRROR/NAME), the manifest whose org.opencontainers.image.ref.name is TAG
 *   (default latest) - what `skopeo copy docker://R/N:T oci:MIRROR/R/N:T` makes.
 * The cache holds one directory per image, named by content: sha256-HEX of the
 * tarball, or of the OCI manifest (every blob read is checked against its
 * digest while it is read, so a layout cannot pass off other content under a
 * known digest).  One import per image at a time (a lock file in the cache;
 * the others wait for it), into a temporary directory renamed into place, so
 * that no job ever sees half an image and a crashed import leaves nothing.
 * An entry holds rootfs/, and env (NUL-separated NAME=VALUE) and workdir from
 * the image's configuration when it has one.
 *
 * The image's files are opened through opts->open (the step daemon opens them
 * as the job's user); tar(1) extracts.  Blocking; logs nothing.
 */
#ifndef ROTA_COMMON_OCI_IMAGE_H
#define ROTA_COMMON_OCI_IMAGE_H

#include "common/error.h"

#define OCI_JSON_MAX   (4u << 20) /* bytes of index, manifest or config */
#define OCI_LAYERS_MAX 256        /* layers of one image */

/* Open path read-only for the image's owner: an fd or -errno. */
typedef int (*oci_open_f)(void *ctx, const char *path);

struct oci_image_opts {
	const char *cache_dir;  /* made 0700 when missing */
	const char *mirror_dir; /* NULL: references are refused */
	oci_open_f open;        /* NULL: open(2) */
	void *open_ctx;
};

enum oci_kind { OCI_KIND_TARBALL = 1, OCI_KIND_LAYOUT, OCI_KIND_REFERENCE };

/* How image names an image: a path (starts with '/' or '.', or ends in .tar,
 * .tar.gz, .tgz) is a tarball unless it is a directory; else a reference. */
enum oci_kind oci_image_kind(const char *image, int is_dir);

/* A reference's OCI layout directory and tag (caller frees both).  Returns 0
 * or -1 (err: a malformed reference or no mirror). */
int oci_image_reference(const char *ref, const char *mirror_dir, char **ret_dir,
                        char **ret_tag, struct rota_error *err);

/* The manifest digest ("sha256:HEX") that index.json text picks for tag
 * (NULL: the only one, or the one tagged latest).  Caller frees.  Returns 0 or
 * -1 with err. */
int oci_index_pick(const char *index_json, size_t len, const char *tag, char **ret_digest,
                   struct rota_error *err);

/* Import image (an absolute path or a reference) unless the cache has it.
 * *ret_dir: its cache entry (caller frees); *ret_imported: 1 when this call
 * filled it.  Returns 0 or -1 with err. */
int oci_image_get(const char *image, const struct oci_image_opts *opts, char **ret_dir,
                  int *ret_imported, struct rota_error *err);

#endif
