/* jtext.h - a job's environment and script written once in the journal.
 *
 * Most submissions share their environment (a workflow's jobs come from one
 * shell) and many their script; as part of every SUBMIT record they were
 * nine tenths of the journal, and of what a restart reads.  The writer side
 * puts each such text in a TEXT record of its own the first time a file
 * needs it, and the SUBMITs that have it say its id instead (env_text,
 * script_text).  Which texts a file has is noted on the controller's kept
 * copies (common/intern.h tags), under a generation that is changed whenever
 * the file may lack what was noted: a new file (rewrite, compaction), or
 * appends cut off by a failure.  Ids only grow within a file; a snapshot's
 * have JTEXT_SNAPSHOT set, so that the events appended meanwhile and copied
 * after it never meet the same id.
 *
 * The reader side keeps each TEXT of a file while the file is read and puts
 * the text back into the SUBMITs that refer to it.  With the controller's
 * kept copies (in), the event is lent the kept copy (no copy per job): the
 * caller may take it into a job, whose sharing counts it (job_desc_share),
 * and what was not taken is given back by jtext_in_unlend, not freed.
 *
 * What crosses a socket (a backup's stream) always has its texts inline.
 */
#ifndef ROTA_JTEXT_H
#define ROTA_JTEXT_H

#include <stddef.h>
#include <stdint.h>

struct intern;
union job_event;

#define JTEXT_SNAPSHOT (1ull << 63)

struct jtext_out {
	struct intern *in; /* NULL: every text inline */
	uint32_t gen;      /* the tags of this generation are in the file */
	uint64_t next_id;  /* without the flag */
	uint64_t flag;     /* 0, or JTEXT_SNAPSHOT */
};

/* Append ev to *buf (*len used of *cap) framed as the journal stores it: a
 * SUBMIT's texts by reference, each new one first in a TEXT record numbered
 * as ev.  Returns the bytes appended. */
size_t jtext_frame_append(struct jtext_out *w, const union job_event *ev, char **buf,
                          size_t *len, size_t *cap);

struct jtext_in;

/* in: the controller's kept copies (lent to events), or NULL (events get
 * copies of their own). */
struct jtext_in *jtext_in_create(struct intern *in);
void jtext_in_destroy(struct jtext_in *r); /* NULL allowed */

/* A record read: a TEXT is kept (its members taken) and 1 returned, it is
 * not an event for the caller; a SUBMIT's texts by reference are put into
 * its request (0), or -ENOENT when the file has no such text (a damaged
 * record); any other event: 0. */
int jtext_in_event(struct jtext_in *r, union job_event *ev);
/* After the caller: what it was lent and did not take is taken back. */
void jtext_in_unlend(struct jtext_in *r, union job_event *ev);
/* The highest id without JTEXT_SNAPSHOT read so far (0: none). */
uint64_t jtext_in_max_id(const struct jtext_in *r);

#endif
