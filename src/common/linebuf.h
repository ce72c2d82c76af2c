/* linebuf.h - cut a byte stream into whole lines, for srun --label.
 *
 * Output of one task arrives in chunks that split lines anywhere; srun prefixes
 * each line with the task's label, so it keeps the unfinished tail of each
 * task's stream until its newline (or the stream's end) comes.  A tail longer
 * than LINEBUF_MAX is handed out as it is, so one endless line cannot grow
 * without bound.
 */
#ifndef ROTA_LINEBUF_H
#define ROTA_LINEBUF_H

#include <stddef.h>

#define LINEBUF_MAX (64u << 10)

struct linebuf {
	char *buf; /* the unfinished line; owned */
	size_t len, cap;
};

/* Receives one line (with its '\n', except for a tail handed out by
 * linebuf_flush or the LINEBUF_MAX cut).  line is borrowed for the call. */
typedef void (*linebuf_emit_f)(const char *line, size_t len, void *arg);

/* Embedded use: zero the struct (or linebuf_init), linebuf_release at the end. */
void linebuf_init(struct linebuf *lb);
void linebuf_release(struct linebuf *lb);

/* Feed bytes; emit is called for each line completed by them.
 * Returns 0 or -ENOMEM (nothing is lost: what could not be kept is emitted). */
int linebuf_feed(struct linebuf *lb, const char *data, size_t len, linebuf_emit_f emit,
                 void *arg);

/* Hand out the unfinished tail, if any (end of the stream). */
void linebuf_flush(struct linebuf *lb, linebuf_emit_f emit, void *arg);

#endif
