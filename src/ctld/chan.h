/* chan.h - where an operation's answer goes, and later notices about what it
 * started: the allocation an srun waits for, the end of a step, a job's end.
 *
 * Operations (ops.h) only ever see a chan.  The socket listener's client
 * (client.h) is one, over a connection; a unit test or another front door
 * provides its own by filling in chan_ops.  Reference counted, because a
 * reply deferred until the journal is durable, or a waiting allocation, may
 * outlive the request (and the connection: sends then fail with -EPIPE).
 */
#ifndef ROTA_CTLD_CHAN_H
#define ROTA_CTLD_CHAN_H

#include <stdint.h>

struct chan;

struct chan_ops {
	/* Queue a message; 0, or -EPIPE when nobody listens any more. */
	int (*send)(struct chan *ch, uint16_t type, const void *body);
	/* Put what is queued on the wire now (optional). */
	void (*write_now)(struct chan *ch);
	/* The last reference is gone. */
	void (*release)(struct chan *ch);
};

struct chan {
	const struct chan_ops *ops;
	int refs;
	uint32_t alloc_job_id; /* the allocation an srun/salloc holds here, or 0 */
	int superseded;        /* a node daemon's channel replaced by a newer one:
	                        * what still comes on it is not the node's */
};

/* Set up ch with one reference. */
void chan_init(struct chan *ch, const struct chan_ops *ops);
void chan_ref(struct chan *ch);
void chan_unref(struct chan *ch); /* NULL allowed */

int chan_send(struct chan *ch, uint16_t type, const void *body);
/* MSG_RC for err (0, or a negative error as common/error.h says: -ESLURM_*,
 * -errno, SLURM_ERROR) and an optional text.  The wire carries Slurm's
 * positive number. */
int chan_send_rc(struct chan *ch, int err, const char *msg);
/* The same with a detail line the client prints first, as Slurm's clients
 * print the controller's err_msg ("invalid partition specified: x"). */
int chan_send_rc_detail(struct chan *ch, int err, const char *msg, const char *detail);
void chan_write_now(struct chan *ch);

#endif
