/* detach.h - run a program for the controller without waiting for it
 * (ResumeProgram, SuspendProgram, strigger's programs, MailProg): a child in
 * a session of its own starts it and goes on watching it, so the controller
 * reaps only that child, at once, and its loop never waits.  stdin, stdout
 * and stderr are /dev/null; no descriptor of the controller is inherited. */
#ifndef ROTA_CTLD_DETACH_H
#define ROTA_CTLD_DETACH_H

#include <sys/types.h>

struct detached {
	char *const *argv; /* argv[0]: the program's path */
	char *const *env;  /* NULL: the controller's */
	/* when the controller is root: run as uid/gid, with user's groups
	 * (none when user is NULL); else as the controller */
	uid_t uid;
	gid_t gid;
	const char *user;
	int limit_s; /* kill its process group after this long; 0: never */
};

/* Returns 0, or -errno when no child could be made. */
int ctld_run_detached(const struct detached *d);

#endif
