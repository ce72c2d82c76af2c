/* conf_keys.h - the one table of slurm.conf keys, and how each value is read.
 *
 * Private to conf.c, its tests and the man page generator (tools/conf_doc.c):
 * everyone else uses conf.h.  A row names a key, the struct it fills (struct
 * conf, conf_node or conf_part by scope), the field offset, the default as it
 * would be written in slurm.conf, bounds for numbers, and whether `scontrol
 * reconfigure` may change it.  A key Rota uses needs a description in
 * common/conf_doc.c too (test_conf_doc): slurm.conf(5) is made from both.  Rows of type
 * CONF_T_IGNORED are real Slurm keys that Rota accepts without a warning and
 * without using them.  Rows of type CONF_T_SPECIAL are read by the line parser
 * in conf.c (it switches on the row's id).
 */
#ifndef ROTA_CONF_KEYS_H
#define ROTA_CONF_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include "common/error.h"

enum conf_scope {
	CONF_SCOPE_GLOBAL, /* fills struct conf */
	CONF_SCOPE_NODE,   /* a key on a NodeName= line, fills struct conf_node */
	CONF_SCOPE_PART,   /* a key on a PartitionName= line, fills struct conf_part */
};

enum conf_type {
	CONF_T_IGNORED,    /* accepted, kept in kv, unused */
	CONF_T_SPECIAL,    /* read by conf.c, see enum conf_key_id */
	CONF_T_STR,        /* char *; an empty value restores the default */
	CONF_T_U16,        /* uint16_t within [min, max] */
	CONF_T_U32,        /* uint32_t within [min, max] */
	CONF_T_U64,        /* uint64_t within [min, max] */
	CONF_T_MEM,        /* uint64_t megabytes, suffix K/M/G/T allowed */
	CONF_T_TIME,       /* uint32_t minutes, as timefmt_parse_limit */
	CONF_T_COUNT,      /* uint32_t, UNLIMITED/INFINITE is UINT32_MAX */
	CONF_T_BOOL,       /* int, YES/NO */
	CONF_T_NODE_STATE, /* enum conf_node_state */
	CONF_T_PART_STATE, /* enum conf_part_state */
	CONF_T_OVERSUB,    /* char *: NO, YES[:N], FORCE[:N], EXCLUSIVE */
	CONF_T_GROUPS,     /* char *, ALL is stored as NULL */
};

/* Rows the line parser needs to recognise. */
enum conf_key_id {
	CONF_ID_NONE,
	CONF_ID_SLURMCTLD_HOST,
	CONF_ID_CONTROL_MACHINE,
	CONF_ID_CONTROL_ADDR,
	CONF_ID_LINE_IGNORED, /* a line type (NodeSet=, DownNodes=) Rota skips whole */
	CONF_ID_NODE_NAME,
	CONF_ID_NODE_HOSTNAME,
	CONF_ID_NODE_ADDR,
	CONF_ID_PORT,
	CONF_ID_CPUS,
	CONF_ID_BOARDS,
	CONF_ID_SOCKETS,
	CONF_ID_SOCKETS_PER_BOARD,
	CONF_ID_CORES,
	CONF_ID_THREADS,
	CONF_ID_PART_NAME,
};

#define CONF_KEY_RELOAD         0x1u /* reconfigure may change it */
#define CONF_KEY_ZERO_UNLIMITED 0x2u /* show config prints 0 as UNLIMITED */
#define CONF_KEY_NONE_OFF                                                                \
	0x4u /* a COUNT where NONE and -1 mean off too,                                  \
	      * shown as NONE */

#define CONF_KEY_NONE_UNSET                                                              \
	0x8u /* a COUNT where NONE means not set here (CONF_COUNT_UNSET),                \
	      * shown as NONE */
#define CONF_COUNT_UNSET 0xfffffffeu /* the protocol's NO_VAL */

#define CONF_NO_FIELD ((size_t)-1)

struct conf_key {
	const char *name;     /* canonical spelling */
	const char *alias_of; /* an alias row: the canonical name; nothing else is set */
	enum conf_scope scope;
	enum conf_type type;
	enum conf_key_id id;
	size_t offset;     /* into the scope's struct, or CONF_NO_FIELD */
	const char *def;   /* default as written in slurm.conf, NULL = zero */
	uint64_t min, max; /* bounds for numeric types */
	const char *unit;  /* appended by show config ("sec"), or NULL */
	unsigned flags;    /* CONF_KEY_* */
};

extern const struct conf_key conf_keys[];
extern const size_t conf_keys_count;

/* Find a key of scope by name, case-insensitively; an alias gives its
 * canonical row.  NULL if unknown. */
const struct conf_key *conf_key_find(enum conf_scope scope, const char *name);

/* The canonical name of a row (its alias_of, or its name). */
const char *conf_key_canon(const struct conf_key *k);

/* Parse value for k and store it into base (a struct of k's scope), replacing
 * (and freeing) what was there.  where ("file:line") prefixes error text.
 * Returns 0 or -1 with err "where: Key=value: expected ...". */
int conf_key_set(const struct conf_key *k, void *base, const char *value,
                 const char *where, struct rota_error *err);

/* Parse a number for k (types U16/U32/U64) within its bounds. */
int conf_key_parse_num(const struct conf_key *k, const char *value, uint64_t *ret,
                       const char *where, struct rota_error *err);

/* Set every field of scope in base to the table default. Returns 0 or -1. */
int conf_key_defaults(enum conf_scope scope, void *base, struct rota_error *err);

/* Free the string fields of scope in base that the table owns. */
void conf_key_release(enum conf_scope scope, void *base);

/* Deep-copy the table-owned string fields of scope from src into dst (a
 * memberwise copy of src).  Returns 0 or -ENOMEM (dst's strings then NULL). */
int conf_key_copy_strings(enum conf_scope scope, void *dst);

/* Format k's field of base as show config prints it ("300 sec", "UNLIMITED",
 * "(null)").  Returns 0 and sets *ret (caller frees), -ENOENT when the row has
 * no field of its own (ignored and special rows), or -ENOMEM. */
int conf_key_format(const struct conf_key *k, const void *base, char **ret);

/* Nonzero when k's field is equal in a and b (also when it cannot tell). */
int conf_key_equal(const struct conf_key *k, const void *a, const void *b);

#endif
