#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/gres_conf.h"
#include "common/conf_file.h"
#include "common/gres.h"
#include "common/hostlist.h"

#define WHERE_LEN 320

struct gres_line {
	char where[WHERE_LEN];
	char **nodes; /* NodeName= expanded (hostlist_free), NULL: every node */
	size_t nnodes;
	char name[GRES_NAME_MAX]; /* "" on an AutoDetect-only line */
	char type[GRES_NAME_MAX];
	char flags[GRES_FLAGS_MAX];
	char links[GRES_LINKS_MAX];
	uint64_t count;
	char **files; /* File= expanded (hostlist_free), NULL: counted only */
	size_t nfiles;
	uint64_t cores[GRES_CORE_WORDS];
	enum gres_autodetect autodetect;
};

struct gres_conf {
	struct gres_line *lines;
	size_t n;
	size_t nnodes; /* NodeName= names of all lines */
};

enum gres_key {
	K_NAME,
	K_TYPE,
	K_FILE,
	K_COUNT,
	K_CORES,
	K_LINKS,
	K_FLAGS,
	K_AUTODETECT,
	K_NODENAME,
	K_COUNT_OF_KEYS,
};

static const char *const key_names[K_COUNT_OF_KEYS] = {
    "Name", "Type", "File", "Count", "Cores", "Links", "Flags", "AutoDetect", "NodeName",
};

const char *const *gres_conf_keys(size_t *ret_n)
{
	*ret_n = K_COUNT_OF_KEYS;
	return key_names;
}

static const char *const known_flags[] = {
    "CountOnlyEnvVars", "nvidia_gpu_env", "amd_gpu_env", "intel_gpu_env",
    "opencl_env",       "no_gpu_env",     "one_sharing", "all_sharing",
};

static void line_release(struct gres_line *l)
{
	hostlist_free(l->nodes);
	hostlist_free(l->files);
}

void gres_conf_destroy(struct gres_conf *gc)
{
	if (!gc)
		return;
	for (size_t i = 0; i < gc->n; i++)
		line_release(&gc->lines[i]);
	free(gc->lines);
	free(gc);
}

static int flags_check(const char *s)
{
	while (*s) {
		size_t len = strcspn(s, ","), k;

		for (k = 0; k < sizeof(known_flags) / sizeof(known_flags[0]); k++)
			if (strlen(known_flags[k]) == len &&
			    !strncasecmp(s, known_flags[k], len))
				break;
		if (k == sizeof(known_flags) / sizeof(known_flags[0]))
			return -1;
		s += len + (s[len] == ',');
	}
	return 0;
}

/* Links=-1,2,0: one small integer per device of the node. */
static int links_check(const char *s)
{
	if (!*s)
		return -1;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && *s != ',' && *s != '-')
			return -1;
	return 0;
}

static int set_word(char *dst, const char *v, const char *key, const char *where,
                    struct rota_error *err)
{
	if (gres_word_copy(dst, v, strlen(v)) < 0)
		return errprintf(err,
		                 "%s: %s=%.64s: expected a name (letters, digits, _-.)",
		                 where, key, v),
		       -EINVAL;
	return 0;
}

static int set_list(char ***dst, size_t *n, const char *v, size_t max, const char *key,
                    const char *where, struct rota_error *err)
{
	struct rota_error e = {{0}};
	size_t count = 0;
	int rc;

	hostlist_free(*dst);
	*dst = NULL;
	rc = hostlist_expand(v, dst, &count, &e);
	if (rc == 0 && count > max) {
		hostlist_free(*dst);
		*dst = NULL;
		rc = (errprintf(&e, "more than %zu names", max), -E2BIG);
	}
	if (rc < 0)
		return errprintf(err, "%s: %s=%.64s: %s", where, key, v, e.text), rc;
	if (n)
		*n = count;
	return 0;
}

/* Apply one Key=Value to l; *given collects which keys were seen. */
static int key_apply(struct gres_line *l, const char *key, const char *v, unsigned *given,
                     const char *where, struct rota_error *err)
{
	int k;

	if (!strcasecmp(key, "CPUs"))
		key = "Cores"; /* the old name */
	for (k = 0; k < K_COUNT_OF_KEYS && strcasecmp(key, key_names[k]); k++)
		;
	if (k == K_COUNT_OF_KEYS)
		return errprintf(err, "%s: unknown key '%.64s'", where, key), -EINVAL;
	if (*given & 1u << k)
		return errprintf(err, "%s: %s given twice", where, key_names[k]), -EINVAL;
	*given |= 1u << k;
	switch (k) {
	case K_NAME:
		return set_word(l->name, v, "Name", where, err);
	case K_TYPE:
		return set_word(l->type, v, "Type", where, err);
	case K_FILE:
		return set_list(&l->files, &l->nfiles, v, GRES_DEVS_MAX, "File", where,
		                err);
	case K_NODENAME:
		return set_list(&l->nodes, &l->nnodes, v, HOSTLIST_MAX, "NodeName", where,
		                err);
	case K_COUNT:
		l->count = gres_count_parse(v, strlen(v));
		if (!l->count && strcmp(v, "0"))
			return errprintf(err, "%s: Count=%.64s: expected a count", where,
			                 v),
			       -EINVAL;
		return 0;
	case K_CORES:
		if (gres_cores_parse(v, l->cores) < 0)
			return errprintf(err,
			                 "%s: Cores=%.64s: expected core ids below %d "
			                 "(\"0-15,32\")",
			                 where, v, GRES_CORES_MAX),
			       -EINVAL;
		return 0;
	case K_LINKS:
		if (strlen(v) >= GRES_LINKS_MAX || links_check(v) < 0)
			return errprintf(err,
			                 "%s: Links=%.64s: expected numbers (\"-1,2,0\")",
			                 where, v),
			       -EINVAL;
		memcpy(l->links, v, strlen(v) + 1);
		return 0;
	case K_FLAGS:
		if (strlen(v) >= GRES_FLAGS_MAX || flags_check(v) < 0)
			return errprintf(err, "%s: Flags=%.64s: unknown flag", where, v),
			       -EINVAL;
		memcpy(l->flags, v, strlen(v) + 1);
		return 0;
	case K_AUTODETECT:
		if (!strcasecmp(v, "off"))
			l->autodetect = GRES_AUTODETECT_OFF;
		else if (!strcasecmp(v, "nvml"))
			l->autodetect = GRES_AUTODETECT_NVML;
		else
			return errprintf(err,
			                 "%s: AutoDetect=%.64s: expected off or nvml",
			                 where, v),
			       -EINVAL;
		return 0;
	}
	return 0;
}

/* The keys together: Name= needed unless the line only sets AutoDetect; Count=
 * and File= agree. */
static int line_check(struct gres_line *l, unsigned given, const char *where,
                      struct rota_error *err)
{
	unsigned ad_only = 1u << K_AUTODETECT | 1u << K_NODENAME;

	if (!(given & 1u << K_NAME)) {
		if (given & ~ad_only || !(given & 1u << K_AUTODETECT))
			return errprintf(err, "%s: no Name= on the line", where), -EINVAL;
		return 0;
	}
	if (l->files) {
		if (given & 1u << K_COUNT && l->count != l->nfiles)
			return errprintf(
			           err,
			           "%s: Count=%llu does not match the %zu files of File=",
			           where, (unsigned long long)l->count, l->nfiles),
			       -EINVAL;
		l->count = l->nfiles;
	} else if (!(given & 1u << K_COUNT)) {
		l->count = 1;
	}
	return 0;
}

struct line_arg {
	struct gres_line *l;
	unsigned given;
};

static int line_key(void *arg, const char *key, const char *v, const char *where,
                    struct rota_error *err)
{
	struct line_arg *a = arg;

	return key_apply(a->l, key, v, &a->given, where, err);
}

/* Split a line (changed in place) into tokens and fill l.  Returns 1 for a
 * line with content, 0 for an empty one, or a negative error. */
static int line_parse(char *s, struct gres_line *l, const char *where,
                      struct rota_error *err)
{
	struct line_arg a = {.l = l};
	int rc = conf_line_split(s, line_key, &a, where, err);

	if (rc < 0)
		return rc;
	if (!a.given)
		return 0;
	rc = line_check(l, a.given, where, err);
	return rc < 0 ? rc : 1;
}

static int conf_add_line(struct gres_conf *gc, char *text, const char *where,
                         struct rota_error *err)
{
	struct gres_line l = {{0}};
	struct gres_line *grown;
	int rc = line_parse(text, &l, where, err);

	if (rc <= 0) {
		line_release(&l);
		return rc;
	}
	if (gc->n == GRES_CONF_LINES_MAX) {
		line_release(&l);
		return errprintf(err, "%s: more than %d lines", where,
		                 GRES_CONF_LINES_MAX),
		       -E2BIG;
	}
	if (l.nnodes > GRES_CONF_NODES_MAX - gc->nnodes) {
		line_release(&l);
		return errprintf(err,
		                 "%s: NodeName= lines name more than %d nodes in all",
		                 where, GRES_CONF_NODES_MAX),
		       -E2BIG;
	}
	gc->nnodes += l.nnodes;
	grown = realloc(gc->lines, (gc->n + 1) * sizeof(*gc->lines));
	if (!grown) {
		line_release(&l);
		return errprintf(err, "out of memory"), -ENOMEM;
	}
	snprintf(l.where, sizeof(l.where), "%s", where);
	gc->lines = grown;
	gc->lines[gc->n++] = l;
	return 0;
}

int gres_conf_load_string(const char *text, const char *name, struct gres_conf **ret,
                          struct rota_error *err)
{
	struct gres_conf *gc = calloc(1, sizeof(*gc));
	char line[GRES_CONF_LINE_MAX + 1], where[WHERE_LEN];
	size_t lineno = 0;
	int rc = 0;

	if (!gc)
		return errprintf(err, "out of memory"), -ENOMEM;
	for (const char *s = text; rc == 0 && *s;) {
		size_t n = strcspn(s, "\n");

		snprintf(where, sizeof(where), "%.300s:%zu", name, ++lineno);
		if (n > GRES_CONF_LINE_MAX) {
			errprintf(err, "%s: line longer than %d bytes", where,
			          GRES_CONF_LINE_MAX);
			rc = -E2BIG;
			break;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		rc = conf_add_line(gc, line, where, err);
		s += n + (s[n] == '\n');
	}
	if (rc < 0) {
		gres_conf_destroy(gc);
		return rc;
	}
	*ret = gc;
	return 0;
}

int gres_conf_load(const char *path, struct gres_conf **ret, struct rota_error *err)
{
	char *text;
	int rc = conf_file_read(path, GRES_CONF_FILE_MAX, &text, err);

	if (rc < 0)
		return rc;
	rc = gres_conf_load_string(text, path, ret, err);
	free(text);
	return rc;
}

char *gres_conf_path(const char *slurm_conf_path)
{
	return conf_file_beside(slurm_conf_path, "gres.conf");
}

static int line_covers(const struct gres_line *l, const char *node)
{
	if (!l->nodes)
		return 1;
	for (char **n = l->nodes; *n; n++)
		if (!strcmp(*n, node))
			return 1;
	return 0;
}

enum gres_autodetect gres_conf_autodetect(const struct gres_conf *gc, const char *node)
{
	enum gres_autodetect ad = GRES_AUTODETECT_OFF;

	for (size_t i = 0; gc && i < gc->n; i++)
		if (gc->lines[i].autodetect != GRES_AUTODETECT_UNSET &&
		    line_covers(&gc->lines[i], node))
			ad = gc->lines[i].autodetect;
	return ad;
}

/* One gres.conf line of the node into inv. */
static int line_add(const struct gres_line *l, const struct gres_node_opts *o,
                    struct gres_inv *inv, struct rota_error *err)
{
	int rc;

	if (!l->files)
		return gres_inv_add(inv, l->name, l->type, l->count, l->flags, err) < 0
		           ? -1
		           : 0;
	/* the entry exists (count 0) even when none of its files does */
	rc = gres_inv_add(inv, l->name, l->type, 0, l->flags, err);
	for (size_t f = 0; rc >= 0 && f < l->nfiles; f++) {
		if (o && o->dev_exists && !o->dev_exists(l->files[f], o->arg))
			continue;
		rc = gres_inv_add_dev(inv, l->name, l->type, l->files[f], l->cores,
		                      l->links, err);
	}
	return rc < 0 ? rc : 0;
}

static int detected_add(const struct gres_inv *det, struct gres_inv *inv,
                        struct rota_error *err)
{
	int rc = 0;

	for (size_t d = 0; rc >= 0 && d < det->ndev; d++) {
		const struct gres_ent *e = &det->ent[det->dev[d].ent];

		rc = gres_inv_add_dev(inv, e->name, e->type, det->dev[d].file,
		                      det->dev[d].cores, det->dev[d].links, err);
	}
	return rc < 0 ? rc : 0;
}

int gres_conf_node_inventory(const struct gres_conf *gc, const char *node,
                             const char *node_gres, const struct gres_node_opts *o,
                             struct gres_inv **ret, struct rota_error *err)
{
	const struct gres_inv *det = o ? o->detected : NULL;
	struct gres_inv *inv = gres_inv_create(), *conf_inv = NULL;
	struct rota_error e = {{0}};
	int rc = 0;

	if (!inv)
		return errprintf(err, "out of memory"), -ENOMEM;
	if (det)
		rc = detected_add(det, inv, err);
	for (size_t i = 0; rc == 0 && gc && i < gc->n; i++) {
		const struct gres_line *l = &gc->lines[i];

		if (!l->name[0] || !line_covers(l, node) ||
		    (det && gres_inv_has_name(det, l->name)))
			continue;
		if ((rc = line_add(l, o, inv, &e)) < 0)
			errprintf(err, "%s: %s", l->where, e.text);
	}
	if (rc == 0 && node_gres) {
		if (!(conf_inv = gres_inv_create()))
			rc = (errprintf(err, "out of memory"), -ENOMEM);
		else
			rc = gres_inv_add_spec(conf_inv, node_gres, err);
	}
	for (size_t i = 0; rc == 0 && conf_inv && i < conf_inv->nent; i++) {
		const struct gres_ent *ce = &conf_inv->ent[i];

		if (!gres_inv_has_name(inv, ce->name))
			rc = gres_inv_add(inv, ce->name, ce->type, ce->count, NULL, err) <
			             0
			         ? -1
			         : 0;
	}
	gres_inv_destroy(conf_inv);
	if (rc < 0) {
		gres_inv_destroy(inv);
		return rc;
	}
	*ret = inv;
	return 0;
}
