/* test_cred.c - the controller's proof (proto/auth.h) and job credentials
 * (proto/cred.h): sign and check, tampering, wrong node, wrong key, expiry,
 * the replay cache. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/conf.h"
#include "proto/auth.h"
#include "proto/cred.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "common/common.h"

#define NOW 1800000000

struct fixture {
	char dir[64];
	struct conf *conf, *conf2;
	struct auth *auth, *other; /* other: a different key */
};

static struct conf *conf_with(const char *dir, const char *key, const char *extra)
{
	struct rota_error err = {""};
	struct conf *c = NULL;
	char *text = xasprintf("ClusterName=t\nSlurmctldHost=h\n"
	                       "AuthType=auth/slurm\nAuthInfo=key=%s/%s%s\n"
	                       "NodeName=n[1-2] CPUs=2\nPartitionName=p Nodes=n[1-2]\n",
	                       dir, key, extra);
	if (conf_load_string(text, "test.conf", &c, &err))
		fail_msg("conf: %s", err.text);
	free(text);
	return c;
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct rota_error err = {""};
	char *k1, *k2;

	snprintf(f->dir, sizeof(f->dir), "/tmp/rota-test-cred-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	k1 = xasprintf("%s/a.key", f->dir);
	k2 = xasprintf("%s/b.key", f->dir);
	assert_int_equal(auth_key_generate(k1, &err), 0);
	assert_int_equal(auth_key_generate(k2, &err), 0);
	f->conf = conf_with(f->dir, "a.key", ",cred_expire=60");
	f->conf2 = conf_with(f->dir, "b.key", "");
	assert_int_equal(auth_create(f->conf, AUTH_NEED_KEY, &f->auth, &err), 0);
	assert_int_equal(auth_create(f->conf2, AUTH_NEED_KEY, &f->other, &err), 0);
	assert_int_equal(auth_cred_lifetime(f->auth), 60);
	assert_int_equal(auth_cred_lifetime(f->other), AUTH_CRED_EXPIRE_DEFAULT);
	unlink(k1);
	unlink(k2);
	free(k1);
	free(k2);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	auth_destroy(f->auth);
	auth_destroy(f->other);
	conf_destroy(f->conf);
	conf_destroy(f->conf2);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A signed launch for n1, as it arrives: encoded and decoded. */
static struct launch_req *signed_launch(struct auth *auth)
{
	char *env[] = {"PATH=/bin", NULL};
	uint32_t cpus[] = {2}, cores[] = {0, 1};
	struct launch_req l = {.job_id = 7,
	                       .step_id = STEP_BATCH,
	                       .uid = 1000,
	                       .gid = 1000,
	                       .user = "alice",
	                       .node_name = "n1",
	                       .script = "#!/bin/sh\ntrue\n",
	                       .env = env,
	                       .job_nodes = "n1",
	                       .job_cpus_per_node = {cpus, 1},
	                       .cores = {cores, 2},
	                       .start_time = NOW - 1};
	struct launch_req *out = NULL;
	struct rota_error err = {""};
	char *buf;
	size_t len;

	assert_int_equal(cred_sign(auth, &l, NOW, &err), 0);
	assert_true(l.cred_expire == NOW + auth_cred_lifetime(auth));
	assert_int_equal(l.cred_sig.len, 32);
	assert_int_equal(frame_pack(MSG_LAUNCH_REQ, &l, &buf, &len), 0);
	assert_int_equal(frame_decode_body(MSG_LAUNCH_REQ, buf + FRAME_HDR_LEN,
	                                   len - FRAME_HDR_LEN, (void **)&out, &err),
	                 0);
	free(buf);
	free(l.cred_sig.data);
	return out;
}

static void test_sign_check(void **state)
{
	struct fixture *f = *state;
	struct launch_req *l = signed_launch(f->auth);
	struct rota_error err = {""};

	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), 0);
	assert_int_equal(cred_check(f->auth, l, NULL, NOW + 60, 0, &err), 0);
	/* rotad sets node_flags for its stepd: not covered */
	l->node_flags = LAUNCH_NF_PROLOG;
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), 0);
	msg_body_free(MSG_LAUNCH_REQ, l);
}

static void test_tampered(void **state)
{
	struct fixture *f = *state;
	struct launch_req *l = signed_launch(f->auth);
	struct rota_error err = {""};

	l->uid = 0;
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	assert_string_equal(err.text, "bad signature");
	l->uid = 1000;
	l->script[10] = 'X';
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	l->script[10] = 't';
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), 0);
	l->cred_expire += 3600; /* a longer life */
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	l->cred_expire -= 3600;
	l->cores.v[1] = 5;
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	l->cores.v[1] = 1;
	l->env = strv_append(l->env, "LD_PRELOAD=/tmp/x.so");
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	msg_body_free(MSG_LAUNCH_REQ, l);
}

static void test_missing_or_other_key(void **state)
{
	struct fixture *f = *state;
	struct launch_req *l = signed_launch(f->other);
	struct rota_error err = {""};

	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	free(l->cred_sig.data);
	l->cred_sig = (struct rota_bin){0};
	assert_int_equal(cred_check(f->auth, l, "n1", NOW, 0, &err), -EKEYREJECTED);
	assert_string_equal(err.text, "missing");
	msg_body_free(MSG_LAUNCH_REQ, l);
}

static void test_wrong_node_and_expired(void **state)
{
	struct fixture *f = *state;
	struct launch_req *l = signed_launch(f->auth);
	struct rota_error err = {""};

	assert_int_equal(cred_check(f->auth, l, "n2", NOW, 0, &err), -EXDEV);
	assert_string_equal(err.text, "for node n1");
	assert_int_equal(cred_check(f->auth, l, "n1", NOW + 61, 0, &err), -EKEYEXPIRED);
	assert_string_equal(err.text, "expired 1 s ago");
	msg_body_free(MSG_LAUNCH_REQ, l);
}

static void test_replay_cache(void **state)
{
	struct fixture *f = *state;
	struct launch_req *a = signed_launch(f->auth), *b = signed_launch(f->auth);
	struct cred_cache *cc = cred_cache_create();

	/* the same launch signed twice is two credentials (cred_id) */
	assert_memory_not_equal(a->cred_sig.data, b->cred_sig.data, 32);
	assert_int_equal(cred_cache_add(cc, a, NOW), 0);
	assert_int_equal(cred_cache_add(cc, a, NOW + 1), -EEXIST);
	assert_int_equal(cred_cache_add(cc, b, NOW + 1), 0);
	assert_int_equal(cred_cache_add(cc, b, NOW + 60), -EEXIST);
	assert_int_equal(cred_cache_count(cc), 2);
	/* forgotten once expired (cred_check refuses them by then) */
	assert_int_equal(cred_cache_add(cc, a, NOW + 61), 0);
	assert_int_equal(cred_cache_count(cc), 1);
	cred_cache_destroy(cc);
	msg_body_free(MSG_LAUNCH_REQ, a);
	msg_body_free(MSG_LAUNCH_REQ, b);
}

static void test_replay_cache_persists(void **state)
{
	struct fixture *f = *state;
	struct launch_req *a = signed_launch(f->auth);
	struct rota_error err = {""};
	char *path = xasprintf("%s/cred_state", f->dir);
	char *bad = xasprintf("%s/no/such/dir/cred_state", f->dir);
	struct cred_cache *cc = cred_cache_create();
	FILE *fp;

	assert_int_equal(cred_cache_persist(cc, path, NOW, &err), 0);
	assert_int_equal(cred_cache_add(cc, a, NOW), 0);
	cred_cache_destroy(cc);
	/* a restarted rotad still knows it... */
	cc = cred_cache_create();
	assert_int_equal(cred_cache_persist(cc, path, NOW + 1, &err), 0);
	assert_int_equal(cred_cache_count(cc), 1);
	assert_int_equal(cred_cache_add(cc, a, NOW + 1), -EEXIST);
	cred_cache_destroy(cc);
	/* ...a torn record at the end is left out... */
	fp = fopen(path, "a");
	assert_non_null(fp);
	fputs("torn", fp);
	fclose(fp);
	cc = cred_cache_create();
	assert_int_equal(cred_cache_persist(cc, path, NOW + 2, &err), 0);
	assert_int_equal(cred_cache_count(cc), 1);
	cred_cache_destroy(cc);
	/* ...and it is forgotten once expired */
	cc = cred_cache_create();
	assert_int_equal(cred_cache_persist(cc, path, NOW + 61, &err), 0);
	assert_int_equal(cred_cache_count(cc), 0);
	assert_int_equal(cred_cache_add(cc, a, NOW + 61), 0);
	cred_cache_destroy(cc);
	/* no file: memory only, and said so */
	cc = cred_cache_create();
	assert_true(cred_cache_persist(cc, bad, NOW, &err) < 0);
	assert_non_null(strstr(err.text, "cannot write"));
	assert_int_equal(cred_cache_add(cc, a, NOW), 0);
	assert_int_equal(cred_cache_add(cc, a, NOW), -EEXIST);
	cred_cache_destroy(cc);
	unlink(path);
	free(path);
	free(bad);
	msg_body_free(MSG_LAUNCH_REQ, a);
}

static void test_controller_proof(void **state)
{
	struct fixture *f = *state;
	struct auth_challenge ch = {0}, ch2 = {0};
	struct auth_response resp = {0};
	struct auth_proof proof = {0}, fake = {0};
	struct rota_error err = {""};
	uid_t uid;
	gid_t gid;

	auth_challenge_make(f->auth, &ch);
	assert_int_equal(auth_respond(f->auth, &ch, "n1", &resp, &err), 0);
	assert_int_equal(resp.nonce.len, 32);
	assert_int_equal(auth_verify(f->auth, &ch, &resp, &uid, &gid, &err), 0);
	assert_int_equal(auth_proof_make(f->auth, &ch, &resp, &proof, &err), 0);
	assert_int_equal(auth_proof_check(f->auth, &ch, &resp, &proof, &err), 0);
	/* a proof for another session (other challenge) does not pass */
	auth_challenge_make(f->auth, &ch2);
	assert_int_equal(auth_proof_check(f->auth, &ch2, &resp, &proof, &err), -1);
	/* nor one made with another key */
	codec_release(&auth_proof_type, &proof);
	assert_int_equal(auth_proof_make(f->other, &ch, &resp, &proof, &err), 0);
	assert_int_equal(auth_proof_check(f->auth, &ch, &resp, &proof, &err), -1);
	assert_string_equal(err.text, "bad signature");
	/* nor the node's own answer handed back */
	fake.mac = resp.mac;
	assert_int_equal(auth_proof_check(f->auth, &ch, &resp, &fake, &err), -1);
	/* nor nothing */
	fake.mac = (struct rota_bin){0};
	assert_int_equal(auth_proof_check(f->auth, &ch, &resp, &fake, &err), -1);
	codec_release(&auth_proof_type, &proof);
	codec_release(&auth_response_type, &resp);
	codec_release(&auth_challenge_type, &ch);
	codec_release(&auth_challenge_type, &ch2);
}

static void test_bad_cred_expire(void **state)
{
	struct fixture *f = *state;
	struct rota_error err = {""};
	struct auth *a = NULL;
	struct conf *c = conf_with(f->dir, "a.key", ",cred_expire=soon");

	assert_int_equal(auth_create(c, 0, &a, &err), -EINVAL);
	assert_null(a);
	assert_non_null(strstr(err.text, "cred_expire=soon"));
	conf_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sign_check),
	    cmocka_unit_test(test_tampered),
	    cmocka_unit_test(test_missing_or_other_key),
	    cmocka_unit_test(test_wrong_node_and_expired),
	    cmocka_unit_test(test_replay_cache),
	    cmocka_unit_test(test_replay_cache_persists),
	    cmocka_unit_test(test_controller_proof),
	    cmocka_unit_test(test_bad_cred_expire),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
