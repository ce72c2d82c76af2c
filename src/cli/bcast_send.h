/* bcast_send.h - sending a file to a job's nodes, block by block through the
 * controller (ctld/bcast.h), which has each node write it as the job's user
 * (noded/bcast.h).  sbcast and srun --bcast share it.
 */
#ifndef ROTA_CLI_BCAST_SEND_H
#define ROTA_CLI_BCAST_SEND_H

#include <stdint.h>

struct bcast_send {
	uint32_t job_id, step_id; /* step NO_VAL: the job's nodes */
	int force, preserve;      /* BCAST_F_FORCE, BCAST_F_PRESERVE on each block */
	int verbose;              /* say the source's stat and the nodes (-v) */
	const char *exclude;      /* library directories kept back, "a,b" or
	                             "NONE"; NULL: BcastExclude.  Borrowed */
	uint32_t block;           /* bytes a block; 0: 8 MiB */
	uint32_t timeout;         /* each node's, seconds; 0: the controller's */
};

/* Send src (a local file) to dst on every node.  extra: BCAST_F_* added to
 * each block; first_call: the command's first file (its errors say the job,
 * -v says the stat and the nodes).  Returns 0, or 1 when it said why. */
int bcast_send_file(const struct bcast_send *o, const char *src, const char *dst,
                    uint32_t extra, int first_call);

/* --send-libs: the shared libraries ldd names for src, but those under the
 * excluded directories, sent into dst_libs/ (created on the nodes).  Returns
 * 0 and sets *ret_count (may be NULL) to the number sent, or 1 when it said
 * why. */
int bcast_send_libs(const struct bcast_send *o, const char *src, const char *dst,
                    int *ret_count);

/* --compress[=lib] (NULL: the default): 1 to compress, 0 for "none"; -1
 * when not lz4 or none (said why). */
int bcast_send_compress(const char *arg);
/* Rota sends uncompressed: "PROG: lz4 compression not supported, ...". */
void bcast_send_uncompressed(void);

/* Where name goes on the nodes: name when absolute, else under
 * BcastParameters' DestDir, else under cwd (borrowed).  Caller frees. */
char *bcast_send_path(const char *name, const char *cwd);

#endif
