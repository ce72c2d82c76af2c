/* sstat.h - sstat's fields (sstat_fields.c): Slurm 22.05's names, widths and
 * order, and the text of each for one step, aggregated over the nodes that
 * answered as Slurm's sstat does (maximum, minimum and which node and task
 * had it; averages over the step's tasks). */
#ifndef ROTA_CLI_SSTAT_H
#define ROTA_CLI_SSTAT_H

#include <stddef.h>
#include <stdint.h>
#include "common/acctg.h"

struct step_stat;

struct sstat_field {
	const char *name;
	int width;
	int left;
	int id;
};

extern const struct sstat_field sstat_fields[];
extern const size_t sstat_field_count;

/* As Slurm matches -o words: the first field whose name starts with word
 * (case-insensitive), or NULL. */
const struct sstat_field *sstat_field_find(const char *word);

/* What is measured, per task: CPU time (ms), memory and virtual memory at
 * their highest (bytes; now, in tot), bytes read and written, and where the
 * step holds GPUs watched through NVML, their memory (bytes) and busy
 * percentage at their highest (now, in tot). */
enum sstat_metric_id {
	SM_CPU,
	SM_MEM,
	SM_VMEM,
	SM_READ,
	SM_WRITE,
	SM_GPUMEM,
	SM_GPUUTIL,
	SM_COUNT
};

struct sstat_metric {
	uint64_t max, min, tot;
	size_t max_node, min_node; /* indexes into the step's node_stats */
	uint32_t max_task, min_task;
};

/* One step as sstat prints it.  ss is borrowed; node, with pid_node set,
 * restricts everything to that node's answer (sstat -i). */
struct sstat_row {
	const struct step_stat *ss;
	size_t first, end; /* node_stats[first..end) */
	uint32_t ntasks;
	struct sstat_metric m[SM_COUNT];
	enum acctg_convert conv;
	uint32_t gpus;       /* GPUs watched on the nodes; 0: no GPU figures */
	uint64_t gpu_ave[2]; /* the nodes' averages over their samples, */
	                     /* summed: [0] GPU memory, [1] busy percentage */
};

/* Aggregate node_stats[first..end) of ss into row. */
void sstat_row_init(struct sstat_row *row, const struct step_stat *ss, size_t first,
                    size_t end, enum acctg_convert conv);

/* The text of field id for row into buf (or a constant string). */
const char *sstat_value(int id, const struct sstat_row *row, char *buf, size_t len);

#endif
