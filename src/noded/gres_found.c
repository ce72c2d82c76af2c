#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "noded/gres_found.h"
#include "common/gres_conf.h"
#include "common/log.h"
#include "common/nvml_dl.h"
#include "common/xmalloc.h"

static int dev_exists(const char *file, void *arg)
{
	struct stat st;

	(void)arg;
	if (stat(file, &st) == 0)
		return 1;
	log_info("gres: %s: %s", file, strerror(errno));
	return 0;
}

/* inv's devices as the wire's records (caller frees with codec_release
 * each and free). */
static struct gres_dev_info *devs_copy(const struct gres_inv *inv)
{
	struct gres_dev_info *v = xcalloc(inv->ndev ? inv->ndev : 1, sizeof(*v));

	for (size_t d = 0; d < inv->ndev; d++) {
		const struct gres_dev *g = &inv->dev[d];
		const struct gres_ent *e = &inv->ent[g->ent];
		char cores[1024];

		gres_cores_format(g->cores, cores, sizeof(cores));
		v[d].name = xstrdup(e->name);
		v[d].type = *e->type ? xstrdup(e->type) : NULL;
		v[d].file = xstrdup(g->file);
		v[d].cores = *cores ? xstrdup(cores) : NULL;
		v[d].links = *g->links ? xstrdup(g->links) : NULL;
	}
	return v;
}

void gres_found_release(struct node_register *reg)
{
	codec_release_list(&gres_dev_info_type, reg->gres_devs, reg->gres_devs_count);
	free(reg->gres);
	reg->gres_devs = NULL;
	reg->gres_devs_count = 0;
	reg->gres = NULL;
}

int gres_found_detect(const char *conf_path, const struct conf_node *cn,
                      struct node_register *reg, struct rota_error *err)
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
	if (rc == 0) {
		reg->gres = xstrdup(buf);
		reg->gres_devs = devs_copy(inv);
		reg->gres_devs_count = (uint32_t)inv->ndev;
	}
	gres_inv_destroy(inv);
	gres_inv_destroy(det);
	gres_conf_destroy(gc);
	free(path);
	return rc;
}
