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

/* Keys Rota reads but has no setting for (conf_keys.c IGNORE rows), shown
 * with what they are here when slurm.conf does not name them, as Slurm shows
 * its defaults: scripts compare them. */
static const struct kv shown_defaults[] = {
    {"NodeFeaturesPlugins", "(null)"},
    {"SlurmdUser", "root(0)"}, /* rotad starts tasks as their users */
    {"SwitchType", "switch/none"},
};
#define NSHOWN (sizeof(shown_defaults) / sizeof(shown_defaults[0]))

static int kv_named(const struct conf_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return 1;
	return 0;
}

/* Several nodes with one host name (rota up's, Slurm's multiple-slurmd
 * test setups): Slurm says MULTIPLE_SLURMD = Yes then, and its tests adapt. */
static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int multiple_slurmd(const struct conf *cf)
{
	const char **names = xcalloc(cf->node_count + 1, sizeof(*names));
	size_t n = 0;
	int same = 0;

	for (size_t i = 0; i < cf->node_count; i++)
		if (cf->nodes[i].hostname)
			names[n++] = cf->nodes[i].hostname;
	qsort(names, n, sizeof(*names), str_cmp);
	for (size_t i = 1; i < n && !same; i++)
		same = !strcmp(names[i - 1], names[i]);
	free(names);
	return same;
}

void config_info(struct ctld *ctld, struct caller *who, struct chan *ch)
{
	struct conf_kv *kv = NULL;
	size_t n = 0;
	struct config_resp r = {0};

	if (conf_dump_kv(ctld->conf, &kv, &n) < 0) {
		chan_send_rc(ch, -1, "cannot dump the configuration");
		return;
	}
	r.items = xcalloc(n + 3 + NSHOWN, sizeof(struct kv));
	for (size_t i = 0; i < n; i++) {
		select_params_canon(&kv[i]);
		user_canon(&kv[i]);
		r.items[i].key = kv[i].key;
		r.items[i].value = kv[i].value;
	}
	r.items[n].key = "SLURM_CONF";
	r.items[n].value = ctld->conf->path;
	r.items[n + 1].key = "SLURM_VERSION";
	r.items[n + 1].value = "22.05.8";
	r.items_count = n + 2;
	if (multiple_slurmd(ctld->conf))
		r.items[r.items_count++] = (struct kv){"MULTIPLE_SLURMD", "Yes"};
	for (size_t i = 0; i < NSHOWN; i++)
		if (!kv_named(kv, n, shown_defaults[i].key))
			r.items[r.items_count++] = shown_defaults[i];
	chan_send(ch, MSG_CONFIG_RESP, &r);
	free(r.items);
	conf_kv_free(kv, n);
}
