/* conf_doc.h - one-line descriptions of the configuration keys, for the
 * section-5 man pages.
 *
 * The keys themselves are the parsers' own tables (conf_keys[] for slurm.conf,
 * gres_conf_keys(), cgroup_conf_keys(), topo_conf_keys(), sched_params_keys());
 * this module holds only what a reader needs to know about each.  The
 * generator (tools/conf_doc.c, `make man`) walks the parser's table and looks
 * every key up here: a key without a description stops the build, and
 * tests/unit/test_conf_doc.c checks both directions (every key described,
 * every description a key), so the pages cannot drift from the parsers.
 * Keys a parser accepts and ignores need no description: the pages list them.
 */
#ifndef ROTA_CONF_DOC_H
#define ROTA_CONF_DOC_H

#include <stddef.h>

enum conf_doc_table {
	CONF_DOC_GLOBAL, /* slurm.conf keys outside NodeName=/PartitionName= lines */
	CONF_DOC_NODE,   /* keys of a NodeName= line */
	CONF_DOC_PART,   /* keys of a PartitionName= line */
	CONF_DOC_SCHED,  /* words of SchedulerParameters= */
	CONF_DOC_GRES,   /* gres.conf */
	CONF_DOC_CGROUP, /* cgroup.conf */
	CONF_DOC_TOPO,   /* topology.conf */
	CONF_DOC_TABLES,
};

struct conf_doc {
	const char *name;  /* the key, as the parser's table spells it */
	const char *value; /* what follows '=' in the page, NULL: a bare word */
	const char *desc;  /* plain text, no roff; the generator escapes it */
};

/* The description of name in table t (case-insensitive), or NULL. */
const struct conf_doc *conf_doc_find(enum conf_doc_table t, const char *name);

/* All descriptions of table t: borrowed, static; *ret_n is their number. */
const struct conf_doc *conf_doc_table(enum conf_doc_table t, size_t *ret_n);

#endif
