/* test_hostsfile.c - the /etc/hosts text that names the cluster's nodes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/conf.h"
#include "common/error.h"
#include "common/hostsfile.h"

static struct conf *load(const char *text)
{
	struct rota_error err = {{0}};
	struct conf *c = NULL;

	if (conf_load_string(text, "test.conf", &c, &err))
		fail_msg("conf_load_string failed: %s", err.text);
	return c;
}

static void test_loopback(void **state)
{
	assert_true(hostsfile_is_loopback("127.0.0.1"));
	assert_true(hostsfile_is_loopback("127.3.0.9"));
	assert_true(hostsfile_is_loopback("::1"));
	assert_true(hostsfile_is_loopback("localhost"));
	assert_false(hostsfile_is_loopback("10.0.0.1"));
	assert_false(hostsfile_is_loopback("128.0.0.1"));
	assert_false(hostsfile_is_loopback("fe80::1"));
	assert_false(hostsfile_is_loopback("node01"));
	assert_false(hostsfile_is_loopback(NULL));
}

/* The local cluster's slurm.conf (cli/rota.c): one host name for all. */
static void test_virtual_nodes(void **state)
{
	struct conf *c = load("NodeName=node[01-03] NodeHostname=box "
	                      "NodeAddr=127.0.0.1 Port=[7001-7003]\n");
	char *out = (char *)0x1;

	assert_int_equal(hostsfile_render("127.0.0.1 localhost", c, 0, &out), 0);
	assert_string_equal(out, "127.0.0.1 localhost\n"
	                         "# the cluster's nodes, from slurm.conf (rotastepd)\n"
	                         "127.0.0.1\tnode01 box\n"
	                         "127.0.0.1\tnode02\n"
	                         "127.0.0.1\tnode03\n");
	free(out);
	conf_destroy(c);
}

/* NodeAddr written as a name has no address here, unless the node is on
 * this host; the host's lines come first, unchanged. */
static void test_addresses(void **state)
{
	struct conf *c = load("NodeName=a NodeAddr=10.1.0.1\n"
	                      "NodeName=b NodeAddr=fd00::2 NodeHostname=b-eth\n"
	                      "NodeName=c NodeAddr=c-ib\n"
	                      "NodeName=d\n");
	const char *base = "10.9.9.9 other\n";
	char *out = NULL;

	assert_int_equal(hostsfile_render(base, c, 0, &out), 0);
	assert_string_equal(out, "10.9.9.9 other\n"
	                         "# the cluster's nodes, from slurm.conf (rotastepd)\n"
	                         "10.1.0.1\ta\n"
	                         "fd00::2\tb b-eth\n");
	free(out);
	assert_int_equal(hostsfile_render(NULL, c, HOSTSFILE_F_LOCAL, &out), 0);
	assert_string_equal(out, "# the cluster's nodes, from slurm.conf (rotastepd)\n"
	                         "10.1.0.1\ta\n"
	                         "fd00::2\tb b-eth\n"
	                         "127.0.0.1\tc\n"
	                         "127.0.0.1\td\n");
	free(out);
	conf_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loopback),
	    cmocka_unit_test(test_virtual_nodes),
	    cmocka_unit_test(test_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
