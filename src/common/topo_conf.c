#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include "common/topo_conf.h"
#include "common/hostlist.h"
#include "common/conf_file.h"
#include "common/common.h"

#define WHERE_LEN 320

/* What the lines say before the switches are linked. */
struct pending {
	char ***child_names; /* Switches= (hostlist_free), per switch */
	char (*where)[WHERE_LEN];
	size_t cap;
	size_t nnodes; /* node names in all */
};

/* Every key a line may hold; line_parse refuses others before looking closer,
 * so a key the parser learns must be added here, and the man page generated
 * from this table (common/conf_doc.h) names it. */
static const char *const topo_keys[] = {
    "SwitchName", "Switches", "BlockName", "BlockSizes", "Nodes", "LinkSpeed",
};

const char *const *topo_conf_keys(size_t *ret_n)
{
	*ret_n = sizeof(topo_keys) / sizeof(*topo_keys);
	return topo_keys;
}

static int topo_key_known(const char *k)
{
	for (size_t i = 0; i < sizeof(topo_keys) / sizeof(*topo_keys); i++)
		if (!strcasecmp(k, topo_keys[i]))
			return 1;
	return 0;
}

int topo_kind_parse(const char *plugin, enum topo_kind *ret, struct rota_error *err)
{
	if (!plugin || !*plugin || !strcasecmp(plugin, "topology/default") ||
	    !strcasecmp(plugin, "topology/flat") || !strcasecmp(plugin, "topology/none"))
		*ret = TOPO_NONE;
	else if (!strcasecmp(plugin, "topology/tree"))
		*ret = TOPO_TREE;
	else if (!strcasecmp(plugin, "topology/block"))
		*ret = TOPO_BLOCK;
	else
		return errprintf(err,
		                 "TopologyPlugin=%.64s: expected topology/tree, "
		                 "topology/block or topology/flat",
		                 plugin),
		       -EINVAL;
	return 0;
}

void topo_conf_destroy(struct topo_conf *tc)
{
	if (!tc)
		return;
	for (size_t i = 0; i < tc->nsw; i++) {
		free(tc->sw[i].name);
		hostlist_free(tc->sw[i].nodes);
		free(tc->sw[i].children);
	}
	free(tc->sw);
	free(tc);
}

int topo_conf_find(const struct topo_conf *tc, const char *name)
{
	for (size_t i = 0; tc && i < tc->nsw; i++)
		if (!strcmp(tc->sw[i].name, name))
			return (int)i;
	return -1;
}

static int list_expand(const char *v, const char *key, const char *where, char ***ret,
                       size_t *ret_n, struct rota_error *err)
{
	struct rota_error e = {{0}};
	int rc = hostlist_expand(v, ret, ret_n, &e);

	if (rc < 0)
		return errprintf(err, "%s: %s=%.64s: %s", where, key, v, e.text), rc;
	return 0;
}

static int sizes_parse(struct topo_conf *tc, const char *v, const char *where,
                       struct rota_error *err)
{
	const char *s = v;

	tc->nsizes = 0;
	while (*s) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);
		if (end == s || (*end && *end != ',') || !x || x > TOPO_NODES_MAX ||
		    tc->nsizes == TOPO_SIZES_MAX ||
		    (tc->nsizes && (x <= tc->sizes[tc->nsizes - 1] || x % tc->sizes[0])))
			return errprintf(err,
			                 "%s: BlockSizes=%.64s: expected at most %d "
			                 "ascending multiples of the first size",
			                 where, v, TOPO_SIZES_MAX),
			       -EINVAL;
		tc->sizes[tc->nsizes++] = (uint32_t)x;
		s = end + (*end == ',');
	}
	return 0;
}

/* One switch or block line: its tokens are name=value pairs in kv[0..n). */
static int switch_add(struct topo_conf *tc, struct pending *pd, char **kv, size_t n,
                      const char *where, struct rota_error *err)
{
	struct topo_switch sw = {.parent = -1, .link_speed = 1};
	char **children = NULL;
	size_t nchildren = 0;
	int rc = 0, block = tc->kind == TOPO_BLOCK;

	for (size_t i = 0; rc == 0 && i < n; i += 2) {
		const char *k = kv[i], *v = kv[i + 1];
		if (i == 0) {
			sw.name = xstrdup(v);
		} else if (!topo_key_known(k)) {
			rc = errprintf(err, "%s: unexpected key '%.64s' on a %s line",
			               where, k, block ? "BlockName" : "SwitchName");
		} else if (!strcasecmp(k, "Nodes") && !sw.nodes) {
			rc = list_expand(v, k, where, &sw.nodes, &sw.nnodes, err);
		} else if (!block && !strcasecmp(k, "Switches") && !children) {
			rc = list_expand(v, k, where, &children, &nchildren, err);
		} else if (!strcasecmp(k, "LinkSpeed")) {
			char *end;
			unsigned long x = strtoul(v, &end, 10);
			if (*end || x > UINT32_MAX)
				rc = errprintf(err,
				               "%s: LinkSpeed=%.64s: expected a number",
				               where, v);
			sw.link_speed = (uint32_t)x;
		} else {
			rc = errprintf(err, "%s: unexpected key '%.64s' on a %s line",
			               where, k, block ? "BlockName" : "SwitchName");
		}
	}
	if (rc == 0 && topo_conf_find(tc, sw.name) >= 0)
		rc = errprintf(err, "%s: %.64s defined twice", where, sw.name);
	if (rc == 0 && sw.nodes && children)
		rc = errprintf(err,
		               "%s: switch %.64s has both Nodes= and Switches=", where,
		               sw.name);
	if (rc == 0 && !sw.nodes && !children)
		rc = errprintf(err, "%s: %.64s has no %s", where, sw.name,
		               block ? "Nodes=" : "Nodes= or Switches=");
	if (rc == 0 && tc->nsw == TOPO_SWITCHES_MAX)
		rc =
		    errprintf(err, "%s: more than %d switches", where, TOPO_SWITCHES_MAX);
	if (rc == 0 && sw.nnodes > TOPO_NODES_MAX - pd->nnodes)
		rc = errprintf(err, "%s: more than %d node names in all", where,
		               TOPO_NODES_MAX);
	if (rc < 0) {
		free(sw.name);
		hostlist_free(sw.nodes);
		hostlist_free(children);
		return rc < -1 ? rc : -EINVAL;
	}
	pd->nnodes += sw.nnodes;
	if (tc->nsw == pd->cap) {
		pd->cap = pd->cap ? 2 * pd->cap : 16;
		tc->sw = xrealloc(tc->sw, pd->cap * sizeof(*tc->sw));
		pd->child_names = xrealloc(pd->child_names, pd->cap * sizeof(char **));
		pd->where = xrealloc(pd->where, pd->cap * sizeof(*pd->where));
	}
	snprintf(pd->where[tc->nsw], WHERE_LEN, "%s", where);
	pd->child_names[tc->nsw] = children;
	tc->sw[tc->nsw++] = sw;
	return 0;
}

/* A line's Key=Value tokens (pointers into the line). */
struct line_kv {
	char *kv[16];
	size_t n;
};

static int kv_add(void *arg, const char *key, const char *value, const char *where,
                  struct rota_error *err)
{
	struct line_kv *l = arg;

	if (l->n + 2 > sizeof(l->kv) / sizeof(l->kv[0]))
		return errprintf(err, "%s: more than %zu keys on a line", where,
		                 sizeof(l->kv) / sizeof(l->kv[0]) / 2),
		       -EINVAL;
	l->kv[l->n++] = (char *)key;
	l->kv[l->n++] = (char *)value;
	return 0;
}

/* Split one line (changed in place) into Key=Value tokens and apply it. */
static int line_parse(struct topo_conf *tc, struct pending *pd, char *s,
                      const char *where, struct rota_error *err)
{
	struct line_kv l = {.n = 0};
	char **kv = l.kv;
	size_t n;
	const char *head;
	int rc = conf_line_split(s, kv_add, &l, where, err);

	if (rc < 0)
		return rc;
	n = l.n;
	if (!n)
		return 0;
	head = tc->kind == TOPO_BLOCK ? "BlockName" : "SwitchName";
	if (tc->kind == TOPO_BLOCK && !strcasecmp(kv[0], "BlockSizes")) {
		if (n > 2)
			return errprintf(err, "%s: BlockSizes= goes on a line of its own",
			                 where),
			       -EINVAL;
		return sizes_parse(tc, kv[1], where, err);
	}
	if (strcasecmp(kv[0], head))
		return errprintf(
		           err, "%s: expected %s=, found '%.64s' (TopologyPlugin=%s)",
		           where, head, kv[0],
		           tc->kind == TOPO_BLOCK ? "topology/block" : "topology/tree"),
		       -EINVAL;
	return switch_add(tc, pd, kv, n, where, err);
}

/* Level of switch i (children first); -1 on a loop. */
static int level_of(struct topo_conf *tc, size_t i, uint8_t *state)
{
	struct topo_switch *sw = &tc->sw[i];
	uint32_t lv = 0;

	if (state[i] == 2)
		return 0;
	if (state[i] == 1)
		return -1;
	state[i] = 1;
	for (size_t c = 0; c < sw->nchildren; c++) {
		if (level_of(tc, sw->children[c], state) < 0)
			return -1;
		if (tc->sw[sw->children[c]].level + 1 > lv)
			lv = tc->sw[sw->children[c]].level + 1;
	}
	sw->level = lv;
	state[i] = 2;
	return 0;
}

/* Switches= names to indexes, parents, levels. */
static int link_switches(struct topo_conf *tc, struct pending *pd, struct rota_error *err)
{
	uint8_t *state;
	int rc = 0;

	for (size_t i = 0; i < tc->nsw; i++) {
		char **names = pd->child_names[i];
		size_t n = 0;
		while (names && names[n])
			n++;
		tc->sw[i].children = n ? xcalloc(n, sizeof(uint32_t)) : NULL;
		for (size_t c = 0; c < n; c++) {
			int k = topo_conf_find(tc, names[c]);
			if (k < 0)
				return errprintf(err,
				                 "%s: switch %.64s: unknown switch %.64s",
				                 pd->where[i], tc->sw[i].name, names[c]),
				       -EINVAL;
			if (tc->sw[k].parent >= 0)
				return errprintf(
				           err, "%s: switch %.64s is already under %.64s",
				           pd->where[i], names[c],
				           tc->sw[tc->sw[k].parent].name),
				       -EINVAL;
			tc->sw[k].parent = (int32_t)i;
			tc->sw[i].children[tc->sw[i].nchildren++] = (uint32_t)k;
		}
	}
	state = xcalloc(tc->nsw + 1, 1);
	for (size_t i = 0; rc == 0 && i < tc->nsw; i++)
		if (level_of(tc, i, state) < 0)
			rc = errprintf(err, "%s: switch %.64s is below itself",
			               pd->where[i], tc->sw[i].name),
			rc = -EINVAL;
	free(state);
	return rc;
}

struct node_ref {
	const char *name;
	size_t sw;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct node_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->sw > y->sw) - (x->sw < y->sw);
}

/* A node in two leaves is refused. */
static int nodes_check(struct topo_conf *tc, struct pending *pd, struct rota_error *err)
{
	struct node_ref *refs = xcalloc(pd->nnodes + 1, sizeof(*refs));
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < tc->nsw; i++)
		for (size_t k = 0; k < tc->sw[i].nnodes; k++)
			refs[n++] = (struct node_ref){tc->sw[i].nodes[k], i};
	qsort(refs, n, sizeof(*refs), ref_cmp);
	for (size_t i = 1; i < n && rc == 0; i++)
		if (!strcmp(refs[i].name, refs[i - 1].name))
			rc = errprintf(err, "%s: node %.64s is also in %.64s",
			               pd->where[refs[i].sw], refs[i].name,
			               tc->sw[refs[i - 1].sw].name),
			rc = -EINVAL;
	free(refs);
	return rc;
}

/* Blocks: the default sizes (the smallest block, doubled up to all nodes). */
static void sizes_default(struct topo_conf *tc)
{
	uint32_t base = UINT32_MAX;

	if (tc->nsizes || !tc->nsw)
		return;
	for (size_t i = 0; i < tc->nsw; i++)
		if (tc->sw[i].nnodes < base)
			base = (uint32_t)tc->sw[i].nnodes;
	for (uint64_t s = base; tc->nsizes < TOPO_SIZES_MAX; s *= 2) {
		tc->sizes[tc->nsizes++] = (uint32_t)s;
		if (s >= base * tc->nsw)
			break;
	}
}

int topo_conf_load_string(const char *text, const char *name, enum topo_kind kind,
                          struct topo_conf **ret, struct rota_error *err)
{
	struct topo_conf *tc;
	struct pending pd = {0};
	char *line = NULL, where[WHERE_LEN];
	size_t lineno = 0;
	int rc = 0;

	if (kind == TOPO_NONE) {
		*ret = NULL;
		return 0;
	}
	tc = xcalloc(1, sizeof(*tc));
	tc->kind = kind;
	line = xcalloc(TOPO_CONF_LINE_MAX + 1, 1);
	for (const char *s = text; rc == 0 && *s;) {
		size_t n = strcspn(s, "\n");
		snprintf(where, sizeof(where), "%.300s:%zu", name, ++lineno);
		if (n > TOPO_CONF_LINE_MAX) {
			rc = errprintf(err, "%s: line longer than %d bytes", where,
			               TOPO_CONF_LINE_MAX),
			rc = -E2BIG;
			break;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		rc = line_parse(tc, &pd, line, where, err);
		s += n + (s[n] == '\n');
	}
	if (rc == 0 && !tc->nsw)
		rc = errprintf(err, "%s: no %s lines", name,
		               kind == TOPO_BLOCK ? "BlockName=" : "SwitchName="),
		rc = -EINVAL;
	if (rc == 0)
		rc = link_switches(tc, &pd, err);
	if (rc == 0)
		rc = nodes_check(tc, &pd, err);
	if (rc == 0 && kind == TOPO_BLOCK)
		sizes_default(tc);
	for (size_t i = 0; i < tc->nsw; i++)
		hostlist_free(pd.child_names[i]);
	free(pd.child_names);
	free(pd.where);
	free(line);
	if (rc < 0) {
		topo_conf_destroy(tc);
		return rc;
	}
	*ret = tc;
	return 0;
}

int topo_conf_load(const char *path, enum topo_kind kind, struct topo_conf **ret,
                   struct rota_error *err)
{
	char *text = NULL;
	int rc;

	if (kind == TOPO_NONE) {
		*ret = NULL;
		return 0;
	}
	if (access(path, F_OK) < 0) /* a missing file reads as empty */
		return errprintf(err, "%s: %s", path, strerror(errno)), -ENOENT;
	rc = conf_file_read(path, TOPO_CONF_FILE_MAX, &text, err);
	if (rc == 0)
		rc = topo_conf_load_string(text, path, kind, ret, err);
	free(text);
	return rc;
}

char *topo_conf_path(const char *slurm_conf_path)
{
	return conf_file_beside(slurm_conf_path, "topology.conf");
}
