/* conf.c - the slurm.conf reader: lines, Include, NodeName/PartitionName.
 *
 * DESIGN: text is read a line at a time into one scratch buffer and split in
 * place into Key=Value tokens (quotes, "\#" escapes and comments are handled
 * there).  A line is dispatched on its first key: NodeName= and PartitionName=
 * build records starting from their DEFAULT template, anything else sets global
 * keys through the table in conf_keys.c.  Partitions may name nodes defined
 * further down, so their node lists are resolved when the whole text is read.
 * Node names are indexed in a small hash set while parsing so that duplicate
 * checks and partition lookups stay linear in the size of the cluster.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/mpiparams.h"
#include "common/mcs.h"
#include "common/strv.h"
#include "common/conf_keys.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/licenses.h"
#include "common/rlimits.h"
#include "common/common.h"

#define CONF_LINE_MAX    65536      /* bytes per line, newline excluded */
#define CONF_FILE_MAX    (16 << 20) /* bytes per file */
#define CONF_TOKENS_MAX  128        /* Key=Value pairs per line */
#define CONF_INCLUDE_MAX 8          /* Include nesting depth */
#define CONF_KV_MAX      4096       /* distinct global keys */
#define CONF_PARTS_MAX   4096
#define CONF_NODES_MAX   HOSTLIST_MAX
#define CONF_WHERE_LEN   352

struct conf_token {
	char *key;
	char *value;
};

enum node_given {
	GIVEN_CPUS = 0x1,
	GIVEN_BOARDS = 0x2,
	GIVEN_SOCKETS = 0x4,
	GIVEN_SPB = 0x8,
	GIVEN_CORES = 0x10,
	GIVEN_THREADS = 0x20,
	GIVEN_TOPOLOGY = 0x3e,
};

/* A NodeName line's values before they are spread over its names. */
struct node_tmpl {
	struct conf_node node; /* table-owned strings owned; name/hostname/addr NULL */
	unsigned given;        /* enum node_given bits */
	uint32_t sockets_per_board;
};

/* NodeHostname=, NodeAddr=, Port= of one line, expanded. */
struct node_lists {
	char **hosts, **addrs;
	size_t nhosts, naddrs;
	uint16_t *ports;
	size_t nports;
};

struct parser {
	struct conf *conf;
	struct rota_error *err;
	struct node_tmpl node_def;
	struct conf_part part_def;
	char **part_where; /* "file:line" of each partition, for late errors */
	size_t nodes_cap, parts_cap, kv_cap;
	size_t *slots; /* node name hash set: index + 1 into conf->nodes, 0 empty */
	size_t nslots;
	char *control_machine, *control_addr;
	char *line; /* scratch, CONF_LINE_MAX + 1 bytes */
	size_t files_cap;
};

static int parse_file(struct parser *p, const char *path, int depth, const char *from);

static int oom(struct parser *p)
{
	return errprintf(p->err, "out of memory");
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (!(np = realloc(*arr, ncap * elem)))
		return -ENOMEM;
	*arr = np;
	*cap = ncap;
	return 0;
}

static int dup_into(char **dst, const char *s)
{
	char *c = NULL;

	if (s && !(c = strdup(s)))
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

/* ---- node name index ---- */

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* Index of the node called name, or SIZE_MAX. */
static size_t node_index(const struct parser *p, const char *name)
{
	size_t mask = p->nslots - 1;

	if (!p->nslots)
		return SIZE_MAX;
	for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
		size_t v = p->slots[i];

		if (!v)
			return SIZE_MAX;
		if (!strcmp(p->conf->nodes[v - 1].name, name))
			return v - 1;
	}
}

static void slot_put(size_t *slots, size_t nslots, const char *name, size_t idx)
{
	size_t i = name_hash(name) & (nslots - 1);

	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = idx + 1;
}

/* Index the last node of conf->nodes; rebuilds the set when half full. */
static int node_index_add(struct parser *p)
{
	const struct conf *c = p->conf;

	if (c->node_count * 2 > p->nslots) {
		size_t n = p->nslots ? p->nslots * 2 : 64;
		size_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t i = 0; i < c->node_count; i++)
			slot_put(slots, n, c->nodes[i].name, i);
		free(p->slots);
		p->slots = slots;
		p->nslots = n;
		return 0;
	}
	slot_put(p->slots, p->nslots, c->nodes[c->node_count - 1].name,
	         c->node_count - 1);
	return 0;
}

/* ---- tokens ---- */

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Read the value at r, unquoting and unescaping it in place (it only shrinks).
 * Sets *ret_value and *ret_eol (a comment or the end was reached) and returns
 * where to go on, or NULL with err set. */
static char *value_read(char *r, char **ret_value, int *ret_eol, const char *where,
                        struct rota_error *err)
{
	char *w = r, c;

	*ret_value = r;
	if (*r == '"') {
		for (r++; *r && *r != '"';)
			*w++ = *r++;
		if (!*r) {
			errprintf(err, "%s: unterminated '\"'", where);
			return NULL;
		}
		if (*++r && !is_ws(*r) && *r != '#') {
			errprintf(err, "%s: text after closing '\"'", where);
			return NULL;
		}
	} else {
		while (*r && !is_ws(*r) && *r != '#') {
			if (*r == '\\' && r[1])
				r++; /* "\#" is a literal '#', as in Slurm */
			*w++ = *r++;
		}
	}
	c = *r;
	*w = '\0';
	*ret_eol = c == '\0' || c == '#';
	return c ? r + 1 : r;
}

/* "Include PATH": the one line form without '='. */
static int include_tokenize(char *r, struct conf_token *tok, const char *where,
                            struct rota_error *err)
{
	int eol;

	while (is_ws(*r))
		r++;
	if (!*r || *r == '#')
		return errprintf(err, "%s: Include needs a file name", where);
	if (!(r = value_read(r, &tok->value, &eol, where, err)))
		return -1;
	while (!eol && is_ws(*r))
		r++;
	if (!eol && *r && *r != '#')
		return errprintf(err,
		                 "%s: Include takes one file name (quote names "
		                 "with spaces)",
		                 where);
	tok->key = NULL; /* marks the Include line */
	return 1;
}

/* After "Key=" and blanks: is the next word its value?  As Slurm ("Key =
 * Value", "Key= Value"), unless it is a Key=Value of its own ("Key= Other=1"
 * leaves Key empty). */
static int value_follows(const char *r)
{
	if (!*r || *r == '#')
		return 0;
	if (*r == '"')
		return 1;
	while (*r && !is_ws(*r) && *r != '#' && *r != '=')
		r++;
	return *r != '=';
}

/* Split line (changed in place) into Key=Value tokens; "Include PATH" gives
 * one token with a NULL key.  Returns the count or -1 with err set. */
static int line_tokenize(char *line, struct conf_token *tok, const char *where,
                         struct rota_error *err)
{
	char *r = line, *key, *q, *end;
	int n = 0, eol = 0;

	while (!eol) {
		while (is_ws(*r))
			r++;
		if (!*r || *r == '#')
			break;
		key = r;
		while (*r && *r != '=' && !is_ws(*r) && *r != '#')
			r++;
		end = r;
		for (q = r; is_ws(*q); q++) /* "Key = Value", as Slurm */
			;
		if (*q != '=') {
			if (n == 0 && r - key == 7 && !strncasecmp(key, "Include", 7))
				return include_tokenize(r, tok, where, err);
			return errprintf(err, "%s: expected Key=Value, found '%.*s'",
			                 where, (int)(r - key > 64 ? 64 : r - key), key);
		}
		if (r == key)
			return errprintf(err, "%s: '=' without a key", where);
		if (n == CONF_TOKENS_MAX)
			return errprintf(err,
			                 "%s: more than %d Key=Value pairs on one line",
			                 where, CONF_TOKENS_MAX);
		*end = '\0';
		r = q + 1;
		for (q = r; is_ws(*q); q++)
			;
		if (q > r && value_follows(q))
			r = q;
		tok[n].key = key;
		if (!(r = value_read(r, &tok[n].value, &eol, where, err)))
			return -1;
		n++;
	}
	return n;
}

/* ---- global keys ---- */

/* Remember key=value for show config; the last one wins. */
static int kv_set(struct parser *p, const char *key, const char *value)
{
	struct conf *c = p->conf;
	struct conf_kv *kv;

	for (size_t i = 0; i < c->kv_count; i++) {
		if (!strcasecmp(c->kv[i].key, key))
			return dup_into(&c->kv[i].value, value) ? oom(p) : 0;
	}
	if (c->kv_count == CONF_KV_MAX)
		return errprintf(p->err, "more than %d distinct keys", CONF_KV_MAX);
	if (grow((void **)&c->kv, &p->kv_cap, c->kv_count + 1, sizeof(*c->kv)))
		return oom(p);
	kv = &c->kv[c->kv_count];
	kv->key = strdup(key);
	kv->value = strdup(value);
	if (!kv->key || !kv->value) {
		free(kv->key);
		free(kv->value);
		return oom(p);
	}
	c->kv_count++;
	return 0;
}

/* SlurmctldHost=name or name(addr); the first one names the controller, the
 * next ones its backups. */
static int ctld_host_set(struct parser *p, const char *value, const char *where)
{
	size_t hlen = strcspn(value, "()"), len = strlen(value);
	const char *addr = value + hlen + 1;
	size_t alen = len > hlen + 2 ? len - hlen - 2 : 0;
	char *h = NULL, *a = NULL;

	/* either no parentheses, or exactly one non-empty "(addr)" at the end */
	if (!hlen || (hlen < len && (value[hlen] != '(' || value[len - 1] != ')' ||
	                             !alen || strcspn(addr, "()") != alen)))
		return errprintf(p->err,
		                 "%s: SlurmctldHost=%.64s: expected NAME or "
		                 "NAME(ADDRESS)",
		                 where, value);
	if (p->conf->slurmctld_host && p->conf->backup_count == CONF_BACKUPS_MAX)
		return errprintf(p->err,
		                 "%s: SlurmctldHost: at most %d backup controllers",
		                 where, CONF_BACKUPS_MAX);
	h = strndup(value, hlen);
	a = hlen < len ? strndup(addr, alen) : NULL;
	if (!h || (hlen < len && !a)) {
		free(h);
		free(a);
		return oom(p);
	}
	if (p->conf->slurmctld_host) {
		/* the next lines name the backups, in order */
		p->conf->backup_host[p->conf->backup_count] = h;
		p->conf->backup_addr[p->conf->backup_count++] = a;
		return 0;
	}
	p->conf->slurmctld_host = h;
	p->conf->slurmctld_addr = a;
	return 0;
}

static int global_line(struct parser *p, struct conf_token *tok, int n, const char *where)
{
	for (int i = 0; i < n; i++) {
		const struct conf_key *k = conf_key_find(CONF_SCOPE_GLOBAL, tok[i].key);
		const char *v = tok[i].value;
		int rc = 0;

		if (!k) {
			log_warn("%s: unknown key '%s' ignored", where, tok[i].key);
		} else if (k->id == CONF_ID_SLURMCTLD_HOST) {
			rc = ctld_host_set(p, v, where);
		} else if (k->id == CONF_ID_CONTROL_MACHINE) {
			rc = dup_into(&p->control_machine, *v ? v : NULL) ? oom(p) : 0;
		} else if (k->id == CONF_ID_CONTROL_ADDR) {
			rc = dup_into(&p->control_addr, *v ? v : NULL) ? oom(p) : 0;
		} else {
			rc = conf_key_set(k, p->conf, v, where, p->err);
		}
		if (rc || kv_set(p, k ? conf_key_canon(k) : tok[i].key, v))
			return -1;
	}
	return 0;
}

/* ---- NodeName= lines ---- */

static void node_release(struct conf_node *nd)
{
	conf_key_release(CONF_SCOPE_NODE, nd);
	free(nd->name);
	free(nd->hostname);
	free(nd->addr);
}

static void lists_release(struct node_lists *l)
{
	hostlist_free(l->hosts);
	hostlist_free(l->addrs);
	free(l->ports);
}

static unsigned given_bit(enum conf_key_id id)
{
	switch (id) {
	case CONF_ID_CPUS:
		return GIVEN_CPUS;
	case CONF_ID_BOARDS:
		return GIVEN_BOARDS;
	case CONF_ID_SOCKETS:
		return GIVEN_SOCKETS;
	case CONF_ID_CORES:
		return GIVEN_CORES;
	case CONF_ID_THREADS:
		return GIVEN_THREADS;
	default:
		return 0;
	}
}

/* Expand a NodeHostname=/NodeAddr=/Port= value: one item, or one per node. */
static int list_expand(struct parser *p, const char *key, const char *value,
                       size_t nnodes, char ***ret, size_t *ret_n, const char *where)
{
	struct rota_error e = {{0}};
	char **names = NULL;
	size_t n = 0;

	if (hostlist_expand(value, &names, &n, &e))
		return errprintf(p->err, "%s: %s=%.64s: %s", where, key, value, e.text);
	if (n != 1 && n != nnodes) {
		hostlist_free(names);
		return errprintf(p->err, "%s: %s=%.64s gives %zu values for %zu nodes",
		                 where, key, value, n, nnodes);
	}
	*ret = names;
	*ret_n = n;
	return 0;
}

/* Port=7001, Port=[7001-7004] or Port=7001-7004 for as many nodes. */
static int ports_expand(struct parser *p, const char *value, size_t nnodes,
                        struct node_lists *l, const char *where)
{
	const struct conf_key *k = conf_key_find(CONF_SCOPE_NODE, "Port");
	char *expr = NULL, **items = NULL;
	size_t n = 0;
	uint64_t v;
	int rc = -1;

	if (!strchr(value, '[') && strpbrk(value, "-,")) {
		if (asprintf(&expr, "[%s]", value) < 0)
			return oom(p);
		value = expr;
	}
	if (list_expand(p, "Port", value, nnodes, &items, &n, where))
		goto out;
	if (!(l->ports = calloc(n, sizeof(*l->ports)))) {
		oom(p);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (conf_key_parse_num(k, items[i], &v, where, p->err))
			goto out;
		l->ports[i] = (uint16_t)v;
	}
	l->nports = n;
	rc = 0;
out:
	free(expr);
	hostlist_free(items);
	return rc;
}

/* Apply a NodeName line's keys to t; list keys are returned as written. */
static int node_keys_apply(struct parser *p, struct node_tmpl *t, struct conf_token *tok,
                           int n, const char *lists[3], const char *where)
{
	for (int i = 1; i < n; i++) {
		const struct conf_key *k = conf_key_find(CONF_SCOPE_NODE, tok[i].key);
		uint64_t v;

		if (!k) {
			log_warn("%s: unknown key '%s' ignored", where, tok[i].key);
			continue;
		}
		switch (k->id) {
		case CONF_ID_NODE_NAME:
			return errprintf(p->err, "%s: NodeName given twice on one line",
			                 where);
		case CONF_ID_NODE_HOSTNAME:
		case CONF_ID_NODE_ADDR:
		case CONF_ID_PORT:
			lists[k->id - CONF_ID_NODE_HOSTNAME] = tok[i].value;
			break;
		case CONF_ID_SOCKETS_PER_BOARD:
			if (conf_key_parse_num(k, tok[i].value, &v, where, p->err))
				return -1;
			t->sockets_per_board = (uint32_t)v;
			t->given |= GIVEN_SPB;
			break;
		default:
			if (conf_key_set(k, &t->node, tok[i].value, where, p->err))
				return -1;
			t->given |= given_bit(k->id);
			break;
		}
	}
	return 0;
}

/* Work out sockets and CPUs from what the line and NodeName=DEFAULT gave. */
static int node_derive(struct parser *p, struct node_tmpl *t, const char *where)
{
	struct conf_node *nd = &t->node;
	uint64_t per_board = 0, sockets, cpus;

	if ((t->given & GIVEN_SPB) && (t->given & GIVEN_SOCKETS))
		return errprintf(p->err,
		                 "%s: Sockets and SocketsPerBoard are mutually "
		                 "exclusive",
		                 where);
	/* with Boards=, Sockets= counts sockets per board, as in Slurm */
	if (t->given & GIVEN_SPB)
		per_board = t->sockets_per_board;
	else if ((t->given & GIVEN_BOARDS) && (t->given & GIVEN_SOCKETS))
		per_board = nd->sockets;
	sockets = per_board ? per_board * nd->boards : nd->sockets;
	cpus = sockets * nd->cores_per_socket * nd->threads_per_core;
	if (sockets > 65535 || (!(t->given & GIVEN_CPUS) && cpus > 65535))
		return errprintf(p->err, "%s: more than 65535 sockets or CPUs", where);
	nd->sockets = (uint32_t)sockets;
	if (!(t->given & GIVEN_CPUS)) {
		nd->cpus = (uint32_t)cpus;
	} else if (!(t->given & GIVEN_TOPOLOGY)) {
		/* CPUs=16 alone describes 16 single-core sockets, as in Slurm */
		nd->sockets = nd->cpus;
		nd->boards = nd->cores_per_socket = nd->threads_per_core = 1;
	}
	return 0;
}

/* Add one node built from t, lists item i (or the only item), named name. */
static int node_add(struct parser *p, const struct node_tmpl *t, const char *name,
                    const struct node_lists *l, size_t i, const char *where)
{
	struct conf *c = p->conf;
	struct conf_node *nd;

	if (node_index(p, name) != SIZE_MAX)
		return errprintf(p->err, "%s: node %s is already defined", where, name);
	if (c->node_count == CONF_NODES_MAX)
		return errprintf(p->err, "%s: more than %d nodes", where, CONF_NODES_MAX);
	if (grow((void **)&c->nodes, &p->nodes_cap, c->node_count + 1, sizeof(*c->nodes)))
		return oom(p);
	nd = &c->nodes[c->node_count];
	*nd = t->node;
	nd->name = strdup(name);
	nd->hostname = l->hosts ? strdup(l->hosts[l->nhosts == 1 ? 0 : i]) : NULL;
	nd->addr = l->addrs ? strdup(l->addrs[l->naddrs == 1 ? 0 : i]) : NULL;
	if (l->ports)
		nd->port = l->ports[l->nports == 1 ? 0 : i];
	if (conf_key_copy_strings(CONF_SCOPE_NODE, nd) || !nd->name ||
	    (l->hosts && !nd->hostname) || (l->addrs && !nd->addr)) {
		node_release(nd);
		return oom(p);
	}
	c->node_count++;
	if (node_index_add(p)) {
		node_release(&c->nodes[--c->node_count]);
		return oom(p);
	}
	return 0;
}

/* NodeName=DEFAULT: later lines start from t.  Lists make no sense there. */
static int node_default_set(struct parser *p, struct node_tmpl *t, const char *lists[3],
                            const char *where)
{
	const struct conf_key *k = conf_key_find(CONF_SCOPE_NODE, "Port");
	uint64_t v;

	if (lists[0] || lists[1])
		return errprintf(p->err,
		                 "%s: NodeHostname and NodeAddr are not allowed "
		                 "with NodeName=DEFAULT",
		                 where);
	if (lists[2]) {
		if (conf_key_parse_num(k, lists[2], &v, where, p->err))
			return -1;
		t->node.port = (uint16_t)v;
	}
	conf_key_release(CONF_SCOPE_NODE, &p->node_def.node);
	p->node_def = *t;
	memset(t, 0, sizeof(*t));
	return 0;
}

/* A node's Gres= must parse; a name GresTypes (read so far) lacks is warned
 * about, as the node will not be given it by the scheduler. */
static int node_gres_check(struct parser *p, const char *gres, const char *where)
{
	struct gres_item items[GRES_MAX_ITEMS];
	struct rota_error e = {{0}};
	const char *types = p->conf->gres_types;
	size_t n = 0;

	if (!gres)
		return 0;
	if (gres_parse_node(gres, items, &n, &e) < 0)
		return errprintf(p->err, "%s: Gres=%.64s: %s", where, gres, e.text);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(items[i].name);
		const char *s = types;

		while (s &&
		       (strncasecmp(s, items[i].name, len) || (s[len] && s[len] != ',')))
			s = strchr(s, ','), s = s ? s + 1 : NULL;
		if (!s)
			log_warn("%s: Gres=%s: gres/%s is not in GresTypes", where, gres,
			         items[i].name);
	}
	return 0;
}

static int node_line(struct parser *p, struct conf_token *tok, int n, const char *where)
{
	struct node_tmpl t = p->node_def;
	struct node_lists l = {0};
	const char *lists[3] = {NULL, NULL, NULL}; /* hostname, addr, port */
	struct rota_error e = {{0}};
	char **names = NULL;
	size_t count = 0;
	int rc = -1;

	if (conf_key_copy_strings(CONF_SCOPE_NODE, &t.node)) {
		oom(p);
		goto out;
	}
	if (node_keys_apply(p, &t, tok, n, lists, where))
		goto out;
	if (node_gres_check(p, t.node.gres, where))
		goto out;
	if (!strcasecmp(tok[0].value, "DEFAULT")) {
		rc = node_default_set(p, &t, lists, where);
		goto out;
	}
	if (hostlist_expand(tok[0].value, &names, &count, &e)) {
		errprintf(p->err, "%s: NodeName=%.64s: %s", where, tok[0].value, e.text);
		goto out;
	}
	if (node_derive(p, &t, where) ||
	    (lists[0] && list_expand(p, "NodeHostname", lists[0], count, &l.hosts,
	                             &l.nhosts, where)) ||
	    (lists[1] &&
	     list_expand(p, "NodeAddr", lists[1], count, &l.addrs, &l.naddrs, where)) ||
	    (lists[2] && ports_expand(p, lists[2], count, &l, where)))
		goto out;
	for (size_t i = 0; i < count; i++) {
		if (node_add(p, &t, names[i], &l, i, where))
			goto out;
	}
	rc = 0;
out:
	conf_key_release(CONF_SCOPE_NODE, &t.node);
	hostlist_free(names);
	lists_release(&l);
	return rc;
}

/* ---- PartitionName= lines ---- */

static void part_release(struct conf_part *pt)
{
	conf_key_release(CONF_SCOPE_PART, pt);
	free(pt->name);
	hostlist_free(pt->node_names);
}

static int part_keys_apply(struct parser *p, struct conf_part *t, struct conf_token *tok,
                           int n, const char *where)
{
	for (int i = 1; i < n; i++) {
		const struct conf_key *k = conf_key_find(CONF_SCOPE_PART, tok[i].key);

		if (!k)
			log_warn("%s: unknown key '%s' ignored", where, tok[i].key);
		else if (k->id == CONF_ID_PART_NAME)
			return errprintf(
			    p->err, "%s: PartitionName given twice on one line", where);
		else if (conf_key_set(k, t, tok[i].value, where, p->err))
			return -1;
	}
	return 0;
}

/* Append t (taking its strings) to conf->parts. */
static int part_add(struct parser *p, struct conf_part *t, const char *name,
                    const char *where)
{
	struct conf *c = p->conf;
	char *w, **wl;

	for (size_t i = 0; i < c->part_count; i++) {
		if (!strcmp(c->parts[i].name, name))
			return errprintf(p->err, "%s: partition %s is already defined",
			                 where, name);
	}
	if (c->part_count == CONF_PARTS_MAX)
		return errprintf(p->err, "%s: more than %d partitions", where,
		                 CONF_PARTS_MAX);
	if (grow((void **)&c->parts, &p->parts_cap, c->part_count + 1,
	         sizeof(*c->parts)) ||
	    !(wl = realloc(p->part_where, p->parts_cap * sizeof(*wl))))
		return oom(p);
	p->part_where = wl;
	if (!(t->name = strdup(name)) || !(w = strdup(where)))
		return oom(p);
	p->part_where[c->part_count] = w;
	c->parts[c->part_count++] = *t;
	memset(t, 0, sizeof(*t));
	return 0;
}

static int part_line(struct parser *p, struct conf_token *tok, int n, const char *where)
{
	struct conf_part t = p->part_def;
	int rc = -1;

	t.name = NULL;
	if (!*tok[0].value)
		return errprintf(p->err, "%s: PartitionName is empty", where);
	if (conf_key_copy_strings(CONF_SCOPE_PART, &t)) {
		oom(p);
		goto out;
	}
	if (part_keys_apply(p, &t, tok, n, where))
		goto out;
	if (!strcasecmp(tok[0].value, "DEFAULT")) {
		conf_key_release(CONF_SCOPE_PART, &p->part_def);
		p->part_def = t;
		memset(&t, 0, sizeof(t));
		rc = 0;
		goto out;
	}
	rc = part_add(p, &t, tok[0].value, where);
out:
	part_release(&t);
	return rc;
}

/* ---- partitions made or changed at run time (scontrol) ---- */

int conf_part_init(struct conf_part *p, const char *name)
{
	struct rota_error e = {{0}};

	memset(p, 0, sizeof(*p));
	if (conf_key_defaults(CONF_SCOPE_PART, p, &e) || !(p->name = strdup(name)) ||
	    !(p->node_names = calloc(1, sizeof(*p->node_names)))) {
		conf_part_release(p);
		return -ENOMEM;
	}
	return 0;
}

int conf_part_copy(struct conf_part *dst, const struct conf_part *src)
{
	*dst = *src;
	dst->name = NULL;
	dst->node_names = NULL;
	if (conf_key_copy_strings(CONF_SCOPE_PART, dst) ||
	    (src->name && !(dst->name = strdup(src->name))) ||
	    !(dst->node_names = calloc(src->node_count + 1, sizeof(char *))))
		goto fail;
	for (size_t i = 0; i < src->node_count; i++)
		if (!(dst->node_names[i] = strdup(src->node_names[i])))
			goto fail;
	return 0;
fail:
	conf_part_release(dst);
	return -ENOMEM;
}

void conf_part_release(struct conf_part *p)
{
	if (!p)
		return;
	part_release(p);
	memset(p, 0, sizeof(*p));
}

int conf_part_set(struct conf_part *p, const char *key, const char *value,
                  struct rota_error *err)
{
	const struct conf_key *k = conf_key_find(CONF_SCOPE_PART, key);

	if (!k || k->type == CONF_T_IGNORED || k->type == CONF_T_SPECIAL ||
	    k->offset == CONF_NO_FIELD) {
		errprintf(err, "%.64s: not a partition's setting", key);
		return -ENOENT;
	}
	if (conf_key_set(k, p, value, "partition", err))
		return -EINVAL;
	if (k->offset == offsetof(struct conf_part, nodes)) {
		hostlist_free(p->node_names); /* the caller expands it again */
		p->node_names = NULL;
		p->node_count = 0;
	}
	return 0;
}

/* Does k's field of p hold a string that is NULL? */
static int string_unset(const struct conf_key *k, const struct conf_part *p)
{
	return (k->type == CONF_T_STR || k->type == CONF_T_GROUPS ||
	        k->type == CONF_T_OVERSUB) &&
	       !*(char *const *)(const void *)((const char *)p + k->offset);
}

char **conf_part_format(const struct conf_part *p)
{
	char **v = xcalloc(1, sizeof(*v));

	for (size_t i = 0; i < conf_keys_count; i++) {
		const struct conf_key *k = &conf_keys[i];
		char *val = NULL, *kv;

		if (k->scope != CONF_SCOPE_PART || k->alias_of ||
		    k->type == CONF_T_SPECIAL || k->type == CONF_T_IGNORED ||
		    k->offset == CONF_NO_FIELD || string_unset(k, p))
			continue;
		if (conf_key_format(k, p, &val) < 0 ||
		    asprintf(&kv, "%s=%s", k->name, val) < 0)
			fatal("out of memory");
		v = strv_append(v, kv);
		free(kv);
		free(val);
	}
	return v;
}

/* ---- files and lines ---- */

static int do_include(struct parser *p, const char *arg, const char *dir,
                      const char *where, int depth)
{
	char *pattern = NULL;
	glob_t g;
	int rc;

	if (depth >= CONF_INCLUDE_MAX)
		return errprintf(p->err, "%s: Include nested more than %d deep", where,
		                 CONF_INCLUDE_MAX);
	if (arg[0] == '/')
		pattern = strdup(arg);
	else if (asprintf(&pattern, "%s/%s", dir, arg) < 0)
		pattern = NULL;
	if (!pattern)
		return oom(p);
	rc = glob(pattern, 0, NULL, &g);
	if (rc == GLOB_NOMATCH) {
		rc = strpbrk(arg, "*?[") ? 0
		                         : errprintf(p->err, "%s: Include %.200s: %s",
		                                     where, pattern, strerror(ENOENT));
		free(pattern);
		return rc;
	}
	if (rc) {
		free(pattern);
		return errprintf(p->err, "%s: Include %.200s: cannot read", where, arg);
	}
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
		rc = parse_file(p, g.gl_pathv[i], depth + 1, where);
	globfree(&g);
	free(pattern);
	return rc;
}

static int line_parse(struct parser *p, const char *where, const char *dir, int depth)
{
	struct conf_token tok[CONF_TOKENS_MAX];
	const struct conf_key *k;
	int n = line_tokenize(p->line, tok, where, p->err);

	if (n <= 0)
		return n;
	if (!tok[0].key)
		return do_include(p, tok[0].value, dir, where, depth);
	if (!strcasecmp(tok[0].key, "NodeName"))
		return node_line(p, tok, n, where);
	if (!strcasecmp(tok[0].key, "PartitionName"))
		return part_line(p, tok, n, where);
	k = conf_key_find(CONF_SCOPE_GLOBAL, tok[0].key);
	if (k && k->id == CONF_ID_LINE_IGNORED) {
		log_debug("%s: %s line ignored", where, k->name);
		return 0;
	}
	return global_line(p, tok, n, where);
}

static int parse_text(struct parser *p, const char *text, size_t len, const char *name,
                      const char *dir, int depth)
{
	const char *s = text, *end = text + len;
	char where[CONF_WHERE_LEN];
	size_t lineno = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		snprintf(where, sizeof(where), "%.300s:%zu", name, ++lineno);
		if (n > CONF_LINE_MAX)
			return errprintf(p->err, "%s: line longer than %d bytes", where,
			                 CONF_LINE_MAX);
		memcpy(p->line, s, n);
		p->line[n] = '\0';
		if (line_parse(p, where, dir, depth))
			return -1;
		s = nl ? nl + 1 : end;
	}
	return 0;
}

/* Read a whole file of at most CONF_FILE_MAX bytes. */
static int file_read(const char *path, char **ret, size_t *ret_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	struct stat st;
	int fd, rc = 0;
	ssize_t n;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		goto out;
	}
	for (;;) {
		if (len == cap && grow((void **)&buf, &cap, len + 65536, 1)) {
			rc = -ENOMEM;
			goto out;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONF_FILE_MAX) {
			rc = -EFBIG;
			goto out;
		}
	}
out:
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

static int parse_file(struct parser *p, const char *path, int depth, const char *from)
{
	const char *slash = strrchr(path, '/');
	char *buf = NULL, *dir = NULL;
	size_t len = 0;
	int rc;

	rc = file_read(path, &buf, &len);
	if (rc)
		return errprintf(p->err, "%s%scannot read %.200s: %s", from ? from : "",
		                 from ? ": " : "", path,
		                 rc == -EFBIG ? "file too large" : strerror(-rc));
	if (memchr(buf, '\0', len)) {
		rc = errprintf(p->err, "%.200s: contains a NUL byte", path);
		goto out;
	}
	if (grow((void **)&p->conf->files, &p->files_cap, p->conf->file_count + 1,
	         sizeof(*p->conf->files)) < 0 ||
	    !(p->conf->files[p->conf->file_count] = strdup(path))) {
		rc = oom(p);
		goto out;
	}
	p->conf->file_count++;
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
	            : strdup(".");
	if (!dir) {
		rc = oom(p);
		goto out;
	}
	rc = parse_text(p, buf, len, path, dir, depth);
out:
	free(dir);
	free(buf);
	return rc;
}

/* ---- after the last line ---- */

static int part_resolve(struct parser *p, struct conf_part *pt, const char *where)
{
	const struct conf *c = p->conf;
	struct rota_error e = {{0}};
	char **names = NULL;
	size_t n = 0;

	if (pt->nodes && !strcasecmp(pt->nodes, "ALL")) {
		if (!(names = calloc(c->node_count + 1, sizeof(*names))))
			return oom(p);
		for (n = 0; n < c->node_count; n++) {
			if (!(names[n] = strdup(c->nodes[n].name))) {
				hostlist_free(names);
				return oom(p);
			}
		}
	} else if (pt->nodes) {
		if (hostlist_expand(pt->nodes, &names, &n, &e))
			return errprintf(p->err, "%s: partition %s: Nodes=%.64s: %s",
			                 where, pt->name, pt->nodes, e.text);
		for (size_t i = 0; i < n; i++) {
			if (node_index(p, names[i]) == SIZE_MAX) {
				errprintf(p->err,
				          "%s: partition %s: node %s is not defined",
				          where, pt->name, names[i]);
				hostlist_free(names);
				return -1;
			}
		}
	} else if (!(names = calloc(1, sizeof(*names)))) {
		return oom(p);
	}
	pt->node_names = names;
	pt->node_count = n;
	return 0;
}

/* PropagateResourceLimits and ...Except: limits' names, one key or the other. */
static int rlimit_keys_check(struct parser *p)
{
	const struct conf *c = p->conf;
	const char *rl[2] = {c->propagate_rlimits, c->propagate_rlimits_except};
	const char *key[2] = {"PropagateResourceLimits", "PropagateResourceLimitsExcept"};
	struct rota_error e = {{0}};
	unsigned set;

	if (rl[0] && rl[1])
		return errprintf(p->err, "%s and %s are mutually exclusive", key[0],
		                 key[1]);
	for (int i = 0; i < 2; i++)
		if (rl[i] && rlimits_parse(rl[i], &set, &e) < 0)
			return errprintf(p->err, "%s=%.64s: %s", key[i], rl[i], e.text);
	return 0;
}

/* MCSPlugin names a plugin Slurm has (Slurm does not start otherwise). */
static int mcs_keys_check(struct parser *p)
{
	struct mcs_conf mc;
	int rc = mcs_conf_read(p->conf->mcs_plugin, NULL, &mc, p->err);

	mcs_conf_release(&mc);
	return rc;
}

static int conf_finish(struct parser *p)
{
	struct conf *c = p->conf;
	size_t last_default = SIZE_MAX;

	if (!c->slurmctld_host) {
		if (dup_into(&c->slurmctld_host,
		             p->control_machine ? p->control_machine : "localhost") ||
		    dup_into(&c->slurmctld_addr, p->control_addr))
			return oom(p);
	}
	for (size_t i = 0; i < c->node_count; i++) {
		struct conf_node *nd = &c->nodes[i];

		if (!nd->port)
			nd->port = c->slurmd_port;
		if ((!nd->hostname && dup_into(&nd->hostname, nd->name)) ||
		    (!nd->addr && dup_into(&nd->addr, nd->hostname)))
			return oom(p);
	}
	for (size_t i = 0; i < c->part_count; i++) {
		if (part_resolve(p, &c->parts[i], p->part_where[i]))
			return -1;
		if (c->parts[i].is_default)
			last_default = i;
	}
	if (c->licenses) {
		struct lic lics[LIC_MAX];
		struct rota_error e = {{0}};

		if (lic_parse(c->licenses, lics, 1, &e) < 0)
			return errprintf(p->err, "Licenses=%.64s: %s", c->licenses,
			                 e.text);
	}
	if (rlimit_keys_check(p) < 0)
		return -1;
	if (mpi_params_ports(c->mpi_params, &(uint32_t){0}, &(uint32_t){0}, p->err) < 0)
		return -1;
	if (mcs_keys_check(p) < 0)
		return -1;
	/* as in Slurm, the last Default=YES wins */
	for (size_t i = 0; i < c->part_count; i++)
		c->parts[i].is_default = i == last_default;
	return 0;
}

static int parser_init(struct parser *p, const char *name, struct rota_error *err)
{
	memset(p, 0, sizeof(*p));
	p->err = err;
	if (!(p->conf = calloc(1, sizeof(*p->conf))) || !(p->conf->path = strdup(name)) ||
	    !(p->line = malloc(CONF_LINE_MAX + 1)))
		return oom(p);
	if (conf_key_defaults(CONF_SCOPE_GLOBAL, p->conf, err) ||
	    conf_key_defaults(CONF_SCOPE_NODE, &p->node_def.node, err) ||
	    conf_key_defaults(CONF_SCOPE_PART, &p->part_def, err))
		return -1;
	return 0;
}

/* Hand over the conf on success, free everything else. */
static int parser_done(struct parser *p, int rc, struct conf **ret)
{
	if (p->conf) {
		for (size_t i = 0; i < p->conf->part_count; i++)
			free(p->part_where[i]);
	}
	free(p->part_where);
	free(p->slots);
	free(p->line);
	free(p->control_machine);
	free(p->control_addr);
	node_release(&p->node_def.node);
	part_release(&p->part_def);
	if (rc) {
		conf_destroy(p->conf);
		return -1;
	}
	*ret = p->conf;
	return 0;
}

int conf_load(const char *path, struct conf **ret, struct rota_error *err)
{
	struct parser p;
	int rc;

	if (!path)
		return errprintf(err, "no configuration file given");
	rc = parser_init(&p, path, err);
	if (!rc)
		rc = parse_file(&p, path, 0, NULL);
	if (!rc)
		rc = conf_finish(&p);
	return parser_done(&p, rc, ret);
}

int conf_load_string(const char *text, const char *name, struct conf **ret,
                     struct rota_error *err)
{
	struct parser p;
	int rc;

	if (!name)
		name = "(string)";
	rc = parser_init(&p, name, err);
	if (!rc && text)
		rc = parse_text(&p, text, strlen(text), name, ".", 0);
	if (!rc)
		rc = conf_finish(&p);
	return parser_done(&p, rc, ret);
}

void conf_destroy(struct conf *conf)
{
	if (!conf)
		return;
	conf_key_release(CONF_SCOPE_GLOBAL, conf);
	free(conf->path);
	for (size_t i = 0; i < conf->file_count; i++)
		free(conf->files[i]);
	free(conf->files);
	free(conf->slurmctld_host);
	free(conf->slurmctld_addr);
	for (size_t i = 0; i < conf->backup_count; i++) {
		free(conf->backup_host[i]);
		free(conf->backup_addr[i]);
	}
	for (size_t i = 0; i < conf->node_count; i++)
		node_release(&conf->nodes[i]);
	free(conf->nodes);
	for (size_t i = 0; i < conf->part_count; i++)
		part_release(&conf->parts[i]);
	free(conf->parts);
	conf_kv_free(conf->kv, conf->kv_count);
	free(conf);
}

/* ---- queries ---- */

const struct conf_node *conf_node_find(const struct conf *conf, const char *name)
{
	for (size_t i = 0; name && i < conf->node_count; i++) {
		if (!strcmp(conf->nodes[i].name, name))
			return &conf->nodes[i];
	}
	return NULL;
}

const struct conf_part *conf_part_find(const struct conf *conf, const char *name)
{
	for (size_t i = 0; name && i < conf->part_count; i++) {
		if (!strcmp(conf->parts[i].name, name))
			return &conf->parts[i];
	}
	return NULL;
}

const struct conf_part *conf_part_default(const struct conf *conf)
{
	const struct conf_part *found = NULL;

	for (size_t i = 0; i < conf->part_count; i++) {
		if (conf->parts[i].is_default)
			found = &conf->parts[i];
	}
	return found;
}

const char *conf_part_state_str(uint32_t state)
{
	switch (state) {
	case CONF_PART_UP:
		return "UP";
	case CONF_PART_DOWN:
		return "DOWN";
	case CONF_PART_DRAIN:
		return "DRAIN";
	case CONF_PART_INACTIVE:
		return "INACTIVE";
	}
	return "UNKNOWN";
}

int conf_global_value_ok(const char *key, const char *value)
{
	const struct conf_key *k = key ? conf_key_find(CONF_SCOPE_GLOBAL, key) : NULL;
	struct rota_error err = {""};
	struct conf *scratch;
	int rc;

	if (!k || !value)
		return 0;
	if (k->type == CONF_T_SPECIAL) /* SlurmctldHost and its old names */
		return *value != '\0';
	scratch = xcalloc(1, sizeof(*scratch));
	rc = conf_key_set(k, scratch, value, key, &err);
	conf_key_release(CONF_SCOPE_GLOBAL, scratch);
	free(scratch);
	if (rc)
		return 0;
	if (k->def ? !strcasecmp(value, k->def)
	           : (!*value || !strcmp(value, "0") || !strcasecmp(value, "NO")))
		return 2;
	return 1;
}

const char *conf_default_path(void)
{
	const char *s = getenv("SLURM_CONF");

	if (s && *s)
		return s;
	s = getenv("ROTA_CONF");
	if (s && *s)
		return s;
	if (access("/etc/slurm/slurm.conf", F_OK) < 0 && errno == ENOENT) {
		/* a configless node: what its rotad fetched (conf_run_dir) */
		static __thread char run[4096];
		snprintf(run, sizeof(run), "%s/slurm.conf", conf_run_dir());
		if (access(run, F_OK) == 0)
			return run;
	}
	return "/etc/slurm/slurm.conf";
}

const char *conf_run_dir(void)
{
	const char *s = getenv("ROTA_RUN_CONF");

	return s && *s ? s : "/run/rota/conf";
}

void conf_kv_free(struct conf_kv *kv, size_t count)
{
	if (!kv)
		return;
	for (size_t i = 0; i < count; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

/* The value show config prints for a global row, or -ENOENT if none. */
static int dump_value(const struct conf *conf, const struct conf_key *k, char **ret)
{
	int n;

	if (k->id != CONF_ID_SLURMCTLD_HOST)
		return conf_key_format(k, conf, ret);
	if (conf->slurmctld_addr)
		n = asprintf(ret, "%s(%s)", conf->slurmctld_host, conf->slurmctld_addr);
	else
		n = asprintf(ret, "%s",
		             conf->slurmctld_host ? conf->slurmctld_host : "(null)");
	return n < 0 ? -ENOMEM : 0;
}

int conf_dump_kv(const struct conf *conf, struct conf_kv **ret, size_t *ret_count)
{
	struct conf_kv *kv = calloc(conf_keys_count + conf->kv_count + 1, sizeof(*kv));
	size_t n = 0;
	int rc = 0;

	if (!kv)
		return -ENOMEM;
	for (size_t i = 0; rc == 0 && i < conf_keys_count; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (k->scope != CONF_SCOPE_GLOBAL || k->alias_of)
			continue;
		rc = dump_value(conf, k, &kv[n].value);
		if (rc == -ENOENT) {
			rc = 0;
			continue;
		}
		if (rc == 0 && !(kv[n++].key = strdup(k->name)))
			rc = -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < conf->kv_count; i++) {
		const struct conf_key *k =
		    conf_key_find(CONF_SCOPE_GLOBAL, conf->kv[i].key);
		char *dummy = NULL;

		if (k && dump_value(conf, k, &dummy) != -ENOENT) {
			free(dummy); /* printed above with its effective value */
			continue;
		}
		kv[n].key = strdup(conf->kv[i].key);
		kv[n].value = strdup(conf->kv[i].value);
		if (!kv[n].key || !kv[n].value)
			rc = -ENOMEM;
		n++;
	}
	if (rc) {
		conf_kv_free(kv, n + 1);
		return rc;
	}
	*ret = kv;
	*ret_count = n;
	return 0;
}

int conf_reload_check(const struct conf *old, const struct conf *new_conf,
                      struct rota_error *err)
{
	for (size_t i = 0; i < conf_keys_count; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (k->scope != CONF_SCOPE_GLOBAL || k->alias_of ||
		    (k->flags & CONF_KEY_RELOAD))
			continue;
		if (!conf_key_equal(k, old, new_conf))
			return errprintf(
			    err, "%s changed; it takes effect only after a restart",
			    k->name);
	}
	return 0;
}

int conf_mem_consumable(const struct conf *conf)
{
	const char *p = conf->select_type_parameters;

	return !p || !*p || strcasestr(p, "memory") != NULL;
}

int conf_accounting(const struct conf *conf)
{
	const char *t = conf->accounting_storage_type;

	return t && !strcasecmp(t, "accounting_storage/slurmdbd");
}

int conf_configless(const struct conf *conf)
{
	return list_has(conf->slurmctld_params, "enable_configless", 1);
}

char *conf_jwt_key_path(const struct conf *conf)
{
	char *key;

	if (!list_has(conf->auth_alt_types, "auth/jwt", 1))
		return NULL;
	key = list_value(conf->auth_alt_params, "jwt_key", 1);
	if (key)
		return key;
	/* with a JWKS, HS256 only when jwt_key names its key, as Slurm */
	if ((key = list_value(conf->auth_alt_params, "jwks", 1))) {
		free(key);
		return NULL;
	}
	return xasprintf("%s/jwt_hs256.key", conf->state_save_location);
}

char *conf_tls_file(const struct conf *conf, const char *key, const char *dflt)
{
	char *v = list_value(conf->tls_params, key, 1);
	const char *slash = conf->path ? strrchr(conf->path, '/') : NULL;

	if (v)
		return v;
	if (!slash)
		return xstrdup(dflt);
	return xasprintf("%.*s/%s", (int)(slash - conf->path), conf->path, dflt);
}

size_t conf_ctld_count(const struct conf *conf)
{
	return 1 + conf->backup_count;
}

const char *conf_ctld_host(const struct conf *conf, size_t i)
{
	return i == 0 ? conf->slurmctld_host : conf->backup_host[i - 1];
}

const char *conf_ctld_addr(const struct conf *conf, size_t i)
{
	const char *a = i == 0 ? conf->slurmctld_addr : conf->backup_addr[i - 1];
	return a ? a : conf_ctld_host(conf, i);
}

uint32_t conf_node_ping_s(const struct conf *conf)
{
	uint32_t t = conf->slurmctld_timeout, s;

	if (conf->slurmd_timeout && (!t || conf->slurmd_timeout < t))
		t = conf->slurmd_timeout;
	s = t / 3;
	if (s < 1)
		return 1;
	return s > CONF_NODE_PING_MAX_S ? CONF_NODE_PING_MAX_S : s;
}

uint32_t conf_node_silence_s(const struct conf *conf)
{
	uint32_t s = CONF_NODE_PING_MISSED * conf_node_ping_s(conf) + 1;

	return conf->slurmd_timeout && conf->slurmd_timeout < s ? conf->slurmd_timeout
	                                                        : s;
}

int conf_prolog_contain(const struct conf *c)
{
	const char *p = c ? c->prolog_flags : NULL;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		if ((n == 7 && !strncasecmp(p, "contain", 7)) ||
		    (n == 3 && !strncasecmp(p, "x11", 3)))
			return 1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}
