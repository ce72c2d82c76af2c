/* constraint.c - parse a --constraint expression into a small tree once,
 * evaluate it against node feature lists many times. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/constraint.h"
#include "common/common.h"

#define MAX_NODES (2 * CONSTRAINT_MAX_TERMS + CONSTRAINT_MAX_COUNTS + 2)
#define MAX_DEPTH 16

/* C_TRUE stands where a counted TERM was: every node passes it */
enum cop { C_NAME, C_AND, C_OR, C_MOR, C_TRUE };

struct cnode {
	enum cop op;
	size_t a, b; /* C_NAME: name index; C_AND/C_OR: children; else unused */
};

struct ccount {
	size_t expr; /* the TERM's node */
	struct constraint_count n;
};

struct constraint {
	struct cnode node[MAX_NODES];
	size_t nnode, root;
	char *name[CONSTRAINT_MAX_TERMS];
	size_t nname;
	size_t alt[CONSTRAINT_MAX_TERMS]; /* the matching-OR group's alternatives */
	size_t nalt;                      /* 0: no group */
	struct ccount count[CONSTRAINT_MAX_COUNTS];
	size_t ncount;
};

struct parser {
	const char *s, *p;
	struct constraint *c;
	struct rota_error *err;
	int depth;
	int brackets; /* [...] groups seen */
	int nomem;
};

static int is_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || (ch && strchr("_-.:=+/@", ch));
}

static long pos(const struct parser *ps)
{
	return (long)(ps->p - ps->s) + 1;
}

static int add_node(struct parser *ps, enum cop op, size_t a, size_t b, size_t *ret)
{
	struct constraint *c = ps->c;

	if (c->nnode >= MAX_NODES)
		return errprintf(ps->err, "too many terms (at most %d)",
		                 CONSTRAINT_MAX_TERMS);
	c->node[c->nnode] = (struct cnode){.op = op, .a = a, .b = b};
	*ret = c->nnode++;
	return 0;
}

static int parse_expr(struct parser *ps, size_t *ret);

static int parse_name(struct parser *ps, size_t *ret)
{
	const char *start = ps->p;
	size_t len;
	char *name;

	while (*ps->p && is_name_char(*ps->p))
		ps->p++;
	len = (size_t)(ps->p - start);
	if (!len) {
		if (!*ps->p)
			return errprintf(ps->err, "a feature name is missing at the end");
		return errprintf(ps->err, "unexpected '%c' at position %ld", *ps->p,
		                 pos(ps));
	}
	if (ps->c->nname >= CONSTRAINT_MAX_TERMS)
		return errprintf(ps->err, "too many features (at most %d)",
		                 CONSTRAINT_MAX_TERMS);
	name = strndup(start, len);
	if (!name) {
		ps->nomem = 1;
		return -1;
	}
	ps->c->name[ps->c->nname] = name;
	return add_node(ps, C_NAME, ps->c->nname++, 0, ret);
}

/* "*N" after a TERM: *ret_n gets N, 0 when there is none. */
static int parse_count(struct parser *ps, uint32_t *ret_n)
{
	const char *start;
	uint32_t n = 0;

	*ret_n = 0;
	if (*ps->p != '*')
		return 0;
	start = ++ps->p;
	for (; *ps->p >= '0' && *ps->p <= '9'; ps->p++)
		if (n <= CONSTRAINT_MAX_COUNT) /* stays in range: caught below */
			n = n * 10 + (uint32_t)(*ps->p - '0');
	if (ps->p == start)
		return errprintf(ps->err, "a node count is missing at position %ld",
		                 pos(ps));
	if (!n || n > CONSTRAINT_MAX_COUNT)
		return errprintf(ps->err, "node count %.*s out of range (1 to %d)",
		                 (int)(ps->p - start), start, CONSTRAINT_MAX_COUNT);
	*ret_n = n;
	return 0;
}

static int add_count(struct parser *ps, size_t expr, uint32_t n, int own)
{
	struct constraint *c = ps->c;

	if (c->ncount >= CONSTRAINT_MAX_COUNTS)
		return errprintf(ps->err, "too many node counts (at most %d)",
		                 CONSTRAINT_MAX_COUNTS);
	c->count[c->ncount++] = (struct ccount){.expr = expr, .n = {n, own}};
	return 0;
}

static int parse_group(struct parser *ps, size_t *ret)
{
	int rc;

	if (++ps->depth > MAX_DEPTH)
		return errprintf(ps->err, "parentheses nested too deep (at most %d)",
		                 MAX_DEPTH);
	ps->p++; /* '(' */
	rc = parse_expr(ps, ret);
	if (rc < 0)
		return rc;
	if (*ps->p != ')')
		return errprintf(ps->err, "missing ')' at position %ld", pos(ps));
	ps->p++;
	ps->depth--;
	return 0;
}

/* [alt|alt|...] (matching OR) or [t*N&t*M&...] (counts on nodes of their
 * own); each item a name or a (group).  *ret_counted: the second. */
static int parse_bracket(struct parser *ps, size_t *ret, int *ret_counted)
{
	struct constraint *c = ps->c;
	size_t counted = 0;
	char sep = 0;

	if (ps->brackets++)
		return errprintf(ps->err, "only one [...] group is allowed");
	if (ps->depth)
		return errprintf(ps->err, "[...] may not be inside parentheses");
	ps->p++; /* '[' */
	for (;;) {
		size_t t;
		uint32_t n;
		char ch;
		int rc = *ps->p == '(' ? parse_group(ps, &t) : parse_name(ps, &t);
		if (rc < 0 || parse_count(ps, &n) < 0)
			return -1;
		if (n && add_count(ps, t, n, 1) < 0)
			return -1;
		if (n)
			counted++;
		else
			c->alt[c->nalt++] = t;
		ch = *ps->p == ',' ? '&' : *ps->p;
		if (ch == ']')
			break;
		if (ch != '|' && ch != '&')
			return errprintf(ps->err, "missing ']' at position %ld", pos(ps));
		if (sep && ch != sep)
			return errprintf(ps->err, "[...] mixes '|' and '&'");
		sep = ch;
		if (c->nalt >= CONSTRAINT_MAX_TERMS)
			return errprintf(ps->err, "too many alternatives");
		ps->p++;
	}
	ps->p++;
	if (sep == '|' && counted)
		return errprintf(ps->err, "a matching OR [..|..] takes no node counts");
	if (sep == '&' && c->nalt)
		return errprintf(ps->err, "each term of [..&..] needs a node count "
		                          "(\"*N\")");
	*ret_counted = counted > 0;
	return add_node(ps, counted ? C_TRUE : C_MOR, 0, 0, ret);
}

/* NAME, (EXPR) or [...], with its node count if any (then *ret_counted is
 * set and *ret a C_TRUE node). */
static int parse_term(struct parser *ps, size_t *ret, int *ret_counted)
{
	size_t t;
	uint32_t n;
	int rc;

	*ret_counted = 0;
	if (*ps->p == '[') {
		if (parse_bracket(ps, ret, ret_counted) < 0)
			return -1;
		if (*ps->p == '*')
			return errprintf(ps->err, "a [...] group takes no node count");
		return 0;
	}
	rc = *ps->p == '(' ? parse_group(ps, &t) : parse_name(ps, &t);
	if (rc < 0 || parse_count(ps, &n) < 0)
		return -1;
	if (!n) {
		*ret = t;
		return 0;
	}
	if (ps->depth)
		return errprintf(ps->err, "a node count may not be inside parentheses");
	if (add_count(ps, t, n, 0) < 0)
		return -1;
	*ret_counted = 1;
	return add_node(ps, C_TRUE, 0, 0, ret);
}

/* term (op term)*, applied left to right; a counted term only under AND */
static int parse_expr(struct parser *ps, size_t *ret)
{
	size_t left, right;
	int counted, rcounted;

	if (parse_term(ps, &left, &counted) < 0)
		return -1;
	while (*ps->p == '&' || *ps->p == ',' || *ps->p == '|') {
		enum cop op = *ps->p == '|' ? C_OR : C_AND;
		ps->p++;
		if (parse_term(ps, &right, &rcounted) < 0)
			return -1;
		if (op == C_OR && (counted || rcounted))
			return errprintf(ps->err,
			                 "a node count (\"*N\") may only be "
			                 "ANDed, at position %ld",
			                 pos(ps));
		counted |= rcounted;
		if (add_node(ps, op, left, right, &left) < 0)
			return -1;
	}
	*ret = left;
	return 0;
}

int constraint_parse(const char *spec, struct constraint **ret, struct rota_error *err)
{
	struct parser ps = {.s = spec, .p = spec, .err = err};
	size_t len = spec ? strlen(spec) : 0;

	if (!len) {
		errprintf(err, "empty constraint");
		return -EINVAL;
	}
	if (len > CONSTRAINT_MAX_LEN) {
		errprintf(err, "constraint longer than %d characters",
		          CONSTRAINT_MAX_LEN);
		return -EINVAL;
	}
	ps.c = calloc(1, sizeof(*ps.c));
	if (!ps.c)
		return -ENOMEM;
	if (parse_expr(&ps, &ps.c->root) < 0)
		goto fail;
	if (*ps.p) {
		errprintf(err, "unexpected '%c' at position %ld", *ps.p, pos(&ps));
		goto fail;
	}
	*ret = ps.c;
	return 0;
fail:
	constraint_destroy(ps.c);
	return ps.nomem ? -ENOMEM : -EINVAL;
}

void constraint_destroy(struct constraint *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nname; i++)
		free(c->name[i]);
	free(c);
}

size_t constraint_alternatives(const struct constraint *c)
{
	return c->nalt ? c->nalt : 1;
}

int feature_list_has(const char *features, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = features; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && !strncmp(p, name, len))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int eval(const struct constraint *c, size_t i, size_t alt, const char *features)
{
	const struct cnode *n = &c->node[i];

	switch (n->op) {
	case C_NAME:
		return feature_list_has(features, c->name[n->a]);
	case C_AND:
		return eval(c, n->a, alt, features) && eval(c, n->b, alt, features);
	case C_OR:
		return eval(c, n->a, alt, features) || eval(c, n->b, alt, features);
	case C_MOR:
		return alt < c->nalt && eval(c, c->alt[alt], alt, features);
	case C_TRUE:
		return 1;
	}
	return 0;
}

int constraint_match(const struct constraint *c, size_t alt, const char *features)
{
	return eval(c, c->root, alt, features);
}

int constraint_match_any(const struct constraint *c, const char *features)
{
	for (size_t a = 0; a < constraint_alternatives(c); a++)
		if (constraint_match(c, a, features))
			return 1;
	return 0;
}

size_t constraint_counts(const struct constraint *c)
{
	return c->ncount;
}

struct constraint_count constraint_count(const struct constraint *c, size_t k)
{
	return c->count[k].n;
}

int constraint_count_match(const struct constraint *c, size_t k, const char *features)
{
	return eval(c, c->count[k].expr, 0, features);
}

uint32_t constraint_count_nodes(const struct constraint *c)
{
	uint32_t most = 0, own = 0;

	for (size_t k = 0; k < c->ncount; k++) {
		if (c->count[k].n.nodes > most)
			most = c->count[k].n.nodes;
		if (c->count[k].n.own)
			own += c->count[k].n.nodes;
	}
	return own > most ? own : most;
}

size_t constraint_names(const struct constraint *c, const char *const **ret)
{
	*ret = (const char *const *)c->name;
	return c->nname;
}
