/* pfields.h - the columns of Slurm's accounting commands (sacct, sacctmgr,
 * sshare): right-justified cells of a fixed width, a text too long cut with
 * its last kept character a '+', a line of dashes under the titles; -p: each
 * cell followed by '|', -P: cells joined by '|'. */
#ifndef ROTA_CLI_PFIELDS_H
#define ROTA_CLI_PFIELDS_H

#include <stddef.h>
#include "common/fmtrow.h"

struct pf_col {
	const char *title;
	int width;
	int left; /* left-justified */
};

enum pf_mode { PF_COLUMNS = 0, PF_PARSABLE = 1 /* -p */, PF_PARSABLE2 = 2 /* -P */ };

void pf_cell(struct fmtbuf *b, const char *s, const struct pf_col *c, enum pf_mode mode,
             int last);
/* The titles (cut to their width, without a '+'), and the dashes unless
 * parsable. */
void pf_header(struct fmtbuf *b, const struct pf_col *cols, size_t n, enum pf_mode mode);
/* End a line; a buffer grown past 64 KiB is written to stdout. */
void pf_end_line(struct fmtbuf *b);

/* "Name%N" (N: the width; "%-N" left-justified) -> name cut there, *width
 * (unchanged without one).  Returns 0, or -1 for a width that is no number
 * of 0..4096. */
int pf_parse_width(char *word, int *width, int *left);

#endif
