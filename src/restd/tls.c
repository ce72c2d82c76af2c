/* tls.c - HTTPS (restd.h): rotarestd's certificate and key from slurm.conf's
 * TLSParameters (restd_cert_file, restd_cert_key_file; Slurm's defaults
 * beside slurm.conf), and OpenSSL run over memory buffers for one
 * connection, so that the connection's filter (conns.c) can tell TLS from
 * plain HTTP by its first byte, as slurmrestd does, and decrypt in place. */
#include <event2/buffer.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "restd/restd.h"
#include "common/common.h"

#define TLS_CHUNK (16 << 10)

struct tls_conn {
	SSL *ssl;
	BIO *rbio, *wbio; /* what came from the peer; what goes to it */
};

static void ssl_error(struct rota_error *err, const char *what, const char *path)
{
	char text[256];

	ERR_error_string_n(ERR_get_error(), text, sizeof(text));
	errprintf(err, "%s %s: %s", what, path, text);
}

int restd_tls_init(struct restd *r, int required, struct rota_error *err)
{
	char *cert = conf_tls_file(r->conf, "restd_cert_file", "restd_cert.pem");
	char *key = conf_tls_file(r->conf, "restd_cert_key_file", "restd_cert_key.pem");
	SSL_CTX *ctx = NULL;
	int rc = -1;

	if (access(cert, F_OK) < 0 && access(key, F_OK) < 0) {
		if (required)
			errprintf(err,
			          "https:// needs a certificate: TLSParameters="
			          "restd_cert_file=PATH,restd_cert_key_file=PATH (%s not "
			          "found)",
			          cert);
		else
			rc = 0; /* plain HTTP only */
		goto out;
	}
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx) {
		ssl_error(err, "TLS:", "cannot start");
		goto out;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
		ssl_error(err, "TLS certificate", cert);
		goto out;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
		ssl_error(err, "TLS key", key);
		goto out;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		errprintf(err, "TLS: %s is not the key of %s", key, cert);
		goto out;
	}
	r->tls_ctx = ctx;
	ctx = NULL;
	log_info("HTTPS with %s", cert);
	rc = 0;
out:
	SSL_CTX_free(ctx);
	free(cert);
	free(key);
	return rc;
}

void restd_tls_stop(struct restd *r)
{
	SSL_CTX_free(r->tls_ctx);
	r->tls_ctx = NULL;
}

struct tls_conn *tls_conn_new(struct restd *r)
{
	struct tls_conn *t = xcalloc(1, sizeof(*t));

	t->ssl = SSL_new(r->tls_ctx);
	t->rbio = BIO_new(BIO_s_mem());
	t->wbio = BIO_new(BIO_s_mem());
	if (!t->ssl || !t->rbio || !t->wbio)
		fatal("out of memory");
	SSL_set_bio(t->ssl, t->rbio, t->wbio); /* the SSL owns them */
	SSL_set_accept_state(t->ssl);
	return t;
}

void tls_conn_free(struct tls_conn *t)
{
	if (!t)
		return;
	SSL_free(t->ssl);
	free(t);
}

/* What OpenSSL has for the peer, into out. */
static void drain_wbio(struct tls_conn *t, struct evbuffer *out)
{
	char buf[TLS_CHUNK];
	int n;

	while ((n = BIO_read(t->wbio, buf, sizeof(buf))) > 0)
		evbuffer_add(out, buf, (size_t)n);
}

int tls_conn_read(struct tls_conn *t, struct evbuffer *src, struct evbuffer *dst,
                  struct evbuffer *out)
{
	char buf[TLS_CHUNK];
	int n, produced = 0;

	while (evbuffer_get_length(src)) {
		n = evbuffer_remove(src, buf, sizeof(buf));
		if (n <= 0 || BIO_write(t->rbio, buf, n) != n)
			return -1;
	}
	for (;;) {
		n = SSL_read(t->ssl, buf, sizeof(buf));
		if (n > 0) {
			evbuffer_add(dst, buf, (size_t)n);
			produced += n;
			continue;
		}
		switch (SSL_get_error(t->ssl, n)) {
		case SSL_ERROR_WANT_READ:
		case SSL_ERROR_ZERO_RETURN: /* close_notify: the socket's end follows */
			drain_wbio(t, out);
			return produced;
		default:
			log_debug("TLS: %s", ERR_reason_error_string(ERR_get_error()));
			ERR_clear_error();
			drain_wbio(t, out); /* the alert, if any */
			return -1;
		}
	}
}

int tls_conn_write(struct tls_conn *t, struct evbuffer *src, struct evbuffer *dst)
{
	char buf[TLS_CHUNK];
	ev_ssize_t len;

	while ((len = evbuffer_copyout(src, buf, sizeof(buf))) > 0) {
		int n = SSL_write(t->ssl, buf, (int)len);
		if (n <= 0) {
			ERR_clear_error();
			return -1;
		}
		evbuffer_drain(src, (size_t)n);
		drain_wbio(t, dst);
	}
	return 0;
}
