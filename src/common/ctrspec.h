/* ctrspec.h - the container options of srun, sbatch and salloc (the Pyxis
 * options), checked once with Slurm-style words and parsed where they are used.
 *
 *   --container-image=IMAGE          a tarball of a root file system (.tar,
 *                                    .tar.gz, .tgz), a directory in OCI image
 *                                    layout, or [REGISTRY#]NAME[:TAG] looked up
 *                                    in the node's mirror (common/oci_image.h)
 *   --container-mounts=SRC[:DST[:FLAGS]][,...]   FLAGS: ro, rw (joined by +)
 *   --container-workdir=DIR          absolute path inside the container
 *   --container-env=NAME[,NAME...]   host values win over the image's
 *   --container-name=NAME            keep the container for the job's later steps
 *   --[no-]container-remap-root, --[no-]container-mount-home  (CTR_F_*)
 *   --container=PATH                 Slurm's: an OCI bundle (config.json and
 *                                    its root file system), instead of an image
 *
 * Every size has a limit below; a value past it is refused with the option's
 * name.  The strings travel as given (messages.h CONTAINER_FIELDS).
 */
#ifndef ROTA_COMMON_CTRSPEC_H
#define ROTA_COMMON_CTRSPEC_H

#include <stddef.h>
#include "common/error.h"

#define CTRSPEC_IMAGE_MAX   1024 /* characters of --container-image */
#define CTRSPEC_PATH_MAX    1024 /* characters of one mount path or the workdir */
#define CTRSPEC_MOUNTS_MAX  64   /* entries of --container-mounts */
#define CTRSPEC_ENV_MAX     128  /* names in --container-env */
#define CTRSPEC_ENVNAME_MAX 255  /* characters of one of them */
#define CTRSPEC_NAME_MAX    64   /* characters of --container-name */

enum ctr_flags {
	CTR_F_REMAP_ROOT = 1 << 0,    /* --container-remap-root */
	CTR_F_NO_MOUNT_HOME = 1 << 1, /* --no-container-mount-home */
};

enum ctr_mount_flags { CTR_MOUNT_RO = 1 << 0 };

struct ctr_mount {
	const char *src, *dst; /* absolute paths, into ctr_mounts.buf */
	unsigned flags;        /* CTR_MOUNT_* */
};

struct ctr_mounts {
	size_t n;
	struct ctr_mount *v; /* [n] */
	char *buf;           /* the strings */
};

/* Parse --container-mounts into *ret (release with ctrspec_mounts_release).
 * NULL or "" gives no mounts.  Returns 0, -1 (err says why) or -ENOMEM;
 * *ret is untouched on failure. */
int ctrspec_mounts_parse(const char *arg, struct ctr_mounts *ret, struct rota_error *err);
void ctrspec_mounts_release(struct ctr_mounts *m);

/* Checks of the other options: 0 or -1 with err saying why.  NULL is
 * valid (not given). */
int ctrspec_check_image(const char *image, struct rota_error *err);
int ctrspec_check_mounts(const char *mounts, struct rota_error *err); /* as _parse */
int ctrspec_check_bundle(const char *path, struct rota_error *err);
int ctrspec_check_workdir(const char *dir, struct rota_error *err);
int ctrspec_check_name(const char *name, struct rota_error *err);
int ctrspec_check_env(const char *names, struct rota_error *err);

/* Is NAME one of the comma-separated names in list (--container-env)? */
int ctrspec_env_has(const char *list, const char *name, size_t name_len);

#endif
