/* container.h - run a step's tasks in a container (--container-image).
 *
 * DESIGN: the step daemon (root) does it itself with namespaces rather than
 * through an OCI runtime such as crun: the tasks stay its own children, in
 * the step's cgroup, with the pipes, pseudo-terminal, signals and exit codes
 * the rest of the step daemon already handles, and nothing has to agree with
 * a runtime about cgroups (crun would make its own below ours).
 *   container_setup (step daemon, before the tasks): import the image into
 *   the node's cache (common/oci_image.h), opening the image's files as the
 *   user; enter a private mount namespace of its own; mount an overlay (the
 *   cached image below, the container's own directory above: the cache is
 *   never changed) on SPOOL/containers/jobN/NAME/root; a fresh /proc, /sys,
 *   a small /dev, the user's home and --container-mounts (each source opened
 *   as the user, each target made inside the root with symbolic links
 *   resolved in it); the user's passwd and group lines.
 *   container_child_enter (each task's child, after its standard streams
 *   were opened as the user): its own mount namespace, pivot_root into the
 *   container, the user's uid for good (or, with --container-remap-root, root
 *   of a user namespace that maps only the user), no_new_privs, the workdir.
 * A named container (--container-name) keeps its upper directory, so the
 * job's later steps here see what earlier ones wrote; rotad removes
 * SPOOL/containers/jobN at the job's end.  An unnamed one is removed when its
 * step ends.
 */
#ifndef ROTA_STEPD_CONTAINER_H
#define ROTA_STEPD_CONTAINER_H

#include <stddef.h>
#include "common/error.h"

struct stepd;
struct container;

/* When the launch names an image: make the container and set st->ctr, and
 * the image's environment into st->env.  Returns 0 (also with no image) or -1
 * with err (the step fails with that text). */
int container_setup(struct stepd *st, struct rota_error *err);

/* In a task's child, as the user for file access (setresuid(uid, uid, 0)):
 * enter the container and drop root for good.  Returns 0, or -1 with why
 * (the child then fails).  Allocates nothing. */
int container_child_enter(const struct stepd *st, char *why, size_t len);

/* Leave and, unless named, remove the container.  NULL is fine. */
void container_destroy(struct container *c);

/* SPOOL/containers/jobN, which rotad removes at the job's end.  Caller frees. */
char *container_job_dir(const char *spool, unsigned job_id);

#endif
