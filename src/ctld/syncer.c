#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "ctld/syncer.h"
#include "common/common.h"

struct syncer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* the batch, under lock */
	int fd;
	char *buf;
	size_t len;
	uint64_t upto;
	void *tag;
	int (*after)(void *tag);
	int have_work;  /* handed to the thread, not yet taken */
	int closing[8]; /* fds for the thread to close */
	int nclosing;
	int finished; /* the thread is done with it: rc is its result */
	int rc;
	uint64_t usec; /* the batch's write and sync */
	int stop;
	/* the loop side */
	int busy; /* submitted, done not yet called */
	int pipe_r, pipe_w;
	struct event *ev;
	syncer_done_f done;
	void *arg;
};

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_sync(int fd, const char *p, size_t len)
{
	int rc = fd_write_all(fd, p, len);

	if (rc == 0 && fdatasync(fd) < 0)
		rc = -errno;
	return rc;
}

static void *syncer_main(void *arg)
{
	struct syncer *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->have_work && !s->stop && !s->nclosing)
			pthread_cond_wait(&s->cond, &s->lock);
		while (s->nclosing) {
			int fd = s->closing[--s->nclosing];
			pthread_mutex_unlock(&s->lock);
			close(fd);
			pthread_mutex_lock(&s->lock);
		}
		if (!s->have_work) {
			if (s->stop)
				break;
			continue;
		}
		s->have_work = 0;
		pthread_mutex_unlock(&s->lock);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int rc = write_sync(s->fd, s->buf, s->len);
		if (rc == 0 && s->after)
			rc = s->after(s->tag);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		pthread_mutex_lock(&s->lock);
		s->usec = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000u +
		          (uint64_t)((t1.tv_nsec - t0.tv_nsec) / 1000);
		s->rc = rc;
		s->finished = 1;
		pthread_cond_broadcast(&s->cond);
		/* wake the loop; a full pipe already has a wake-up in it */
		(void)!write(s->pipe_w, "", 1);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* On the loop thread: if the batch is finished, report it (once). */
static void collect(struct syncer *s)
{
	uint64_t upto;
	size_t len;
	void *tag;
	int rc;

	pthread_mutex_lock(&s->lock);
	if (!s->finished) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	s->finished = 0;
	rc = s->rc;
	upto = s->upto;
	len = s->len;
	tag = s->tag;
	free(s->buf);
	s->buf = NULL;
	pthread_mutex_unlock(&s->lock);
	s->busy = 0;
	s->done(s->arg, tag, upto, len, rc);
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	char b[64];

	while (read(fd, b, sizeof(b)) > 0)
		;
	collect(arg);
}

int syncer_create(struct event_base *base, syncer_done_f done, void *arg,
                  struct syncer **ret)
{
	struct syncer *s = xcalloc(1, sizeof(*s));
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		free(s);
		return -errno;
	}
	s->pipe_r = p[0];
	s->pipe_w = p[1];
	s->done = done;
	s->arg = arg;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->ev = event_new(base, s->pipe_r, EV_READ | EV_PERSIST, wake_cb, s);
	event_add(s->ev, NULL);
	if (pthread_create(&s->thread, NULL, syncer_main, s) != 0) {
		event_free(s->ev);
		close(p[0]);
		close(p[1]);
		free(s);
		return -EAGAIN;
	}
	*ret = s;
	return 0;
}

void syncer_destroy(struct syncer *s)
{
	if (!s)
		return;
	syncer_wait(s);
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	event_free(s->ev);
	close(s->pipe_r);
	close(s->pipe_w);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
}

uint64_t syncer_last_usec(const struct syncer *s)
{
	return s->usec;
}

int syncer_busy(const struct syncer *s)
{
	return s->busy;
}

void syncer_submit(struct syncer *s, int fd, char *buf, size_t len, uint64_t upto,
                   void *tag, int (*after)(void *tag))
{
	pthread_mutex_lock(&s->lock);
	s->fd = fd;
	s->tag = tag;
	s->after = after;
	s->buf = buf;
	s->len = len;
	s->upto = upto;
	s->have_work = 1;
	s->busy = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void syncer_close(struct syncer *s, int fd)
{
	pthread_mutex_lock(&s->lock);
	if (s->nclosing == (int)(sizeof(s->closing) / sizeof(s->closing[0]))) {
		pthread_mutex_unlock(&s->lock);
		close(fd); /* never so many at once; if so, here */
		return;
	}
	s->closing[s->nclosing++] = fd;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void syncer_wait(struct syncer *s)
{
	if (!s->busy)
		return;
	pthread_mutex_lock(&s->lock);
	while (!s->finished)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	collect(s);
}
