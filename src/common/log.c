#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "common/common.h"

static const char *log_prog = "rota";
static int log_level = LOG_INFO;
static int log_fd = 2;
static char *log_path; /* the file, for log_reopen */

static int log_open(const char *file)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);

	if (fd < 0)
		return -1;
	if (log_fd > 2)
		close(log_fd);
	log_fd = fd;
	return 0;
}

int log_init(const char *prog, int level, const char *file)
{
	log_prog = prog;
	log_level = level;
	if (!file)
		return 0;
	if (log_open(file) < 0)
		return -1;
	free(log_path);
	log_path = xstrdup(file);
	return 0;
}

void log_set_level(int level)
{
	log_level = level;
}

void log_forget_file(void)
{
	log_fd = 2;
	free(log_path);
	log_path = NULL;
}

int log_reopen(void)
{
	return log_path ? log_open(log_path) : 0;
}

static const char *level_name(int level)
{
	switch (level) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return "error";
	case LOG_WARNING:
		return "warning";
	case LOG_NOTICE:
	case LOG_INFO:
		return "info";
	default:
		return "debug";
	}
}

/* Copy msg to out (at most room bytes) with every control character written as
 * an escape ("\n", "\t", "\x1b"), so that nothing a user put into a string can
 * start a line of its own or move the terminal's cursor; trailing newlines are
 * dropped.  Returns the bytes written (no NUL). */
static size_t log_escape(char *out, size_t room, const char *msg)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strlen(msg), n = 0;

	while (len && msg[len - 1] == '\n')
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)msg[i];

		if (ch >= 0x20 && ch != 0x7f) {
			if (n + 1 > room)
				break;
			out[n++] = (char)ch;
			continue;
		}
		if (n + 4 > room)
			break;
		out[n++] = '\\';
		if (ch == '\n' || ch == '\t' || ch == '\r') {
			out[n++] = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
			continue;
		}
		out[n++] = 'x';
		out[n++] = hex[ch >> 4];
		out[n++] = hex[ch & 15];
	}
	return n;
}

/* log_set_tee's: whom messages up to tee_level go to as well */
static int tee_level = -1;
static log_tee_fn tee_fn;
static void *tee_arg;
static int in_tee; /* a message the tee logs itself goes to the file only */

void log_set_tee(int level, log_tee_fn fn, void *arg)
{
	tee_level = fn ? level : -1;
	tee_fn = fn;
	tee_arg = arg;
}

static void log_vmsg(int level, const char *fmt, va_list ap)
{
	char line[4096], msg[4096], text[4096];
	struct timeval tv;
	struct tm tm;
	int n;
	size_t tn;

	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = '\0';
	if (level <= log_level) {
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		n = snprintf(
		    line, sizeof(line),
		    "[%04d-%02d-%02dT%02d:%02d:%02d.%03ld] %s: %s: ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    (long)tv.tv_usec / 1000, log_prog, level_name(level));
		if (n >= 0 && (size_t)n < sizeof(line) - 1) {
			n += log_escape(line + n, sizeof(line) - 1 - n, msg);
			line[n++] = '\n';
			if (write(log_fd, line, n) < 0) {
				/* nowhere left to report it */
			}
		}
	}
	if (tee_fn && level <= tee_level && !in_tee) {
		tn = log_escape(text, sizeof(text) - 1, msg);
		text[tn] = '\0';
		in_tee = 1;
		tee_fn(level, text, tee_arg);
		in_tee = 0;
	}
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level && level > tee_level)
		return;
	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}

static const char *const slurm_levels[] = {"quiet",   "fatal", "error",  "info",
                                           "verbose", "debug", "debug2", "debug3",
                                           "debug4",  "debug5"};
#define SLURM_LEVELS (sizeof(slurm_levels) / sizeof(*slurm_levels))

const char *log_slurm_level_name(unsigned n)
{
	return n < SLURM_LEVELS ? slurm_levels[n] : NULL;
}

int log_slurm_level_parse(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s >= '0' && *s <= '9' && !*end && n < SLURM_LEVELS)
		return (int)n;
	for (size_t k = 0; k < SLURM_LEVELS; k++)
		if (!strcasecmp(s, slurm_levels[k]))
			return (int)k;
	return -1;
}
