/* constraint.c - parse a --constraint expression into a small tree once,
 * evaluate it against node feature lists many times. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/constraint.h"
#include "common/common.h"

#define MAX_NODES (2 * CONSTRAINT_MAX_TERMS + 1)
#define MAX_DEPTH 16

enum cop { C_NAME, C_AND, C_OR, C_MOR };

struct cnode {
	enum cop op;
	size_t a, b; /* C_NAME: name index; C_AND/C_OR: children; C_MOR: unused */
};

struct constraint {
	struct cnode node[MAX_NODES];
	size_t nnode, root;
	char *name[CONSTRAINT_MAX_TERMS];
	size_t nname;
	size_t alt[CONSTRAINT_MAX_TERMS]; /* the matching-OR group's alternatives */
	size_t nalt;                      /* 0: no group */
};

struct parser {
	const char *s, *p;
	struct constraint *c;
	struct rota_error *err;
	int depth;
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
	if (*ps->p == '*')
		return errprintf(ps->err, "node counts (\"%.*s*N\") are not supported",
		                 (int)len, start);
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

/* [alt|alt|...]: each alt a name or a (group). */
static int parse_matching_or(struct parser *ps, size_t *ret)
{
	struct constraint *c = ps->c;

	if (c->nalt)
		return errprintf(ps->err, "only one [...] group is allowed");
	if (ps->depth)
		return errprintf(ps->err, "[...] may not be inside parentheses");
	ps->p++; /* '[' */
	for (;;) {
		size_t t;
		int rc = *ps->p == '(' ? parse_group(ps, &t) : parse_name(ps, &t);
		if (rc < 0)
			return rc;
		c->alt[c->nalt++] = t;
		if (*ps->p == ']')
			break;
		if (*ps->p == '&' || *ps->p == ',')
			return errprintf(ps->err,
			                 "AND inside [...] needs node counts, which are "
			                 "not supported");
		if (*ps->p != '|')
			return errprintf(ps->err, "missing ']' at position %ld", pos(ps));
		if (c->nalt >= CONSTRAINT_MAX_TERMS)
			return errprintf(ps->err, "too many alternatives");
		ps->p++;
	}
	ps->p++;
	return add_node(ps, C_MOR, 0, 0, ret);
}

static int parse_term(struct parser *ps, size_t *ret)
{
	if (*ps->p == '(')
		return parse_group(ps, ret);
	if (*ps->p == '[')
		return parse_matching_or(ps, ret);
	return parse_name(ps, ret);
}

/* term (op term)*, applied left to right */
static int parse_expr(struct parser *ps, size_t *ret)
{
	size_t left, right;

	if (parse_term(ps, &left) < 0)
		return -1;
	while (*ps->p == '&' || *ps->p == ',' || *ps->p == '|') {
		enum cop op = *ps->p == '|' ? C_OR : C_AND;
		ps->p++;
		if (parse_term(ps, &right) < 0 ||
		    add_node(ps, op, left, right, &left) < 0)
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

size_t constraint_names(const struct constraint *c, const char *const **ret)
{
	*ret = (const char *const *)c->name;
	return c->nname;
}
