/* uid.c - getpwuid_r/getgrgid_r wrappers with a growing buffer. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/uid.h"
#include "common/common.h"

#define UID_NSS_BUF_MAX (1024 * 1024) /* give up on entries larger than this */

/* Copy s into buf; -ERANGE (and an empty buf) when it does not fit. */
static int copy_out(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return -ERANGE;
	if (n >= len) {
		buf[0] = '\0';
		return -ERANGE;
	}
	memcpy(buf, s, n + 1);
	return 0;
}

enum uid_kind { UID_KIND_USER, UID_KIND_GROUP };

/* One NSS lookup by id or by name; on success copies the name or sets *ret_id.
 * Returns 0, -ENOENT or a negative errno. */
static int nss_lookup(enum uid_kind kind, const char *name, unsigned long id, char *out,
                      size_t outlen, unsigned long *ret_id)
{
	size_t blen = 1024;
	char *b = NULL;
	int rc;

	for (;;) {
		struct passwd pw, *pwp = NULL;
		struct group gr, *grp = NULL;
		char *nb = realloc(b, blen);

		if (!nb) {
			rc = -ENOMEM;
			goto out;
		}
		b = nb;
		if (kind == UID_KIND_USER)
			rc = name ? getpwnam_r(name, &pw, b, blen, &pwp)
			          : getpwuid_r((uid_t)id, &pw, b, blen, &pwp);
		else
			rc = name ? getgrnam_r(name, &gr, b, blen, &grp)
			          : getgrgid_r((gid_t)id, &gr, b, blen, &grp);
		if (rc == ERANGE && blen < UID_NSS_BUF_MAX) {
			blen *= 2;
			continue;
		}
		if (rc) {
			rc = -rc;
			goto out;
		}
		if (!pwp && !grp) {
			rc = -ENOENT;
			goto out;
		}
		if (name)
			*ret_id =
			    pwp ? (unsigned long)pwp->pw_uid : (unsigned long)grp->gr_gid;
		else
			rc = copy_out(out, outlen, pwp ? pwp->pw_name : grp->gr_name);
		goto out;
	}
out:
	free(b);
	return rc;
}

static int id_to_name(enum uid_kind kind, unsigned long id, char *buf, size_t len)
{
	char num[32];
	int rc = nss_lookup(kind, NULL, id, buf, len, NULL);

	if (rc == 0 || rc == -ERANGE || rc == -ENOMEM)
		return rc;
	snprintf(num, sizeof(num), "%lu", id);
	return copy_out(buf, len, num);
}

int uid_to_name(uid_t uid, char *buf, size_t len)
{
	return id_to_name(UID_KIND_USER, (unsigned long)uid, buf, len);
}

int gid_to_name(gid_t gid, char *buf, size_t len)
{
	return id_to_name(UID_KIND_GROUP, (unsigned long)gid, buf, len);
}

/* Parse an all-digit id below (uint32_t)-1; 1 if parsed, 0 if not digits, <0 bad. */
static int parse_id(const char *s, unsigned long *ret)
{
	unsigned long long v = 0;

	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (unsigned)(*p - '0');
		if (v >= UINT32_MAX)
			return -EINVAL;
	}
	*ret = (unsigned long)v;
	return 1;
}

static int name_to_id(enum uid_kind kind, const char *name, unsigned long *ret)
{
	unsigned long id = 0;
	int rc;

	if (!name || !*name)
		return -EINVAL;
	rc = parse_id(name, &id);
	if (rc < 0)
		return rc;
	if (rc == 0 && (rc = nss_lookup(kind, name, 0, NULL, 0, &id)) < 0)
		return rc;
	*ret = id;
	return 0;
}

int name_to_uid(const char *name, uid_t *ret_uid)
{
	unsigned long id;
	int rc = name_to_id(UID_KIND_USER, name, &id);

	if (rc == 0)
		*ret_uid = (uid_t)id;
	return rc;
}

int name_to_gid(const char *name, gid_t *ret_gid)
{
	unsigned long id;
	int rc = name_to_id(UID_KIND_GROUP, name, &id);

	if (rc == 0)
		*ret_gid = (gid_t)id;
	return rc;
}
