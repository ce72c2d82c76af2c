/* test_log.c - one log line per message, whatever the message holds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "common/common.h"

static char path[] = "/tmp/rota-test-log-XXXXXX";

/* Everything logged so far. */
static char *slurp(void)
{
	static char buf[65536];
	FILE *f = fopen(path, "re");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	return log_init("rotatest", LOG_DEBUG, path);
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void test_control_characters_escaped(void **state)
{
	const char *text;

	log_info("name \"%s\" refused", "a\n[2026-01-01T00:00:00.000] rotactld: forged");
	log_err("tab\there cr\rthere esc\x1b[2J del\x7f bell\a end\n");
	text = slurp();
	assert_int_equal(count_lines(text), 2);
	assert_non_null(strstr(text,
	                       "rotatest: info: name \"a\\n[2026-01-01T00:00:00.000] "
	                       "rotactld: forged\" refused\n"));
	assert_non_null(strstr(text, "rotatest: error: tab\\there cr\\rthere "
	                             "esc\\x1b[2J del\\x7f bell\\x07 end\n"));
	/* bytes >= 0x80 (UTF-8) pass as they are */
	log_info("na\xc3\xafve");
	assert_non_null(strstr(slurp(), "info: na\xc3\xafve\n"));
}

static void test_long_message_stays_one_line(void **state)
{
	static char big[10000];
	const char *text, *last;

	memset(big, '\n', sizeof(big) - 1);
	log_info("%s", big);
	text = slurp();
	last = strrchr(text, '[');
	assert_non_null(last);
	assert_int_equal(count_lines(last), 1);
	assert_true(strlen(last) < 4096);
	memset(big, 'x', sizeof(big) - 1);
	log_info("%s", big);
	text = slurp();
	last = strrchr(text, '[');
	assert_int_equal(count_lines(last), 1);
	assert_int_equal(last[strlen(last) - 1], '\n');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_control_characters_escaped),
	    cmocka_unit_test(test_long_message_stays_one_line),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
