/* hostfile.h - a Slurm hostfile (SLURM_HOSTFILE, -F/--nodefile): node names
 * one per line or comma separated, '#' to the end of a line a comment (\#
 * a '#' of a name), name*N for N times the name, hostlist ranges
 * (node[1-3]).  The names keep the file's order and repeats: with
 * -m arbitrary the n-th is task n's node. */
#ifndef ROTA_COMMON_HOSTFILE_H
#define ROTA_COMMON_HOSTFILE_H

#include <stddef.h>

struct rota_error;

#define HOSTFILE_MAX_BYTES (16u << 20)

/* Read up to max names (0: all) of the file at path into *ret_names
 * (hostlist_free) and *ret_n.  0, or -1 with err saying why (in Slurm's
 * words where it has them). */
int hostfile_read(const char *path, size_t max, char ***ret_names, size_t *ret_n,
                  struct rota_error *err);

/* The same from the text of such a file (what hostfile_read reads). */
int hostfile_parse(const char *text, const char *path, size_t max, char ***ret_names,
                   size_t *ret_n, struct rota_error *err);

#endif
