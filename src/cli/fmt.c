/* fmt.c - column output for squeue/sinfo and shared CLI helpers (see fmt.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/fmtspec.h"
#include "common/hostlist.h"
#include "common/states.h"
#include "proto/messages.h"
#include "common/common.h"

static const struct fmt_field *find_field(const struct fmtspec_item *it,
                                          const struct fmt_field *table, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (it->name ? (table[i].name && !strcasecmp(it->name, table[i].name))
		             : (table[i].letter && table[i].letter == it->letter))
			return &table[i];
	}
	return NULL;
}

struct fmt_layout *fmt_layout_create(const char *fmt, enum fmt_syntax syntax,
                                     const struct fmt_field *table, size_t n,
                                     const char *what)
{
	struct rota_error err = {""};
	struct fmt_layout *layout;
	struct fmtspec *spec = NULL;
	int rc;

	if (syntax == FMT_LONG)
		rc = fmtspec_parse_long(fmt, 20, &spec, &err);
	else
		rc = fmtspec_parse(fmt, &spec, &err);
	if (rc == -ENOMEM)
		fatal("out of memory");
	if (rc < 0) {
		cli_error("Invalid %s format \"%s\": %s", what, fmt ? fmt : "", err.text);
		exit(1);
	}
	layout = xcalloc(1, sizeof(*layout));
	layout->spec = spec;
	layout->prefix = spec->prefix;
	layout->cols = xcalloc(spec->count ? spec->count : 1, sizeof(*layout->cols));
	layout->ncols = spec->count;
	for (size_t i = 0; i < spec->count; i++) {
		const struct fmtspec_item *it = &spec->items[i];
		struct fmt_col *col = &layout->cols[i];

		col->field = find_field(it, table, n);
		col->width = it->width;
		col->flags = it->flags;
		col->suffix = it->suffix;
		if (!col->field) {
			if (it->name)
				cli_error("Invalid %s format specification: %s", what,
				          it->name);
			else
				cli_error("Invalid %s format specification: %c", what,
				          it->letter);
		}
	}
	return layout;
}

void fmt_layout_destroy(struct fmt_layout *layout)
{
	if (!layout)
		return;
	fmtspec_destroy(layout->spec);
	free(layout->cols);
	free(layout);
}

int fmt_layout_has(const struct fmt_layout *layout, int id)
{
	for (size_t i = 0; i < layout->ncols; i++)
		if (layout->cols[i].field && layout->cols[i].field->id == id)
			return 1;
	return 0;
}

void fmt_print_header(FILE *f, const struct fmt_layout *layout)
{
	fputs(layout->prefix, f);
	for (size_t i = 0; i < layout->ncols; i++) {
		const struct fmt_col *col = &layout->cols[i];

		if (col->field)
			fmtspec_put(f, col->field->header, col->width,
			            col->flags | (col->field->flags & FMTSPEC_NOCUT));
		fputs(col->suffix, f);
	}
	fputc('\n', f);
}

void fmt_print_row(FILE *f, const struct fmt_layout *layout, fmt_value_f value,
                   const void *rec, void *ctx)
{
	char buf[1024];

	fputs_unlocked(layout->prefix, f);
	for (size_t i = 0; i < layout->ncols; i++) {
		const struct fmt_col *col = &layout->cols[i];

		if (col->field) {
			const char *s;

			buf[0] = '\0';
			s = value(col, rec, ctx, buf, sizeof(buf));
			fmtspec_put(f, s, col->width,
			            col->flags | (col->field->flags & FMTSPEC_NOCUT));
		}
		fputs_unlocked(col->suffix, f);
	}
	fputc_unlocked('\n', f);
}

int fmt_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *da = a, *db = b;
			size_t la, lb, sa, sb;
			int c;

			while (*da == '0')
				da++;
			while (*db == '0')
				db++;
			for (sa = 0; isdigit((unsigned char)da[sa]); sa++)
				;
			for (sb = 0; isdigit((unsigned char)db[sb]); sb++)
				;
			if (sa != sb)
				return sa < sb ? -1 : 1;
			if ((c = strncmp(da, db, sa)))
				return c;
			la = (size_t)(da - a) + sa;
			lb = (size_t)(db - b) + sb;
			if (la != lb)
				return la < lb ? -1 : 1;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

char **fmt_split(const char *s, const char *seps)
{
	size_t n = 0, cap = 8;
	char **v = xcalloc(cap + 1, sizeof(*v));

	while (s && *s) {
		size_t len = strcspn(s, seps);

		if (len) {
			if (n == FMT_LIST_MAX) {
				cli_error("list has more than %d items", FMT_LIST_MAX);
				exit(1);
			}
			if (n == cap) {
				cap *= 2;
				v = xrealloc(v, (cap + 1) * sizeof(*v));
			}
			v[n++] = xstrndup(s, len);
			v[n] = NULL;
		}
		s += len;
		if (*s)
			s++;
	}
	return v;
}

void fmt_strv_free(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

size_t fmt_strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int fmt_strv_has(char *const *v, const char *s, int nocase)
{
	if (!s)
		return 0;
	for (size_t i = 0; v && v[i]; i++)
		if (nocase ? !strcasecmp(v[i], s) : !strcmp(v[i], s))
			return 1;
	return 0;
}

void fmt_print_date(FILE *f, time_t now)
{
	struct tm tm;
	char buf[64];

	if (localtime_r(&now, &tm) &&
	    strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm))
		fprintf(f, "%s\n", buf);
}

void fmt_bad_option(void)
{
	fprintf(stderr, "Try \"%s --help\" for more information\n", cli_prog);
	exit(1);
}

void fmt_print_version(void)
{
	printf("slurm %s\n", ROTA_SLURM_VERSION);
	exit(0);
}

int fmt_parse_job_id(const char *s, uint32_t *ret)
{
	long v = (s && isdigit((unsigned char)*s)) ? cli_parse_long(s) : -1;

	if (v <= 0 || (unsigned long)v >= NO_VAL)
		return -1;
	*ret = (uint32_t)v;
	return 0;
}

char *fmt_exit_code(uint32_t status, char *buf, size_t len)
{
	int st = (int)status;
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;

	snprintf(buf, len, "%d:%d", code, sig);
	return buf;
}

unsigned fmt_parse_iterate(const char *arg)
{
	long v = cli_parse_long(arg);

	if (v <= 0) {
		cli_error("--iterate must be a positive integer");
		exit(1);
	}
	return (unsigned)(v > 86400 ? 86400 : v);
}

void fmt_parse_nodes(char ***nodes, const char *arg)
{
	struct rota_error err = {""};
	size_t n;

	hostlist_free(*nodes);
	*nodes = NULL;
	if (hostlist_expand(arg, nodes, &n, &err) < 0) {
		cli_error("Invalid node name specified: %s", arg);
		exit(1);
	}
}

int fmt_hosts_overlap(const char *hosts, char **nodes)
{
	char **names = NULL;
	size_t n = 0;
	int hit = 0;

	if (!hosts || !*hosts || hostlist_expand(hosts, &names, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n && !hit; i++)
		hit = fmt_strv_has(nodes, names[i], 0);
	hostlist_free(names);
	return hit;
}

const char *fmt_job_reason(const struct job_info *j, const char *sep, char *buf,
                           size_t len)
{
	if (j->reason != WAIT_NODE_NOT_AVAIL || !j->unavail_nodes || !*j->unavail_nodes)
		return job_reason_name(j->reason);
	snprintf(buf, len, "%s%sUnavailableNodes:%s", job_reason_name(j->reason), sep,
	         j->unavail_nodes);
	return buf;
}
