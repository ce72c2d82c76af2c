/* hostlist.c - expand and compress Slurm hostlist expressions.
 *
 * DESIGN: an expression is a comma list of items (commas inside brackets do not
 * split).  Each item is a sequence of parts, a literal or a bracket group, and
 * expands to the cartesian product of its parts' alternatives, the last bracket
 * group varying fastest, then the others from the first on (Slurm's order).  A
 * literal is a part with one alternative, so one odometer loop handles
 * "node01", "node[1-3]" and "rack[0-1]_blade[2,3]" alike.
 *
 * Compression looks only at the last run of digits in each name, as Slurm does
 * for one-dimensional names, and merges adjacent names that share prefix, suffix
 * and zero-padding width.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/hostlist.h"
#include "common/common.h"

#define HOSTLIST_EXPR_MAX   (1024 * 1024) /* longest expression we parse */
#define HOSTLIST_DIGITS_MAX 18            /* bracket numbers fit in uint64_t */

struct hl_part {
	char **alts; /* owned */
	size_t n;
	size_t cap;
};

struct hl_item {
	struct hl_part *parts; /* owned */
	size_t n;
	size_t cap;
};

static void item_release(struct hl_item *item)
{
	for (size_t i = 0; i < item->n; i++) {
		for (size_t j = 0; j < item->parts[i].n; j++)
			free(item->parts[i].alts[j]);
		free(item->parts[i].alts);
	}
	free(item->parts);
	memset(item, 0, sizeof(*item));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 4;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Append a new empty part to item; returns it or NULL on ENOMEM. */
static struct hl_part *item_add_part(struct hl_item *item)
{
	struct hl_part *part;

	if (grow((void **)&item->parts, &item->cap, item->n + 1, sizeof(*item->parts)))
		return NULL;
	part = &item->parts[item->n++];
	memset(part, 0, sizeof(*part));
	return part;
}

/* Append an alternative (takes ownership of s, frees it on failure). */
static int part_add(struct hl_part *part, char *s)
{
	if (!s || grow((void **)&part->alts, &part->cap, part->n + 1, sizeof(char *))) {
		free(s);
		return -ENOMEM;
	}
	part->alts[part->n++] = s;
	return 0;
}

/* Parse a run of 1..HOSTLIST_DIGITS_MAX digits; returns its length or 0. */
static size_t parse_num(const char *s, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	size_t n = 0;

	while (s + n < end && isdigit((unsigned char)s[n])) {
		if (++n > HOSTLIST_DIGITS_MAX)
			return 0;
		v = v * 10 + (uint64_t)(s[n - 1] - '0');
	}
	if (n)
		*ret = v;
	return n;
}

/* Expand one range "lo" or "lo-hi" into part; *total counts alternatives. */
static int range_expand(struct hl_part *part, const char *s, const char *end,
                        const char *expr, struct rota_error *err)
{
	uint64_t lo, hi;
	size_t n, width;
	const char *p = s;

	n = parse_num(p, end, &lo);
	if (!n)
		goto bad;
	/* "01-04" keeps two digits; "1-10" is not padded */
	width = (n > 1 && p[0] == '0') ? n : 0;
	p += n;
	hi = lo;
	if (p < end && *p == '-') {
		p++;
		n = parse_num(p, end, &hi);
		if (!n)
			goto bad;
		p += n;
	}
	if (p != end || hi < lo)
		goto bad;
	if (hi - lo >= HOSTLIST_MAX || part->n + (hi - lo) >= HOSTLIST_MAX) {
		errprintf(err, "host list '%.64s' expands to more than %d names", expr,
		          HOSTLIST_MAX);
		return -E2BIG;
	}
	for (uint64_t v = lo;; v++) {
		char buf[HOSTLIST_DIGITS_MAX + 2];

		snprintf(buf, sizeof(buf), "%0*llu", (int)width, (unsigned long long)v);
		if (part_add(part, strdup(buf)))
			return -ENOMEM;
		if (v == hi)
			break;
	}
	return 0;
bad:
	errprintf(err, "bad range '%.*s' in host list '%.64s'", (int)(end - s), s, expr);
	return -EINVAL;
}

/* Parse the inside of one bracket group, s..end excludes the brackets. */
static int group_parse(struct hl_part *part, const char *s, const char *end,
                       const char *expr, struct rota_error *err)
{
	if (s == end) {
		errprintf(err, "empty brackets in host list '%.64s'", expr);
		return -EINVAL;
	}
	while (s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *stop = comma ? comma : end;
		int rc = range_expand(part, s, stop, expr, err);

		if (rc)
			return rc;
		s = stop + 1;
	}
	return 0;
}

static int bad_char(char c)
{
	return isspace((unsigned char)c) || iscntrl((unsigned char)c);
}

/* Split one item s..end into literal and bracket parts. */
static int item_parse(struct hl_item *item, const char *s, const char *end,
                      const char *expr, struct rota_error *err)
{
	struct hl_part *part;
	int rc;

	if (s == end) {
		errprintf(err, "empty host name in host list '%.64s'", expr);
		return -EINVAL;
	}
	while (s < end) {
		const char *lit = s;

		while (s < end && *s != '[' && *s != ']') {
			if (bad_char(*s)) {
				errprintf(err, "bad character in host list '%.64s'",
				          expr);
				return -EINVAL;
			}
			s++;
		}
		if (s > lit) {
			if (!(part = item_add_part(item)) ||
			    part_add(part, strndup(lit, (size_t)(s - lit))))
				return -ENOMEM;
		}
		if (s == end)
			break;
		if (*s == ']') {
			errprintf(err, "unbalanced ']' in host list '%.64s'", expr);
			return -EINVAL;
		}
		lit = ++s;
		while (s < end && *s != ']' && *s != '[')
			s++;
		if (s == end || *s == '[') {
			errprintf(err, "unbalanced '[' in host list '%.64s'", expr);
			return -EINVAL;
		}
		if (!(part = item_add_part(item)))
			return -ENOMEM;
		rc = group_parse(part, lit, s, expr, err);
		if (rc)
			return rc;
		s++;
	}
	return 0;
}

/* Append the cartesian product of item's parts to names[*count...]. */
static int item_emit(const struct hl_item *item, char **names, size_t *count)
{
	size_t *idx = calloc(item->n, sizeof(*idx));
	size_t last = item->n ? item->n - 1 : 0; /* the last group, or any part */
	int done = 0;

	if (!idx)
		return -ENOMEM;
	for (size_t i = item->n; i-- > 0;)
		if (item->parts[i].n > 1) {
			last = i;
			break;
		}
	while (!done) {
		size_t len = 0, off = 0;
		char *name;

		for (size_t i = 0; i < item->n; i++)
			len += strlen(item->parts[i].alts[idx[i]]);
		if (!(name = malloc(len + 1))) {
			free(idx);
			return -ENOMEM;
		}
		for (size_t i = 0; i < item->n; i++) {
			const char *a = item->parts[i].alts[idx[i]];
			size_t alen = strlen(a);

			memcpy(name + off, a, alen);
			off += alen;
		}
		name[off] = '\0';
		names[(*count)++] = name;
		/* odometer, in Slurm's order: the last bracket group varies
		 * fastest, then the others from the first on ("r[0-1]_k[2-3]_b[4-5]"
		 * gives r0_k2_b4 r0_k2_b5 r1_k2_b4 r1_k2_b5 r0_k3_b4 ...) */
		done = 1;
		for (size_t s = 0; s < item->n; s++) {
			size_t i = s ? s - 1 : last;
			if (s && i >= last)
				i++;
			if (++idx[i] < item->parts[i].n) {
				done = 0;
				break;
			}
			idx[i] = 0;
		}
	}
	free(idx);
	return 0;
}

/* Number of names item expands to, or 0 if more than HOSTLIST_MAX. */
static size_t item_count(const struct hl_item *item)
{
	size_t count = 1;

	for (size_t i = 0; i < item->n; i++) {
		if (count > HOSTLIST_MAX / item->parts[i].n)
			return 0;
		count *= item->parts[i].n;
	}
	return count <= HOSTLIST_MAX ? count : 0;
}

/* Find the end of the top-level item starting at s (a ',' outside brackets). */
static const char *item_end(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth > 0)
			depth--;
		else if (*s == ',' && depth == 0)
			break;
	}
	return s;
}

/* Parse every item first so that the total is known before any name is built. */
static int items_parse(const char *expr, struct hl_item **ret_items, size_t *ret_n,
                       size_t *ret_total, struct rota_error *err)
{
	struct hl_item *items = NULL;
	size_t n = 0, cap = 0, total = 0;
	const char *s = expr;
	int rc = 0;

	for (;;) {
		const char *end = item_end(s);
		size_t count;

		if ((rc = grow((void **)&items, &cap, n + 1, sizeof(*items))))
			goto out;
		memset(&items[n], 0, sizeof(*items));
		rc = item_parse(&items[n++], s, end, expr, err);
		if (rc)
			goto out;
		count = item_count(&items[n - 1]);
		if (!count || total + count > HOSTLIST_MAX) {
			errprintf(err, "host list '%.64s' expands to more than %d names",
			          expr, HOSTLIST_MAX);
			rc = -E2BIG;
			goto out;
		}
		total += count;
		if (!*end)
			break;
		s = end + 1;
	}
out:
	if (rc) {
		for (size_t i = 0; i < n; i++)
			item_release(&items[i]);
		free(items);
		return rc;
	}
	*ret_items = items;
	*ret_n = n;
	*ret_total = total;
	return 0;
}

int hostlist_expand(const char *expr, char ***ret_names, size_t *ret_count,
                    struct rota_error *err)
{
	struct hl_item *items = NULL;
	size_t nitems = 0, total = 0, count = 0;
	char **names = NULL;
	int rc;

	if (!expr || !*expr) {
		errprintf(err, "empty host list");
		return -EINVAL;
	}
	if (strnlen(expr, HOSTLIST_EXPR_MAX + 1) > HOSTLIST_EXPR_MAX) {
		errprintf(err, "host list longer than %d bytes", HOSTLIST_EXPR_MAX);
		return -E2BIG;
	}
	rc = items_parse(expr, &items, &nitems, &total, err);
	if (rc)
		return rc;
	if (!(names = calloc(total + 1, sizeof(*names)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nitems; i++) {
		if ((rc = item_emit(&items[i], names, &count)))
			goto out;
	}
out:
	for (size_t i = 0; i < nitems; i++)
		item_release(&items[i]);
	free(items);
	if (rc) {
		if (rc == -ENOMEM)
			errprintf(err, "out of memory");
		hostlist_free(names);
		return rc;
	}
	*ret_names = names;
	*ret_count = count;
	return 0;
}

void hostlist_free(char **names)
{
	if (!names)
		return;
	for (size_t i = 0; names[i]; i++)
		free(names[i]);
	free(names);
}

/* ---- compression ---- */

struct hl_sb {
	char *buf;
	size_t len;
	size_t cap;
	int failed;
};

static void sb_add(struct hl_sb *sb, const char *s, size_t n)
{
	if (sb->failed)
		return;
	if (grow((void **)&sb->buf, &sb->cap, sb->len + n + 1, 1)) {
		sb->failed = 1;
		return;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

static void sb_num(struct hl_sb *sb, uint64_t v, int width)
{
	char buf[HOSTLIST_DIGITS_MAX + 2];
	int n = snprintf(buf, sizeof(buf), "%0*llu", width, (unsigned long long)v);

	sb_add(sb, buf, (size_t)n);
}

/* A name split at its last run of digits. */
struct hl_name {
	const char *s;
	size_t pre;  /* prefix length */
	size_t ndig; /* digits; 0 when the name has no usable number */
	uint64_t val;
	int padded; /* has a leading zero, so its width is exact */
};

static void name_split(const char *s, struct hl_name *nm)
{
	size_t len = strlen(s), end = len, start;

	memset(nm, 0, sizeof(*nm));
	nm->s = s;
	while (end > 0 && !isdigit((unsigned char)s[end - 1]))
		end--;
	start = end;
	while (start > 0 && isdigit((unsigned char)s[start - 1]))
		start--;
	if (end == 0 || end - start > HOSTLIST_DIGITS_MAX)
		return;
	nm->pre = start;
	nm->ndig = end - start;
	for (size_t i = start; i < end; i++)
		nm->val = nm->val * 10 + (uint64_t)(s[i] - '0');
	nm->padded = nm->ndig > 1 && s[start] == '0';
}

/* A run of names that print as one bracket group with one width. */
struct hl_run {
	const struct hl_name *first;
	int width;           /* fixed width, or -1 while only unpadded names */
	size_t min_unpadded; /* shortest unpadded number seen */
};

static int run_accepts(struct hl_run *run, const struct hl_name *nm)
{
	const struct hl_name *f = run->first;

	if (!nm->ndig || nm->pre != f->pre || memcmp(nm->s, f->s, f->pre) != 0 ||
	    strcmp(nm->s + nm->pre + nm->ndig, f->s + f->pre + f->ndig) != 0)
		return 0;
	if (nm->padded) {
		if (run->width >= 0)
			return (size_t)run->width == nm->ndig;
		if (run->min_unpadded < nm->ndig)
			return 0;
		run->width = (int)nm->ndig;
		return 1;
	}
	if (run->width >= 0 && (size_t)run->width > nm->ndig)
		return 0;
	if (nm->ndig < run->min_unpadded)
		run->min_unpadded = nm->ndig;
	return 1;
}

/* Print names[0..n) (n >= 2, one run) as prefix[a-b,c]suffix. */
static void run_emit(struct hl_sb *sb, const struct hl_name *nm, size_t n, int width)
{
	const char *suffix = nm[0].s + nm[0].pre + nm[0].ndig;

	sb_add(sb, nm[0].s, nm[0].pre);
	sb_add(sb, "[", 1);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && nm[j + 1].val == nm[j].val + 1)
			j++;
		if (i > 0)
			sb_add(sb, ",", 1);
		sb_num(sb, nm[i].val, width);
		if (j > i) {
			sb_add(sb, "-", 1);
			sb_num(sb, nm[j].val, width);
		}
		i = j + 1;
	}
	sb_add(sb, "]", 1);
	sb_add(sb, suffix, strlen(suffix));
}

char *hostlist_compress(char *const *names, size_t n)
{
	struct hl_sb sb = {0};
	struct hl_name *nm;

	if (!(nm = calloc(n ? n : 1, sizeof(*nm))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		name_split(names[i], &nm[i]);
	sb_add(&sb, "", 0);
	for (size_t i = 0; i < n;) {
		struct hl_run run = {
		    .first = &nm[i], .width = -1, .min_unpadded = SIZE_MAX};
		size_t j = i + 1;

		if (nm[i].ndig && run_accepts(&run, &nm[i])) {
			while (j < n && run_accepts(&run, &nm[j]))
				j++;
		}
		if (i > 0)
			sb_add(&sb, ",", 1);
		if (j - i == 1)
			sb_add(&sb, nm[i].s, strlen(nm[i].s));
		else
			run_emit(&sb, &nm[i], j - i, run.width < 0 ? 0 : run.width);
		i = j;
	}
	free(nm);
	if (sb.failed) {
		free(sb.buf);
		return NULL;
	}
	return sb.buf;
}

int hostlist_overlaps(const char *hosts, int (*known)(const char *name, void *arg),
                      void *arg)
{
	char **names = NULL;
	size_t n = 0;
	int hit = 0;

	if (!hosts || !*hosts || hostlist_expand(hosts, &names, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n && !hit; i++)
		hit = known(names[i], arg);
	hostlist_free(names);
	return hit;
}
