/* fmtspec.h - the output format strings of squeue and sinfo.
 *
 * Two syntaxes, as in Slurm:
 *   -o "%.18i %.9P %R"   each field is %[.][-][size]<letter>[suffix]: '.' right-
 *                        justifies, '-' is the default (left), size 0 or absent
 *                        means "as wide as the value"; the text up to the next
 *                        field is the suffix; text before the first field is the
 *                        prefix.  "%%" is a literal percent sign.
 *   -O "JobID,State:.10" comma-separated Name[:[.][size][suffix]]; a name without
 *                        ':' gets the caller's default width, left-justified.
 *
 * fmt_cell_append() (fmtrow.h) prints one value the way Slurm does: padded to the
 * width and cut to it (the leftmost `width` bytes are kept, whichever side is
 * padded).
 * Pure: no logging, no globals.
 */
#ifndef ROTA_FMTSPEC_H
#define ROTA_FMTSPEC_H

#include <stddef.h>
#include <stdio.h>
#include "common/error.h"

#define FMTSPEC_MAX_LEN   4096 /* bytes in one format string */
#define FMTSPEC_MAX_ITEMS 256  /* fields in one format string */
#define FMTSPEC_MAX_WIDTH 4096 /* one field's width */

enum fmtspec_flags {
	FMTSPEC_RIGHT = 1 << 0, /* right-justify */
	FMTSPEC_NOCUT = 1 << 1, /* pad but never truncate (node lists, some headers) */
};

struct fmtspec_item {
	char letter;  /* -o: the type letter; -O: 0 */
	char *name;   /* -O: the field name as written; -o: NULL */
	int width;    /* 0: as wide as the value */
	int flags;    /* FMTSPEC_RIGHT */
	char *suffix; /* printed after the field; never NULL */
};

struct fmtspec {
	char *prefix; /* printed before the first field; never NULL */
	size_t count;
	struct fmtspec_item *items;
};

/* Parse a -o format.  Returns 0 and sets *ret (caller destroys), -EINVAL with err
 * (empty, too long, too many fields, width too large, '%' with no letter) or
 * -ENOMEM. */
int fmtspec_parse(const char *fmt, struct fmtspec **ret, struct rota_error *err);

/* Parse a -O list; fields without ":size" get default_width.  Same returns. */
int fmtspec_parse_long(const char *fmt, int default_width, struct fmtspec **ret,
                       struct rota_error *err);

void fmtspec_destroy(struct fmtspec *spec); /* NULL allowed */

#endif
