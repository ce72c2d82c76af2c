/* job_event_codec.c - the events' descriptors, names, encoding and decoding:
 * what reads the journal without applying it (rotadbd) links this alone. */
#include <errno.h>
#include <string.h>
#include "ctld/job_event.h"
#include "proto/codec.h"
#include "common/common.h"

ROTA_DEFINE(ev_head, EV_HEAD_FIELDS)
ROTA_DEFINE(ev_job_head, EV_JOB_HEAD_FIELDS)
ROTA_DEFINE(ev_meta, EV_META_FIELDS)
ROTA_DEFINE(ev_submit, EV_SUBMIT_FIELDS)
ROTA_DEFINE(ev_start, EV_START_FIELDS)
ROTA_DEFINE(ev_end, EV_END_FIELDS)
ROTA_DEFINE(ev_hold, EV_HOLD_FIELDS)
ROTA_DEFINE(ev_update, EV_UPDATE_FIELDS)
ROTA_DEFINE(ev_node_state, EV_NODE_STATE_FIELDS)
ROTA_DEFINE(ev_node_features, EV_NODE_FEATURES_FIELDS)
ROTA_DEFINE(ev_requeue, EV_REQUEUE_FIELDS)
ROTA_DEFINE(ev_array_split, EV_ARRAY_SPLIT_FIELDS)
ROTA_DEFINE(ev_array_throttle, EV_ARRAY_THROTTLE_FIELDS)
ROTA_DEFINE(ev_configured, EV_CONFIGURED_FIELDS)
ROTA_DEFINE(ev_step_start, EV_STEP_START_FIELDS)
ROTA_DEFINE(ev_step_end, EV_STEP_END_FIELDS)
ROTA_DEFINE(ev_text, EV_TEXT_FIELDS)
ROTA_DEFINE(ev_usage, EV_USAGE_FIELDS)
ROTA_DEFINE(share_usage, SHARE_USAGE_FIELDS)
ROTA_DEFINE(ev_assoc, EV_ASSOC_FIELDS)
ROTA_DEFINE(ev_resv, EV_RESV_FIELDS)
ROTA_DEFINE(ev_suspend, EV_SUSPEND_FIELDS)
ROTA_DEFINE(ev_trigger, EV_TRIGGER_FIELDS)
ROTA_DEFINE(ev_crontab, EV_CRONTAB_FIELDS)
ROTA_DEFINE(ev_excise, EV_EXCISE_FIELDS)
ROTA_DEFINE(ev_step_limit, EV_STEP_LIMIT_FIELDS)
ROTA_DEFINE(ev_part, EV_PART_FIELDS)

#define TYPE_ENTRY(name, num, m) [num] = &ev_##m##_type,
static const struct rota_type *const ev_types[EV_TYPE_END] = {
    ROTA_JOB_EVENTS(TYPE_ENTRY)};
#define NAME_ENTRY(name, num, m) [num] = #name + 3,
static const char *const ev_names[EV_TYPE_END] = {ROTA_JOB_EVENTS(NAME_ENTRY)};

const struct rota_type *job_event_type_of(uint32_t type)
{
	return type < EV_TYPE_END ? ev_types[type] : NULL;
}

const char *job_event_name(uint32_t type)
{
	return type < EV_TYPE_END && ev_names[type] ? ev_names[type] : "?";
}

int job_event_encode(const union job_event *ev, char **ret_buf, size_t *ret_len)
{
	const struct rota_type *t = job_event_type_of(ev->head.type);

	if (!t)
		return -EINVAL;
	return codec_encode(t, ev, ret_buf, ret_len);
}

int job_event_decode(const char *data, size_t len, union job_event *ev,
                     struct rota_error *err)
{
	memset(ev, 0, sizeof(*ev));
	return codec_decode_tagged("type", job_event_type_of, data, len, ev, err);
}

void job_event_release(union job_event *ev)
{
	const struct rota_type *t = job_event_type_of(ev->head.type);

	if (t)
		codec_release(t, ev);
	memset(ev, 0, sizeof(*ev));
}
