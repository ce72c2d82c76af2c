/* billing.h - TRESBillingWeights: what a job is billed, per partition.
 *
 * "CPU=1.0,Mem=0.25G,Node=2": each weight times what the job holds (Mem per
 * MB, or per the unit written after it: K, M, G, T), summed, or the largest
 * with PriorityFlags=MAX_TRES.  No weights: the CPUs.  GRES and license
 * weights are accepted and count nothing yet. */
#ifndef ROTA_COMMON_BILLING_H
#define ROTA_COMMON_BILLING_H

#include <stdint.h>

double billing_of(const char *weights, int max_tres, double cpus, double mem_mb,
                  double nodes);

/* Is PriorityFlags' list flags naming flag (case-insensitive)? */
int billing_flag(const char *flags, const char *flag);

#endif
