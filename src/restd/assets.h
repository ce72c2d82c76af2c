/* assets.h - the dashboard's files, built into rotarestd from web/ by
 * tools/embed (mk/web.mk), so that an installed daemon needs nothing else. */
#ifndef ROTA_RESTD_ASSETS_H
#define ROTA_RESTD_ASSETS_H

#include <stddef.h>

struct web_asset {
	const char *path; /* "/index.html" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
};

/* Ends with a NULL path. */
extern const struct web_asset web_assets[];

#endif
