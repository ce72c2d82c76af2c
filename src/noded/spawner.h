/* spawner.h - the process that forks rotad's step daemons.
 *
 * rotad forks the spawner once, at start, and hands it each launch over a
 * socket: the spawner forks, and its child runs the step daemon.  A fork of
 * rotad itself write-protects every page rotad has; rotad's next writes
 * (freeing the launch message, its connection buffers) each took a page fault,
 * a copy and, on a virtual machine, an interrupt to the other CPU to flush its
 * TLB: 37-50 % of rotad's CPU a launch on a host slow at page faults
 * (doc/performance.md).  The spawner does nothing between forks, so its pages
 * are written seldom, and rotad is never forked per launch.
 *
 * The spawner reports each child's pid and, when it ends, its wait status.  It
 * exits when rotad's end of the socket closes; its children (each a session of
 * its own) go on. */
#ifndef ROTA_SPAWNER_H
#define ROTA_SPAWNER_H

#include <stdint.h>
#include <sys/types.h>

struct event_base;
struct spawner;

/* Most groups a request carries; a user with more has them looked up by the
 * step daemon itself. */
#define SPAWN_MAX_GIDS 2048
#define SPAWN_USER_MAX 256

struct spawn_req {
	uint32_t job_id, step_id;
	char user[SPAWN_USER_MAX]; /* "" when unknown */
	gid_t gid;
	uint32_t ngids; /* 0: none known */
	gid_t gids[SPAWN_MAX_GIDS];
};

/* Runs in the spawner's child with fd (the descriptor handed to spawner_spawn)
 * and the request; never returns.  arg is the spawner's copy of what rotad
 * passed: memory rotad changed after spawner_create is not seen. */
typedef void (*spawner_child_f)(void *arg, int fd, const struct spawn_req *req);
/* In rotad: a child started (wstatus -1) or failed to (pid < 0: -errno), or
 * ended (pid and its wait status); or the spawner is gone (wstatus
 * SPAWNER_GONE): the ends of the children it had are not reported. */
#define SPAWNER_GONE (-2)
typedef void (*spawner_event_f)(void *arg, uint32_t job_id, uint32_t step_id, pid_t pid,
                                int wstatus);

struct spawner_opts {
	spawner_child_f child;
	spawner_event_f event;
	void *arg;
	char *title; /* rotad's argv area, written over in the spawner; may be NULL */
	size_t title_len;
};

/* Fork the spawner.  Returns NULL (errno set) when it cannot. */
struct spawner *spawner_create(struct event_base *base, const struct spawner_opts *o);
/* Close the socket (the spawner exits) and free.  NULL allowed. */
void spawner_destroy(struct spawner *s);
/* Whether it is still there (its socket open). */
int spawner_alive(const struct spawner *s);
/* Ask for a child with fd (borrowed: the caller closes its copy).  Returns 0,
 * or -errno when the request could not be sent (the spawner is gone, or its
 * socket is full): the caller forks by itself. */
int spawner_spawn(struct spawner *s, const struct spawn_req *req, int fd);

#endif
