/* part_spec.h - the specification of `scontrol create|update partition`, read
 * as Slurm's scontrol reads it, into slurm.conf's keys and values.
 *
 * DESIGN: Slurm's scontrol takes each argument's tag by abbreviation (each key
 * has its own shortest form: "MaxT=" is MaxTime, "H=" Hidden, "Pri=" Priority)
 * and its words by prefix (State=d is DOWN, OverSubscribe=y:2 is YES:2).  This
 * module turns those into "Key=Value" in the spelling of a PartitionName= line,
 * which common/conf.h's conf_part_set reads: the request, the journal's record
 * and slurm.conf then share one parser.  Pure: no I/O, nothing looked up (the
 * controller checks what needs its state: nodes, QOS names, billing weights).
 */
#ifndef ROTA_PART_SPEC_H
#define ROTA_PART_SPEC_H

#include <stddef.h>
#include "common/error.h"

/* Arguments one request may carry (more are refused, as too many). */
#define PART_SPEC_ARGS_MAX 64

struct part_spec {
	const char *name; /* PartitionName= (borrowed from argv), or NULL */
	char **kv;        /* "Key=Value" as slurm.conf spells them, in order; owned */
	size_t given;     /* arguments read (PartitionName= among them): Slurm's
	                   * count for "No changes specified" */
};

/* Read argv[0..argc) ("PartitionName=p", "State=DOWN", ...) into *ret
 * (zeroed first; release it after, also on failure).  Returns 0; -EINVAL
 * for a malformed argument or value, -ENOTSUP for a tag that is no
 * partition setting Rota knows; err holds Slurm's words then ("Invalid
 * input: State=x\nAcceptable State values are UP, DOWN, DRAIN and
 * INACTIVE"), one line per error() Slurm's scontrol prints. */
int part_spec_parse(int argc, char *const *argv, struct part_spec *ret,
                    struct rota_error *err);

void part_spec_release(struct part_spec *s);

/* Is tag (len bytes, as typed before '=') an abbreviation of PartitionName
 * as scontrol's create, update and delete take it ("PartitionName",
 * "Partition", "par")? */
int part_spec_is_name_tag(const char *tag, size_t len);

#endif
