/* reconfig.h - scontrol reconfigure and SIGHUP: slurm.conf read again and
 * applied without losing or restarting a job.
 *
 * Nodes and partitions may be added, removed or changed; limits and
 * scheduler parameters apply from the next pass.  Refused, with the running
 * configuration kept: a file that does not load (the error says file:line), a
 * key that only takes effect after a restart (SlurmctldPort...), removing a
 * node that holds a job or a partition with jobs, changing the CPUs of a node
 * in use.  The configurations replaced stay allocated until exit (nothing
 * may still point into them).  With enable_configless the connected node
 * daemons are sent the files again (proto/conf_files.h). */
#ifndef ROTA_CTLD_RECONFIG_H
#define ROTA_CTLD_RECONFIG_H

#include "common/error.h"

struct ctld;
struct conf;

/* 0, or -1 with err saying why nothing changed. */
int ctld_reconfigure(struct ctld *ctld, struct rota_error *err);

/* With enable_configless, read the files to serve (proto/conf_files.h) into
 * ctld->conf_files; otherwise, or when they cannot be read (logged), it is
 * NULL.  At start; ctld_reconfigure calls it again. */
void ctld_conf_files_load(struct ctld *ctld);

/* The configurations reconfigure replaced, and the files served (main frees
 * them at exit). */
void ctld_reconfig_release(struct ctld *ctld);

#endif
