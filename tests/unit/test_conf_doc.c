/* test_conf_doc.c - every key a parser accepts has a description, and every
 * description names a key (common/conf_doc.h): the section-5 man pages are
 * generated from these, so a key added without a description fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>
#include "common/cgroup_conf.h"
#include "common/conf_doc.h"
#include "common/conf_keys.h"
#include "common/gres_conf.h"
#include "common/schedparams.h"
#include "common/topo_conf.h"

static enum conf_doc_table table_of(enum conf_scope s)
{
	return s == CONF_SCOPE_NODE   ? CONF_DOC_NODE
	       : s == CONF_SCOPE_PART ? CONF_DOC_PART
	                              : CONF_DOC_GLOBAL;
}

/* A slurm.conf row the page describes: not ignored, not an alias, not a
 * line type skipped whole. */
static int described(const struct conf_key *k)
{
	return k->type != CONF_T_IGNORED && !k->alias_of && k->id != CONF_ID_LINE_IGNORED;
}

static void check_doc(const struct conf_doc *d, const char *file, const char *key)
{
	if (!d)
		fail_msg("%s key %s has no description in src/common/conf_doc.c", file,
		         key);
	assert_true(d->desc && strlen(d->desc) > 10);
	/* the generator escapes backslashes, but a description should not need any */
	assert_null(strchr(d->desc, '\\'));
}

static void test_slurm_conf_keys_described(void **state)
{
	for (size_t i = 0; i < conf_keys_count; i++)
		if (described(&conf_keys[i]))
			check_doc(conf_doc_find(table_of(conf_keys[i].scope),
			                        conf_keys[i].name),
			          "slurm.conf", conf_keys[i].name);
}

/* A description of a key the parser dropped would document nothing. */
static void test_slurm_conf_docs_are_keys(void **state)
{
	static const enum conf_scope scopes[] = {CONF_SCOPE_GLOBAL, CONF_SCOPE_NODE,
	                                         CONF_SCOPE_PART};
	for (size_t s = 0; s < 3; s++) {
		size_t n;
		const struct conf_doc *d = conf_doc_table(table_of(scopes[s]), &n);

		for (size_t i = 0; i < n; i++) {
			const struct conf_key *k = conf_key_find(scopes[s], d[i].name);
			if (!k || !described(k) || strcmp(k->name, d[i].name))
				fail_msg("description of %s: not a key slurm.conf uses",
				         d[i].name);
		}
	}
}

static void check_list(enum conf_doc_table t, const char *file, const char *const *keys,
                       size_t nkeys)
{
	size_t n;
	const struct conf_doc *d = conf_doc_table(t, &n);

	assert_true(nkeys > 0);
	for (size_t i = 0; i < nkeys; i++)
		check_doc(conf_doc_find(t, keys[i]), file, keys[i]);
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < nkeys && strcmp(keys[j], d[i].name); j++)
			;
		if (j == nkeys)
			fail_msg("%s: description of %s: not a key of the parser", file,
			         d[i].name);
	}
}

static void test_other_files_described(void **state)
{
	size_t n;
	const char *const *k;

	k = gres_conf_keys(&n);
	check_list(CONF_DOC_GRES, "gres.conf", k, n);
	k = cgroup_conf_keys(&n);
	check_list(CONF_DOC_CGROUP, "cgroup.conf", k, n);
	k = topo_conf_keys(&n);
	check_list(CONF_DOC_TOPO, "topology.conf", k, n);
	k = sched_params_keys(&n);
	check_list(CONF_DOC_SCHED, "SchedulerParameters", k, n);
}

/* The tables the pages come from are the ones the parsers act on: a key
 * outside them is not taken. */
static void test_parsers_use_their_tables(void **state)
{
	struct topo_conf *tc = NULL;
	struct sched_params sp;
	size_t n;

	assert_true(topo_conf_load_string("SwitchName=s1 Nodes=n1 Bogus=1\n", "t",
	                                  TOPO_TREE, &tc, NULL) < 0);
	assert_int_equal(topo_conf_load_string("SwitchName=s1 Nodes=n1 LinkSpeed=2\n",
	                                       "t", TOPO_TREE, &tc, NULL),
	                 0);
	topo_conf_destroy(tc);
	sched_params_parse("bf_window=100,bf_windowx=7", &sp);
	assert_int_equal(sp.bf_window, 100);
	/* every listed word is acted on: one that changes nothing would be dead */
	const char *const *k = sched_params_keys(&n);
	struct sched_params def;
	sched_params_parse(NULL, &def);
	for (size_t i = 0; i < n; i++) {
		char text[96];
		snprintf(text, sizeof(text), "%s=%s", k[i],
		         !strcmp(k[i], "sched_order")   ? "saf_aged"
		         : !strcmp(k[i], "bf_estimate") ? "learned"
		                                        : "2");
		sched_params_parse(text, &sp);
		if (!memcmp(&sp, &def, sizeof(sp))) {
			snprintf(text, sizeof(text), "%s", k[i]);
			sched_params_parse(text, &sp);
		}
		if (!memcmp(&sp, &def, sizeof(sp)))
			fail_msg("SchedulerParameters %s changes nothing", k[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slurm_conf_keys_described),
	    cmocka_unit_test(test_slurm_conf_docs_are_keys),
	    cmocka_unit_test(test_other_files_described),
	    cmocka_unit_test(test_parsers_use_their_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
