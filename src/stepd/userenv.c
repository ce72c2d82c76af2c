/* userenv.c - the user's login environment on this node (sbatch --get-user-env).
 *
 * DESIGN: as slurmd does for a batch job whose environment holds
 * SLURM_GET_USER_ENV=1, the stepd (still root) runs
 *     su - USER -c '/bin/echo; /bin/echo BEGIN; /usr/bin/env -0; /bin/echo; /bin/echo
 * END' and parses what lies between the markers: whatever the user's login scripts print
 * before or after is ignored, and `env -0` keeps values with newlines (exported shell
 * functions) whole.  It is done here, on the node, and not in sbatch, because the point
 * of the option is the environment of the node the job runs on (paths may differ from the
 * submit host), and only root can `su` to the user without a password.  su drops
 * privileges itself; the stepd only reads the output, with a size and an entry limit and
 * a deadline.  A stepd that is not root (a cluster run by an ordinary user) starts the
 * user's login shell itself.  On failure the caller runs the job with the submitted
 * environment only, as Slurm does by default.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/jobscript.h"
#include "proto/codec.h"
#include "proto/messages.h"
#include "stepd/stepd.h"
#include "common/common.h"

#define SU_PATH         "/bin/su"
#define USERENV_BEGIN   "ROTA_USERENV_BEGIN"
#define USERENV_END     "ROTA_USERENV_END"
#define USERENV_MAX     (8u << 20) /* bytes of su output we accept */
#define USERENV_TIMEOUT 120        /* seconds, as slurmd allows */
#define USERENV_COMMAND                                                                  \
	"/bin/echo; /bin/echo " USERENV_BEGIN "; /usr/bin/env -0; /bin/echo; "           \
	"/bin/echo " USERENV_END

/* Never taken from the login environment (slurmd drops the same names). */
static int discarded(const char *entry)
{
	static const char *const names[] = {"DISPLAY=", "ENVIRONMENT=", "HOSTNAME="};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(entry, names[i], strlen(names[i])))
			return 1;
	return 0;
}

static int valid_entry(const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s || (*s >= '0' && *s <= '9'))
		return 0;
	for (const char *p = s; p < eq; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

/* In the child: stdout to the pipe, the rest to /dev/null; exec su (or the
 * login shell).  Never returns. */
static void child_exec(const struct stepd *st, const struct passwd *pw, int out_fd)
{
	char *envp[8] = {NULL}, *argv0;
	sigset_t none;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	setsid();
	if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null, 2) < 0)
		_exit(127);
	close_range(3, ~0U, 0);
	envp[0] = (char *)"PATH=/usr/bin:/bin";
	envp[1] = (char *)"ENVIRONMENT=BATCH";
	if (st->as_root) {
		execle(SU_PATH, "su", "-", st->user, "-c", USERENV_COMMAND, (char *)NULL,
		       envp);
		_exit(127);
	}
	/* not root: the user's login shell, as `su -` would start it */
	envp[2] = xasprintf("HOME=%s", pw->pw_dir);
	envp[3] = xasprintf("SHELL=%s", pw->pw_shell);
	envp[4] = xasprintf("USER=%s", pw->pw_name);
	envp[5] = xasprintf("LOGNAME=%s", pw->pw_name);
	argv0 =
	    xasprintf("-%s", strrchr(pw->pw_shell, '/') ? strrchr(pw->pw_shell, '/') + 1
	                                                : pw->pw_shell);
	if (chdir(pw->pw_dir) < 0 && chdir("/") < 0)
		_exit(127);
	execle(pw->pw_shell, argv0, "-c", USERENV_COMMAND, (char *)NULL, envp);
	_exit(127);
}

/* Read fd until EOF, the deadline or USERENV_MAX; 0 or -1 (err). */
static int read_all(int fd, time_t deadline, char **ret_buf, size_t *ret_len,
                    struct rota_error *err)
{
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		time_t now = time(NULL);
		ssize_t n;
		int rc;

		if (now >= deadline)
			goto timeout;
		rc = poll(&pfd, 1, (int)(deadline - now) * 1000);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			goto timeout;
		if (len == cap) {
			if (cap >= USERENV_MAX) {
				free(buf);
				return errprintf(err,
				                 "login environment larger than %u bytes",
				                 USERENV_MAX);
			}
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			free(buf);
			return errprintf(err, "read: %s", strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	return 0;
timeout:
	free(buf);
	return errprintf(err, "timed out after %d s", USERENV_TIMEOUT);
}

/* The entries between the markers of buf[0..len). */
static int parse(const char *buf, size_t len, char ***ret_env, struct rota_error *err)
{
	static const char begin[] = "\n" USERENV_BEGIN "\n";
	static const char end[] = "\n" USERENV_END "\n";
	static const char nul_end[] = "\0\n" USERENV_END "\n";
	const char *p = memmem(buf, len, begin, sizeof(begin) - 1), *stop;
	char **env = xcalloc(1, sizeof(char *));
	size_t n = 0;

	if (!p)
		goto bad;
	p += sizeof(begin) - 1;
	/* env -0 ends every entry with NUL, so the end marker follows a NUL (or
	 * comes first when the environment is empty) and cannot be in a value */
	if ((size_t)(buf + len - p) >= sizeof(end) - 1 &&
	    !memcmp(p, end, sizeof(end) - 1))
		stop = p;
	else if ((stop =
	              memmem(p, (size_t)(buf + len - p), nul_end, sizeof(nul_end) - 1)))
		stop++; /* past the NUL */
	else
		goto bad;
	while (p < stop) {
		size_t l = strnlen(p, (size_t)(stop - p));
		if (valid_entry(p) && !discarded(p)) {
			if (++n > JOBSCRIPT_ENV_MAX) {
				strv_free(env);
				return errprintf(err, "more than %d variables",
				                 JOBSCRIPT_ENV_MAX);
			}
			env = strv_append(env, p);
		}
		p += l + 1;
	}
	*ret_env = env;
	return 0;
bad:
	strv_free(env);
	return errprintf(err, "no environment in the output of the login shell");
}

/* Let su finish (PAM closes its session) unless it timed out, then kill what
 * the login left behind in its session. */
static void reap(pid_t pid, int finished)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	int status;

	for (int i = 0; finished && i < 500; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR)) {
			kill(-pid, SIGKILL);
			return;
		}
		nanosleep(&tick, NULL);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

int userenv_load(const struct stepd *st, char ***ret_env, struct rota_error *err)
{
	struct passwd pw, *res = NULL;
	char pwbuf[4096], *buf = NULL;
	size_t len = 0;
	int fds[2], rc;
	pid_t pid;

	if (getpwuid_r(st->uid, &pw, pwbuf, sizeof(pwbuf), &res) || !res)
		return errprintf(err, "unknown uid %u", (unsigned)st->uid);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return errprintf(err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return errprintf(err, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		child_exec(st, &pw, fds[1]);
	close(fds[1]);
	rc = read_all(fds[0], time(NULL) + USERENV_TIMEOUT, &buf, &len, err);
	close(fds[0]);
	reap(pid, rc == 0);
	if (rc == 0)
		rc = parse(buf, len, ret_env, err);
	free(buf);
	return rc;
}
