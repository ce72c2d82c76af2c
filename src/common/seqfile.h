/* seqfile.h - a small file holding one counter that only grows, written in
 * place and synced, which a torn or damaged write cannot take back.
 *
 * Two 32-byte slots [u32 magic][u32 generation][u64 value][u32 crc][pad]; a
 * store writes the older slot and fdatasync()s, a load takes the larger value
 * of the slots that check.  Used by the controller for the job id high-water
 * mark, which must survive any damage to the journal.
 */
#ifndef ROTA_SEQFILE_H
#define ROTA_SEQFILE_H

#include <stdint.h>
#include "common/error.h"

struct seqfile;

/* Open (creating, with value 0) PATH.  *ret_value: the stored value. */
int seqfile_open(const char *path, struct seqfile **ret, uint64_t *ret_value,
                 struct rota_error *err);
void seqfile_destroy(struct seqfile *s); /* NULL allowed */

/* Store value durably.  Returns 0 or -errno (nothing changed in memory). */
int seqfile_store(struct seqfile *s, uint64_t value);

#endif
