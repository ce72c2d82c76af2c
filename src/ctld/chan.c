#include <stddef.h>
#include "ctld/chan.h"
#include "common/states.h"
#include "proto/messages.h"

void chan_init(struct chan *ch, const struct chan_ops *ops)
{
	ch->ops = ops;
	ch->refs = 1;
	ch->alloc_job_id = 0;
	ch->superseded = 0;
}

void chan_ref(struct chan *ch)
{
	ch->refs++;
}

void chan_unref(struct chan *ch)
{
	if (!ch || --ch->refs > 0)
		return;
	ch->ops->release(ch);
}

int chan_send(struct chan *ch, uint16_t type, const void *body)
{
	return ch->ops->send(ch, type, body);
}

int chan_send_rc_detail(struct chan *ch, int err, const char *msg, const char *detail)
{
	/* the one place a controller error becomes Slurm's positive number;
	 * SLURM_ERROR travels as itself */
	struct rc_msg m = {.rc = err == SLURM_ERROR ? SLURM_ERROR : -err,
	                   .msg = (char *)msg,
	                   .detail = (char *)detail};
	return chan_send(ch, MSG_RC, &m);
}

int chan_send_rc(struct chan *ch, int err, const char *msg)
{
	return chan_send_rc_detail(ch, err, msg, NULL);
}

void chan_write_now(struct chan *ch)
{
	if (ch->ops->write_now)
		ch->ops->write_now(ch);
}
