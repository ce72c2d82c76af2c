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

struct fmt_layout *fmt_layout_create(const char *fmt, enum fmt_syntax syntax,
                                     const struct fmt_field *table, size_t n,
                                     const char *what)
{
	struct rota_error err = {""};
	struct fmt_layout *layout = NULL;
	int rc = fmt_layout_bind(fmt, syntax, table, n, &layout, &err);

	if (rc == -ENOMEM)
		fatal("out of memory");
	if (rc < 0) {
		cli_error("Invalid %s format \"%s\": %s", what, fmt ? fmt : "", err.text);
		exit(1);
	}
	for (size_t i = 0; i < layout->ncols; i++) {
		const struct fmtspec_item *it = &layout->spec->items[i];

		if (layout->cols[i].field)
			continue;
		if (it->name)
			cli_error("Invalid %s format specification: %s", what, it->name);
		else
			cli_error("Invalid %s format specification: %c", what,
			          it->letter);
	}
	return layout;
}

static void print_buf(FILE *f, struct fmtbuf *b)
{
	fwrite_unlocked(b->data, 1, b->len, f);
	fmtbuf_release(b);
}

void fmt_print_header(FILE *f, const struct fmt_layout *layout)
{
	struct fmtbuf b = {0};

	fmt_header_append(&b, layout);
	print_buf(f, &b);
}

void fmt_print_row(FILE *f, const struct fmt_layout *layout, fmt_value_f value,
                   const void *rec, void *ctx)
{
	struct fmtbuf b = {0};

	fmt_row_append(&b, layout, value, rec, ctx);
	print_buf(f, &b);
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

void fmt_print_date(FILE *f, time_t now)
{
	struct tm tm;
	char buf[64];

	if (localtime_r(&now, &tm) &&
	    strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm))
		fprintf(f, "%s\n", buf);
}

void fmt_print_stat_time(const char *label, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	localtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
	printf("%s%s (%lld)\n", label, buf, (long long)t);
}

uint64_t fmt_rpc_ave(const struct rpc_stat *r)
{
	return r->count ? r->total_us / r->count : 0;
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

int fmt_parse_step_id(const char *s, uint32_t *job, uint32_t *step)
{
	const char *dot = strchr(s, '.');
	size_t hl = dot ? (size_t)(dot - s) : strlen(s);
	char head[16];

	*step = NO_VAL;
	if (!hl || hl >= sizeof(head))
		return -1;
	memcpy(head, s, hl);
	head[hl] = '\0';
	if (fmt_parse_job_id(head, job) < 0)
		return -1;
	if (!dot)
		return 0;
	if (!strcmp(dot + 1, "batch"))
		*step = STEP_BATCH;
	else if (!strcmp(dot + 1, "extern"))
		*step = STEP_EXTERN;
	else if (dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) &&
	         strlen(dot + 1) <= 9)
		*step = (uint32_t)strtoul(dot + 1, NULL, 10);
	else
		return -1;
	return 0;
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
