/* config_info.c - `scontrol show config`: the effective configuration. */
#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "ctld/caller.h"
#include "ctld/chan.h"
#include "proto/messages.h"
#include "ctld/ctld.h"
#include "common/common.h"

/* SelectTypeParameters as Slurm reports it: its names are read in any case
 * and printed in capitals (CR_Core_Memory: CR_CORE_MEMORY). */
static void select_params_canon(struct conf_kv *kv)
{
	if (strcmp(kv->key, "SelectTypeParameters") || !kv->value)
		return;
	for (char *c = kv->value; *c; c++)
		*c = (char)toupper((unsigned char)*c);
}

/* SlurmUser and SlurmdUser as Slurm prints them: name(uid). */
static void user_canon(struct conf_kv *kv)
{
	const struct passwd *pw;
	char *v;

	if ((strcmp(kv->key, "SlurmUser") && strcmp(kv->key, "SlurmdUser")) ||
	    !kv->value || strchr(kv->value, '(') || !(pw = getpwnam(kv->value)))
		return;
	v = xasprintf("%s(%u)", kv->value, (unsigned)pw->pw_uid);
	free(kv->value);
	kv->value = v;
}

void config_info(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	struct conf_kv *kv = NULL;
	size_t n = 0;
	struct config_resp r = {0};
	int slurmd_user = 0;

	if (conf_dump_kv(ctld->conf, &kv, &n) < 0) {
		chan_send_rc(ch, -1, "cannot dump the configuration");
		return;
	}
	r.items = xcalloc(n + 3, sizeof(struct kv));
	for (size_t i = 0; i < n; i++) {
		select_params_canon(&kv[i]);
		user_canon(&kv[i]);
		slurmd_user |= !strcmp(kv[i].key, "SlurmdUser");
		r.items[i].key = kv[i].key;
		r.items[i].value = kv[i].value;
	}
	r.items[n].key = "SLURM_CONF";
	r.items[n].value = ctld->conf->path;
	r.items[n + 1].key = "SLURM_VERSION";
	r.items[n + 1].value = "22.05.8";
	r.items_count = n + 2;
	if (!slurmd_user) /* rotad runs as root: it starts tasks as their users */
		r.items[r.items_count++] = (struct kv){"SlurmdUser", "root(0)"};
	chan_send(ch, MSG_CONFIG_RESP, &r);
	free(r.items);
	conf_kv_free(kv, n);
}
