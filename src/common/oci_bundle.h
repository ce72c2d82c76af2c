/* oci_bundle.h - what Rota reads of an OCI runtime bundle's config.json
 * (srun --container=PATH, Slurm's option): the root file system, the
 * process's environment and working directory.  The job's command, user and
 * mounts are Rota's, not the bundle's (as Slurm replaces them); hooks,
 * namespaces, capabilities and the rest are not read.  Library: logs nothing.
 */
#ifndef ROTA_COMMON_OCI_BUNDLE_H
#define ROTA_COMMON_OCI_BUNDLE_H

#include <stddef.h>
#include "common/error.h"

#define OCI_BUNDLE_ENV_MAX 4096 /* process.env entries */

struct oci_bundle {
	char *root; /* root.path as written (default "rootfs"); relative ones are
	               below the bundle */
	char **env; /* process.env, NULL-terminated (may be empty) */
	char *cwd;  /* process.cwd, NULL when not given */
};

/* Parse config.json text into *ret (release with oci_bundle_release).
 * Returns 0, or -1 with err (*ret untouched). */
int oci_bundle_parse(const char *json, size_t len, struct oci_bundle *ret,
                     struct rota_error *err);
void oci_bundle_release(struct oci_bundle *b);

#endif
