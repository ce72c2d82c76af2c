/* fuzz_gres_conf - gres.conf text (gres_conf_load_string), then each node
 * named in it and a few others turned into an inventory, formatted and
 * checked against a node Gres= taken from the input's first line. */
#include "common/gres_conf.h"
#include "fuzz.h"

static void node(const struct gres_conf *gc, const char *name, const char *node_gres)
{
	struct gres_inv *inv = NULL;
	char buf[4096], reason[160];

	if (gres_conf_node_inventory(gc, name, node_gres, NULL, &inv, NULL) < 0)
		return;
	if (inv->nent > GRES_MAX_ITEMS || inv->ndev > GRES_DEVS_MAX)
		abort();
	gres_inv_format(inv, buf, sizeof(buf));
	gres_inv_check(node_gres, inv, reason, sizeof(reason));
	for (size_t d = 0; d < inv->ndev; d++) {
		if (inv->dev[d].ent >= inv->nent)
			abort();
		gres_cores_format(inv->dev[d].cores, buf, sizeof(buf));
	}
	gres_conf_autodetect(gc, name);
	gres_inv_destroy(inv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"n1", "n2", "node01", "gpu[01-02]", ""};
	struct gres_conf *gc = NULL;
	char *s = fuzz_str(data, size), *nl = strchr(s, '\n');
	char gres[256] = "";

	if (nl && (size_t)(nl - s) < sizeof(gres))
		memcpy(gres, s, (size_t)(nl - s));
	if (gres_conf_load_string(s, "gres.conf", &gc, NULL) == 0) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			node(gc, names[i], *gres ? gres : NULL);
		gres_conf_destroy(gc);
	}
	free(s);
	return 0;
}
