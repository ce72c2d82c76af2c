#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "noded/gres_found.h"
#include "common/gres_conf.h"
#include "common/log.h"
#include "common/nvml_dl.h"

static int dev_exists(const char *file, void *arg)
{
	struct stat st;

	(void)arg;
	if (stat(file, &st) == 0)
		return 1;
	log_info("gres: %s: %s", file, strerror(errno));
	return 0;
}

int gres_found_detect(const char *conf_path, const struct conf_node *cn, char **ret,
                      struct rota_error *err)
{
	char *path = gres_conf_path(conf_path), buf[2048];
	struct gres_inv *det = NULL, *inv = NULL;
	struct gres_conf *gc = NULL;
	struct gres_node_opts o = {.dev_exists = dev_exists};
	int rc;

	if (!path)
		return errprintf(err, "out of memory"), -ENOMEM;
	rc = gres_conf_load(path, &gc, err);
	if (rc == 0 && gres_conf_autodetect(gc, cn->name) == GRES_AUTODETECT_NVML) {
		if (!(det = gres_inv_create()))
			rc = (errprintf(err, "out of memory"), -ENOMEM);
		else if ((rc = nvml_detect(det, cn->gres, err)) >= 0)
			log_info("gres: NVML found %d GPUs", rc), rc = 0;
		o.detected = det;
	}
	if (rc == 0)
		rc = gres_conf_node_inventory(gc, cn->name, cn->gres, &o, &inv, err);
	if (rc == 0 && gres_inv_format(inv, buf, sizeof(buf)) < 0)
		rc =
		    (errprintf(err, "gres list over %zu bytes", sizeof(buf) - 1), -E2BIG);
	if (rc == 0)
		*ret = strdup(buf);
	if (rc == 0 && !*ret)
		rc = (errprintf(err, "out of memory"), -ENOMEM);
	gres_inv_destroy(inv);
	gres_inv_destroy(det);
	gres_conf_destroy(gc);
	free(path);
	return rc;
}
