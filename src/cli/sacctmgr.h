/* sacctmgr.h - inside sacctmgr: the command (sacctmgr.c) and its listings
 * (sacctmgr_list.c). */
#ifndef ROTA_CLI_SACCTMGR_H
#define ROTA_CLI_SACCTMGR_H

#include "cli/pfields.h"
#include "proto/messages.h"

struct mgr_opts {
	int immediate;     /* -i */
	int noheader;      /* -n */
	enum pf_mode mode; /* -p / -P */
	int quiet;         /* -Q */
	int with_assoc;    /* -s, WithAssoc */
	int with_coord;    /* WithCoord: the coordinators too */
};

/* list|show KIND: names (the words without '='), where (Key=Value), format
 * (NULL: the kind's default).  Returns the exit status. */
int mgr_list(const struct mgr_opts *o, enum assoc_kind kind, int clusters, char **names,
             char **where, const char *format);

#endif
