/* reply.c - answers in Slurm's shape: a JSON document, or one of errors[]
 * alone, with an HTTP status. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "proto/slurm_json.h"
#include "restd/restd.h"
#include "common/common.h"

void restd_reply_json(struct evhttp_request *req, int code, json_t *doc)
{
	struct evbuffer *buf = evbuffer_new();
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (!buf || !text)
		fatal("out of memory");
	evbuffer_add(buf, text, strlen(text));
	evbuffer_add(buf, "\n", 1);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	                  "application/json");
	evhttp_send_reply(req, code, NULL, buf);
	evbuffer_free(buf);
	free(text);
	json_decref(doc);
}

void restd_reply_error(struct evhttp_request *req, int code, const char *msg, int errnum)
{
	json_t *doc = sj_response();

	sj_add_error(doc, msg, errnum);
	restd_reply_json(req, code, doc);
}
