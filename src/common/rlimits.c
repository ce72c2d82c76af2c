/* rlimits.c - resource limits propagated from the submit host (rlimits.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/rlimits.h"
#include "common/strv.h"
#include "common/common.h"

static const struct {
	const char *name;
	int resource;
} kinds[RLIMITS_KINDS] = {
    {"AS", RLIMIT_AS},         {"CORE", RLIMIT_CORE},   {"CPU", RLIMIT_CPU},
    {"DATA", RLIMIT_DATA},     {"FSIZE", RLIMIT_FSIZE}, {"MEMLOCK", RLIMIT_MEMLOCK},
    {"NOFILE", RLIMIT_NOFILE}, {"NPROC", RLIMIT_NPROC}, {"RSS", RLIMIT_RSS},
    {"STACK", RLIMIT_STACK},
};

int rlimits_parse(const char *list, unsigned *ret, struct rota_error *err)
{
	char **words = strv_split(list ? list : "", ",");
	unsigned set = words[0] ? 0 : RLIMITS_ALL;
	int rc = 0;

	for (size_t i = 0; words[i] && rc == 0; i++) {
		size_t k = 0;

		if (!strcasecmp(words[i], "ALL")) {
			set = RLIMITS_ALL;
			continue;
		}
		if (!strcasecmp(words[i], "NONE")) {
			set = 0;
			continue;
		}
		while (k < RLIMITS_KINDS && strcasecmp(words[i], kinds[k].name))
			k++;
		if (k == RLIMITS_KINDS)
			rc = errprintf(err, "unknown resource limit \"%.32s\"", words[i]);
		else
			set |= 1u << k;
	}
	strv_free(words);
	if (rc == 0)
		*ret = set;
	return rc;
}

unsigned rlimits_conf(const struct conf *conf)
{
	unsigned set = RLIMITS_ALL, except = 0;

	if (conf->propagate_rlimits && rlimits_parse(conf->propagate_rlimits, &set, NULL))
		set = RLIMITS_ALL;
	if (conf->propagate_rlimits_except && *conf->propagate_rlimits_except &&
	    rlimits_parse(conf->propagate_rlimits_except, &except, NULL))
		except = 0;
	return set & ~except;
}

/* SLURM_RLIMIT_<NAME> of kind k into name[32]. */
static const char *env_name(size_t k, char name[32])
{
	snprintf(name, 32, RLIMITS_ENV_PREFIX "%s", kinds[k].name);
	return name;
}

char **rlimits_to_env(char **env, unsigned set, int user)
{
	for (size_t k = 0; k < RLIMITS_KINDS; k++) {
		struct rlimit rl;
		char name[32];

		if (!(set & (1u << k)) || getrlimit(kinds[k].resource, &rl) < 0)
			continue;
		env = strv_setenvf(env, env_name(k, name), "%s%llu", user ? "U" : "",
		                   (unsigned long long)rl.rlim_cur);
	}
	return env;
}

void rlimits_from_env(char *const *env, struct rlimits_want *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t k = 0; k < RLIMITS_KINDS; k++) {
		char name[32], *end;
		const char *v;
		unsigned long long n;
		int user;

		if (!(v = strv_getenv(env, env_name(k, name))))
			continue;
		user = *v == 'U';
		v += user;
		if (*v < '0' || *v > '9')
			continue;
		errno = 0;
		n = strtoull(v, &end, 10);
		if (errno || *end)
			continue;
		w->kinds |= 1u << k;
		w->user |= (unsigned)user << k;
		w->value[k] = (rlim_t)n;
	}
}

void rlimits_apply(const struct rlimits_want *w, void (*say)(void *arg, const char *text),
                   void *arg)
{
	for (size_t k = 0; k < RLIMITS_KINDS; k++) {
		struct rlimit rl;
		char text[160];

		if (!(w->kinds & (1u << k)) || getrlimit(kinds[k].resource, &rl) < 0 ||
		    rl.rlim_cur == w->value[k]) /* as it is already */
			continue;
		rl.rlim_cur = w->value[k];
		if (rl.rlim_max != RLIM_INFINITY &&
		    (w->value[k] == RLIM_INFINITY || w->value[k] > rl.rlim_max)) {
			if (w->user & (1u << k)) {
				snprintf(text, sizeof(text),
				         "Can't propagate RLIMIT_%s of %llu from submit "
				         "host: the node's limit is %llu",
				         kinds[k].name, (unsigned long long)w->value[k],
				         (unsigned long long)rl.rlim_max);
				say(arg, text);
			}
			rl.rlim_cur = rl.rlim_max;
		}
		setrlimit(kinds[k].resource, &rl);
	}
}
