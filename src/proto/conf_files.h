/* conf_files.h - configless nodes (Slurm's configless mode): the files the
 * controller serves, the server list a node asks, and the node's cache.
 *
 * DESIGN: with SlurmctldParameters=enable_configless the controller answers
 * MSG_CONF_FILES_REQ with slurm.conf, every file its Include lines read (as
 * the parser resolved them) and gres.conf, cgroup.conf and topology.conf when
 * they sit beside it, each named relative to slurm.conf's directory.  `rotad
 * --conf-server HOST[:PORT][,HOST2[:PORT]]` asks the servers in order, writes
 * the answer into its cache directory (each file 0644, written to a temporary
 * name and renamed) and reads slurm.conf from there, so that Include lines
 * and the files beside slurm.conf resolve in the cache.  Files outside
 * slurm.conf's directory (an absolute Include elsewhere) are not served.
 * Pure but for the files read and written; no logging.
 */
#ifndef ROTA_PROTO_CONF_FILES_H
#define ROTA_PROTO_CONF_FILES_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"
#include "proto/messages.h"

struct conf;

#define CONF_SERVERS_MAX 16         /* hosts in a --conf-server list */
#define CONF_FILES_MAX   64         /* files in one answer */
#define CONF_FILE_MAX    (4u << 20) /* bytes of one file */

struct conf_server {
	char *host; /* name or address; an IPv6 address without its [] */
	uint16_t port;
};

/* Parse "HOST[:PORT][,HOST[:PORT]]..." ("[v6addr]:PORT" for IPv6); a host
 * without a port gets default_port.  Returns the count and sets *ret (caller
 * frees with conf_servers_free), or -EINVAL with err saying why (an empty
 * host, a bad port, more than CONF_SERVERS_MAX). */
int conf_servers_parse(const char *spec, uint16_t default_port, struct conf_server **ret,
                       struct rota_error *err);
void conf_servers_free(struct conf_server *s, size_t n); /* NULL allowed */

/* Fill *ret (zeroed by the caller; release with codec_release) with the files
 * of conf (borrowed; conf->path and conf->files), read from disk now.
 * Returns 0, or -errno with err "path: why". */
int conf_files_collect(const struct conf *conf, struct conf_files *ret,
                       struct rota_error *err);

/* A digest of the files' names and texts: equal digests, the same files. */
void conf_files_digest(const struct conf_files *files, uint8_t out[32]);

/* Is name one a cache may hold: relative, no "." or ".." component, no empty
 * one, printable, at most 255 bytes? */
int conf_file_name_ok(const char *name);

/* Write files (borrowed) into dir (created 0755 when missing, its parents
 * too): each atomically, mode 0644; top-level regular files of dir that
 * files does not name are removed.  The first file must be slurm.conf.
 * Returns 0, or -errno with err; on failure the files already renamed into
 * place stay. */
int conf_files_write(const char *dir, const struct conf_files *files,
                     struct rota_error *err);

/* Point the symbolic link at link_path to dir (atomically: a new link renamed
 * over it), creating link_path's parent directory when missing. */
int conf_files_link(const char *link_path, const char *dir, struct rota_error *err);

#endif
