/* billing.h - TRESBillingWeights: what a job is billed, per partition.
 *
 * "CPU=1.0,Mem=0.25G,Node=2": each weight times what the job holds (Mem per
 * MB, or per the unit written after it: K, M, G, T), summed, or the largest
 * with PriorityFlags=MAX_TRES.  No weights: the CPUs.  GRES and license
 * weights are accepted and count nothing yet; a negative weight (Slurm takes
 * them) counts nothing. */
#ifndef ROTA_COMMON_BILLING_H
#define ROTA_COMMON_BILLING_H

#include <stdint.h>

double billing_of(const char *weights, int max_tres, double cpus, double mem_mb,
                  double nodes);

/* Does weights read as TRESBillingWeights: "TRES=number[unit],...", each
 * TRES CPU, Mem, Node, Energy, VMem, Pages or a kind/name (GRES/gpu,
 * License/x, BB/x, FS/x, IC/x), each weight a number (negative too, as
 * Slurm reads them)? */
int billing_weights_valid(const char *weights);

/* Is PriorityFlags' list flags naming flag (case-insensitive)? */
int billing_flag(const char *flags, const char *flag);

/* What cpus, mem_mb and nodes are billed in partition (the first of a
 * list "a,b"; NULL or unknown: no weights) under cf. */
struct conf;
uint32_t conf_billing(const struct conf *cf, const char *partition, uint32_t cpus,
                      uint64_t mem_mb, uint32_t nodes);

#endif
