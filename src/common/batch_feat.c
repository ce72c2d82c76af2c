/* batch_feat.c - sbatch --batch expressions (batch_feat.h). */
#include <errno.h>
#include <string.h>
#include "common/batch_feat.h"
#include "common/constraint.h"

/* The name at *p (up to the next '&', '|' or the end): its length; *sep
 * gets the character after it ('\0' at the end). */
static size_t next_name(const char *p, char *sep)
{
	size_t n = strcspn(p, "&|");

	*sep = p[n];
	return n;
}

static int name_in(const char *name, size_t len, const char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (strlen(names[k]) == len && !strncmp(names[k], name, len))
			return 1;
	return 0;
}

int batch_feat_check(const char *spec, const struct constraint *cons)
{
	const char *const *names;
	size_t nnames;
	char sep;

	if (!spec || !*spec || !cons || strlen(spec) > BATCH_FEAT_MAX_LEN)
		return -EINVAL;
	nnames = constraint_names(cons, &names);
	for (const char *p = spec;; p++) {
		size_t len = next_name(p, &sep);
		if (!len || !name_in(p, len, names, nnames))
			return -EINVAL;
		p += len;
		if (!sep)
			return 0;
	}
}

/* Is the name p[0..len) in the comma-separated list features? */
static int has_name(const char *features, const char *p, size_t len)
{
	for (const char *f = features; f && *f;) {
		size_t n = strcspn(f, ",");
		if (n == len && !strncmp(f, p, len))
			return 1;
		f += n;
		if (*f)
			f++;
	}
	return 0;
}

int batch_feat_match(const char *spec, const char *features)
{
	char op = '&', sep;
	int acc = 1;

	if (!spec || !*spec)
		return 0;
	for (const char *p = spec;; p++) {
		size_t len = next_name(p, &sep);
		int have;
		if (!len)
			return 0;
		have = has_name(features, p, len);
		acc = op == '&' ? acc && have : acc || have;
		p += len;
		if (!sep)
			return acc;
		op = sep;
	}
}
