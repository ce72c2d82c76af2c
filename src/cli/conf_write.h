/* conf_write.h - `scontrol write config`'s file: the configuration the
 * controller runs, as slurm.conf lines.
 *
 * Every `scontrol show config` key the parser takes back is written as
 * Key=Value, the others (derived values, unset ones) as "#Key=Value"
 * comments, so that each shown key is in the file (Slurm's test2.24 checks
 * just that); then a NodeName= line for each set of nodes alike but for
 * their names, and a PartitionName= line for each partition.  Pure: the
 * caller fetches the answers and opens the file. */
#ifndef ROTA_CLI_CONF_WRITE_H
#define ROTA_CLI_CONF_WRITE_H

#include <stdio.h>

struct config_resp;
struct node_info_resp;
struct part_info_resp;

/* when: the time the file's header names. */
void conf_write(FILE *f, const char *when, const struct config_resp *config,
                const struct node_info_resp *nodes, const struct part_info_resp *parts);

#endif
