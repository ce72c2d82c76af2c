#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include "common/grouplist.h"
#include "common/common.h"

int grouplist_lookup(const char *user, gid_t gid, gid_t **ret_gids)
{
	int n = 64;

	for (;;) {
		gid_t *v = malloc((size_t)n * sizeof(*v));
		int got = n;
		if (!v)
			return -1;
		if (getgrouplist(user, gid, v, &got) >= 0) {
			*ret_gids = v;
			return got;
		}
		free(v);
		/* got: the size needed; glibc leaves it as it was on an NSS error */
		if (got <= n || got > GROUPLIST_MAX) {
			errno = got > GROUPLIST_MAX ? E2BIG : ENOENT;
			return -1;
		}
		n = got;
	}
}
