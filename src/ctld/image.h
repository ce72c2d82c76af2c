/* image.h - the controller's state written whole at a clean stop, and read
 * back at start-up instead of the journal it stands for.
 *
 * A restart used to replay the journal: every job's SUBMIT decoded from
 * msgpack, its strings allocated, then found to be kept already and freed
 * (doc/performance.md, "Where the restart's time goes").  The image holds the
 * same state in a form that loads in one pass: each distinct text once (the
 * controller's kept copies, common/intern.h), each owner once, each job's
 * request as its fields in the order of the request's descriptor with texts
 * as numbers, and what a job became after its submission (START, steps, END)
 * and the nodes' states as the journal's own events.
 *
 * The journal stays the truth: the image is a cache of the state its first
 * bytes make.  It carries the journal's mark (journal.h: device, inode,
 * length and the CRC of the last MiB before it), so it is used only while
 * that file still holds those bytes; the records after them (appended since,
 * by a controller that started from it) are replayed as usual.  A compaction
 * or rewrite makes a new file, another journal copied over it differs before
 * the mark, and the image no longer applies.  (Bytes further back are not
 * read at all: the image stands for them.)  An image that
 * does not check (its CRC, its format, this build's request fields) is
 * removed and the journal replayed whole, so it is written without fsync:
 * one torn by a crash costs only the time it would have saved.
 */
#ifndef ROTA_CTLD_IMAGE_H
#define ROTA_CTLD_IMAGE_H

#include "common/error.h"

struct ctld;
struct journal_mark;

#define IMAGE_FILE "state.image"

/* Write StateSaveLocation/state.image from the state now (its journal all
 * written: journal_mark_get).  0, or -1 (err says why; an older image is
 * left as it was: it still stands for the journal's head, unless the journal
 * was compacted since). */
int image_write(struct ctld *ctld, struct rota_error *err);

/* Load the image into an empty state when it stands for the head of the
 * journal: 1 (*mark: where the journal's replay goes on), or 0 (there is
 * none, or it does not apply: then it is removed, the state is empty again,
 * and the journal is replayed whole). */
int image_load(struct ctld *ctld, struct journal_mark *mark);

#endif
