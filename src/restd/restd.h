/* restd.h - rotarestd: Slurm's REST API (slurmrestd's paths and documents)
 * over HTTP, on a unix socket (the peer's uid is the user) and on TCP (the
 * user is the one a JWT names, AuthAltTypes=auth/jwt).  Each request is
 * relayed to the controller on a connection that acts for that user
 * (MSG_ACT_AS, ctld/caller.h): a user can do over REST what the CLI lets
 * them do, and no more. */
#ifndef ROTA_RESTD_H
#define ROTA_RESTD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct conf;
struct auth;
struct event_base;
struct evhttp;
struct evhttp_request;

#define RESTD_MAX_BODY    (1 << 20) /* a request's body */
#define RESTD_MAX_HEADERS (16 << 10)
#define RESTD_TIMEOUT     30   /* seconds a client has to send its request */
#define RESTD_CTLD_WAIT   60   /* seconds the controller has to answer */
#define RESTD_MAX_CALLS   1024 /* requests waiting on the controller */
#define RESTD_MAX_CONNS   512  /* clients at a time (-c) */
#define RESTD_MAX_LISTEN  8

struct restd {
	const struct conf *conf;
	struct event_base *base;
	struct evhttp *http;
	struct auth *auth; /* to the controller over TCP, when not on its host */
	uint8_t *jwt_key;  /* AuthAltParameters jwt_key; NULL: no HS256 */
	size_t jwt_keylen;
	struct jwks *jwks;      /* AuthAltParameters jwks (jwks.c); NULL: no RS256 */
	char *user_claim;       /* userclaimfield; NULL: "sun" */
	struct relay *relays;   /* calls waiting on the controller (relay.c) */
	struct reader *readers; /* job outputs being read (output.c) */
	unsigned nrelays;
	unsigned timeout; /* seconds to send a whole request (-T) */
	struct evhttp_bound_socket *bound[RESTD_MAX_LISTEN];
	int nbound;
	struct rconn *conns; /* clients connected (conns.c) */
	unsigned nconns, max_conns;
	struct event *sweep;
	/* inetd mode (inetd.c): one client on stdin and stdout */
	int inetd;
	int inetd_local; /* inetd_cred says who asks (else: a token) */
	struct ucred inetd_cred;
	struct evhttp_bound_socket *inetd_bound; /* the private listener */
	struct inetd *inetd_state;
	struct sdb_call *sdb_calls; /* slurmdb requests being answered */
	struct history *history;    /* the last day's samples (history.c) */
	unsigned history_step;      /* seconds between them (-S) */
	/* HTTPS (tls.c): the certificate, when there is one; the TCP ports
	 * of https:// listeners, which take nothing but TLS */
	struct ssl_ctx_st *tls_ctx;
	uint16_t https_ports[RESTD_MAX_LISTEN];
	int nhttps;
};

/* Who asks: the peer of a unix socket, or the user a token names. */
struct rest_user {
	uid_t uid;
	gid_t gid;
	char name[64];
};

/* Authenticate req (who.c).  0 and *u; or an HTTP status (401, 403) with
 * *why in words. */
int restd_who(struct restd *r, struct evhttp_request *req, struct rest_user *u,
              const char **why);

/* What the controller answered (relay.c): rc 0 and the reply (type, body,
 * owned by the callee, which may keep it by setting *body NULL), or rc
 * Slurm's error number (ESLURM_*, or SLURM_ERROR) with msg (may be NULL). */
typedef void (*relay_done_f)(void *arg, int rc, const char *msg, uint16_t type,
                             void **body);

/* Send request (type, body: msg_body_new'd, taken) to the controller as u;
 * done is called once, later, in the loop.  -1 when it cannot even start
 * (too many waiting, no controller): done is not called then. */
int relay_call(struct restd *r, const struct rest_user *u, uint16_t type, void *body,
               relay_done_f done, void *arg);

/* At exit: every call still waiting gets done(SLURM_ERROR). */
void relay_stop_all(struct restd *r);

/* The versions of Slurm's slurm plugin served: their paths are the same,
 * their documents and request bodies are not. */
enum rest_api { API_V38, API_V44 };
#define SLURM38 "/slurm/v0.0.38/"
#define SLURM44 "/slurm/v0.0.44/"

/* POST job/submit's body as a submission for u (submit.c): 0 and *ret
 * (msg_body_new'd), or Slurm's error number with *why. */
struct job_desc;
int restd_submit_desc(const char *body, size_t len, const struct rest_user *u,
                      enum rest_api api, struct job_desc **ret, const char **why);

/* POST job/{id} and node/{name} bodies as scontrol update's requests
 * (update.c): 0 and *ret, or Slurm's error number with *why. */
struct job_update_req;
struct node_update_req;
int restd_job_update(const char *body, size_t len, uint32_t job_id, enum rest_api api,
                     struct job_update_req **ret, const char **why);
int restd_node_update(const char *body, size_t len, const char *name, enum rest_api api,
                      struct node_update_req **ret, const char **why);

/* A v0.0.44 job_desc_msg (obj) rewritten in place in the v0.0.38 form the
 * mappings above take (body44.c); restd_body44_submission does it to a
 * submission's "job", whose "script" may stand for the top-level one.  0,
 * or Slurm's error number with *why. */
struct json_t;
int restd_body44(struct json_t *obj, const char **why);
int restd_body44_submission(struct json_t *root, const char **why);

/* A request on the slurm plugin's paths, waiting on the controller
 * (routes.c). */
enum rest_what {
	W_PING,
	W_DIAG,
	W_JOBS,
	W_JOB,
	W_JOB_CANCEL,
	W_UPDATE,
	W_SUBMIT,
	W_NODES,
	W_NODE,
	W_PARTS,
	W_PART,
	W_JOBS_STATE, /* v0.0.44 alone (paths44.c) */
	W_SHARES,
	W_RECONFIGURE,
	W_LICENSES,
	W_RESVS,
	W_RESV
};
struct rest_call {
	struct restd *r;
	struct evhttp_request *req;
	enum rest_what what;
	enum rest_api api;
	struct rest_user u;
	uint32_t job_id; /* W_UPDATE of a job (0: of a node) */
	char name[128];  /* W_NODE, W_PART: which one */
	double start;    /* time_mono() when it was sent (W_PING's latency) */
};

/* v0.0.44's documents (slurm44.c): the response head for u (NULL: not known
 * yet), and with last_backfill and last_update for a listing of jobs; the
 * answer to c from the controller's reply (type, body: as relay_done_f has
 * them), jobs aside; an error in v0.0.44's shape. */
struct job_info_resp;
struct json_t *restd_response44(struct restd *r, struct evhttp_request *req,
                                const struct rest_user *u);
struct json_t *restd_db_response44(struct restd *r, struct evhttp_request *req,
                                   const struct rest_user *u);
struct json_t *restd_jobs_head44(struct rest_call *c, const struct job_info_resp *resp);
void restd_answer44(struct rest_call *c, uint16_t type, void **body);

/* The paths v0.0.44 has and v0.0.38 has not (paths44.c): for path (what
 * follows "/slurm/v0.0.44/"), -1 when it is not one of them; else 0 and the
 * request to relay in *type and *body, or an HTTP error code with Slurm's
 * words and number.  restd_payload44 adds their controller's answers to doc. */
int restd_parse44(struct rest_call *c, const char *path, uint16_t *type, void **body,
                  const char **why, int *errnum);
void restd_payload44(struct rest_call *c, struct json_t *doc, uint16_t type, void *body);
/* v0.0.44_license items of the controller's licenses. */
struct lic_info_resp;
struct json_t *restd_licenses44(const struct lic_info_resp *r);
/* v0.0.44_reservation_info items of the controller's reservations. */
struct resv_info_resp;
struct json_t *restd_resvs44(const struct resv_info_resp *r);

/* The request's body, NUL-terminated (malloc'd); its length in *len
 * (routes.c). */
char *restd_body(struct evhttp_request *req, size_t *len);
void restd_reply_error44(struct restd *r, struct evhttp_request *req,
                         const struct rest_user *u, int code, const char *msg,
                         int errnum);

/* GET /rota/v1/job/{id}/output (output.c): the last tail bytes of a batch
 * job's output, for its owner; restd_output_stop answers those still being
 * read at exit. */
#define RESTD_TAIL_DEFAULT (16 << 10)
#define RESTD_TAIL_MAX     (1 << 20)
void restd_output(struct restd *r, struct evhttp_request *req, const struct rest_user *u,
                  uint32_t job_id, size_t tail);
void restd_output_stop(struct restd *r);

/* The slurmdb paths (slurmdb.c), v0.0.38's and v0.0.44's: path is what
 * follows "/slurmdb/v0.0.38/" ("jobs", "user/bob"); restd_slurmdb_stop
 * answers those still waiting at exit.  A document's head in api's shape
 * for u (v0.0.44's meta names the slurmdbd plugin), and an error added to
 * one. */
#define DB38 "/slurmdb/v0.0.38/"
#define DB44 "/slurmdb/v0.0.44/"
void restd_slurmdb(struct restd *r, struct evhttp_request *req, const struct rest_user *u,
                   enum rest_api api, const char *path);
void restd_slurmdb_stop(struct restd *r);
struct json_t *restd_sdb_head(struct restd *r, struct evhttp_request *req,
                              const struct rest_user *u, enum rest_api api);
void restd_sdb_error(struct json_t *doc, enum rest_api api, const char *msg, int errnum);
/* Its POST and DELETE (slurmdb_write.c): sacctmgr's requests as the user;
 * qs: the query's parameters. */
struct evkeyvalq;
void restd_slurmdb_write(struct restd *r, struct evhttp_request *req,
                         const struct rest_user *u, enum rest_api api, const char *path,
                         const struct evkeyvalq *qs);

/* The last day's use of the cluster (history.c): a sample every step
 * seconds (the first at once); GET /rota/v1/history's document. */
#define RESTD_HISTORY_STEP 60
void restd_history_init(struct restd *r, unsigned step);
void restd_history_stop(struct restd *r);
struct json_t *restd_history_doc(struct restd *r);

/* The GPUs in a GRES list: "gpu:2", "gpu:h100:1(IDX:0),nic:1" -> 3. */
uint64_t restd_gpus_in(const char *gres);

/* GET /metrics (metrics.c): Prometheus' text format, as u sees the cluster. */
void restd_metrics(struct restd *r, struct evhttp_request *req,
                   const struct rest_user *u);

/* GET /openapi/v3 (openapi.c): 1 when path is the document's and it was
 * answered, 0 otherwise. */
int restd_openapi(struct restd *r, struct evhttp_request *req, const char *path);

/* Answer req with doc (taken), or with errors[] holding msg and Slurm's
 * error number errnum (reply.c). */
void restd_reply_json(struct evhttp_request *req, int code, struct json_t *doc);
void restd_reply_error(struct evhttp_request *req, int code, const char *msg, int errnum);

/* Connections (conns.c): at most max_conns at a time, and none slower
 * than timeout to send a request.  restd_conn_request counts a request as
 * being answered until its answer is sent; restd_conns_idle is 1 when no
 * connection has a request or bytes in or out. */
void restd_conns_init(struct restd *r);
void restd_conn_request(struct restd *r, struct evhttp_request *req);
int restd_conns_idle(struct restd *r);
void restd_conns_stop(struct restd *r);

/* HTTPS (tls.c).  restd_tls_init loads TLSParameters' certificate and key
 * when they are there (required: https:// was asked for, so they must
 * be): 0, or -1 with err.  A connection's TLS runs over memory: read moves
 * ciphertext from src, puts plaintext in dst and what OpenSSL answers the
 * peer in out (the plaintext's length, or -1: the connection must end);
 * write encrypts src into dst (0 or -1). */
struct rota_error;
struct evbuffer;
struct tls_conn;
int restd_tls_init(struct restd *r, int required, struct rota_error *err);
void restd_tls_stop(struct restd *r);
struct tls_conn *tls_conn_new(struct restd *r);
void tls_conn_free(struct tls_conn *t);
int tls_conn_read(struct tls_conn *t, struct evbuffer *src, struct evbuffer *dst,
                  struct evbuffer *out);
int tls_conn_write(struct tls_conn *t, struct evbuffer *src, struct evbuffer *dst);

/* RS256 tokens (jwks.c): the JWKS file's RSA keys; a parsed token's
 * signature checked under them (0, or -1 with err). */
struct jwt_parts;
int restd_jwks_load(struct restd *r, const char *path, struct rota_error *err);
void restd_jwks_free(struct restd *r);
int restd_jwks_check(struct restd *r, const char *token, const struct jwt_parts *p,
                     struct rota_error *err);

/* Inetd mode (inetd.c): serve the client on fds 0 and 1; the loop stops
 * when it has gone.  -1 after logging why. */
int restd_inetd(struct restd *r);
void restd_inetd_stop(struct restd *r);

/* The HTTP side (routes.c): every request goes through here. */
void restd_route(struct evhttp_request *req, void *arg);

#endif
