/* sdnotify.h - tell a service manager how the daemon is doing: systemd's
 * sd_notify protocol (Type=notify units), without libsystemd.  A state is one
 * datagram such as "READY=1" or "STOPPING=1" sent to the unix socket that
 * $NOTIFY_SOCKET names: a path, or an abstract name written with a leading
 * '@'.  A daemon takes the name at start (before it starts any program), keeps
 * it, and sends READY=1 once it serves, STOPPING=1 when it begins to shut down,
 * RELOADING=1 then READY=1 around a reconfigure.  Outside systemd the name is
 * NULL and sending does nothing. */
#ifndef ROTA_SDNOTIFY_H
#define ROTA_SDNOTIFY_H

/* The socket $NOTIFY_SOCKET names, removed from the environment so that the
 * programs the daemon starts (step daemons, jobs, prologs) do not inherit it;
 * NULL when unset or empty.  Caller frees. */
char *sdnotify_take(void);

/* Sends state (e.g. "READY=1"; several assignments separated by '\n') to the
 * socket named by path, which sdnotify_take returned (borrowed).  Returns 1
 * when sent, 0 when path is NULL (no service manager), -EINVAL for a name that
 * is neither absolute nor abstract or too long for a socket address, or the
 * negative errno of the send.  Never blocks. */
int sdnotify_send(const char *path, const char *state);

/* "RELOADING=1" with the CLOCK_MONOTONIC time systemd asks to come with it
 * (Type=notify-reload units), to path as sdnotify_send. */
int sdnotify_reloading(const char *path);

#endif
