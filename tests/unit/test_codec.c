/* test_codec.c - the message codec: round trips, and refusal of malformed input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/mp.h"
#include "common/common.h"

static void test_roundtrip_job_desc(void **state)
{
	char *env[] = {"A=1", "B=two", NULL};
	struct job_desc d = {.name = "demo",
	                     .script = "#!/bin/sh\necho hi\n",
	                     .env = env,
	                     .min_nodes = 2,
	                     .mem_per_node = NO_VAL64,
	                     .time_limit = INFINITE32};
	struct job_desc out = {0};
	char *buf;
	size_t len;

	assert_int_equal(codec_encode(&job_desc_type, &d, &buf, &len), 0);
	assert_int_equal(codec_decode(&job_desc_type, buf, len, &out, NULL), 0);
	assert_string_equal(out.name, "demo");
	assert_string_equal(out.script, d.script);
	assert_null(out.partition);
	assert_int_equal(strv_len(out.env), 2);
	assert_string_equal(out.env[1], "B=two");
	assert_int_equal(out.min_nodes, 2);
	assert_true(out.mem_per_node == NO_VAL64);
	assert_int_equal(out.time_limit, INFINITE32);
	codec_release(&job_desc_type, &out);
	free(buf);
}

static void test_roundtrip_nested_list(void **state)
{
	struct job_info jobs[2] = {{.job_id = 7, .name = "a"},
	                           {.job_id = 8, .user = "u"}};
	uint32_t cpus[] = {4, 2};
	struct job_info_resp r = {.now = 123, .jobs = jobs, .jobs_count = 2};
	struct job_info_resp out = {0};
	char *buf;
	size_t len;

	jobs[1].cpus_per_node = (struct rota_u32v){cpus, 2};
	assert_int_equal(codec_encode(&job_info_resp_type, &r, &buf, &len), 0);
	assert_int_equal(codec_decode(&job_info_resp_type, buf, len, &out, NULL), 0);
	assert_int_equal(out.jobs_count, 2);
	assert_int_equal(out.jobs[0].job_id, 7);
	assert_string_equal(out.jobs[0].name, "a");
	assert_string_equal(out.jobs[1].user, "u");
	assert_int_equal(out.jobs[1].cpus_per_node.n, 2);
	assert_int_equal(out.jobs[1].cpus_per_node.v[0], 4);
	codec_release(&job_info_resp_type, &out);
	free(buf);
}

/* codec_copy gives what an encode and a decode give (every kind of field,
 * nested lists, absent and empty arrays), with nothing shared. */
static void copy_matches_roundtrip(const struct rota_type *t, const void *obj)
{
	void *copy = calloc(1, t->size), *wire = calloc(1, t->size);
	char *buf, *a, *b;
	size_t len;

	assert_int_equal(codec_copy(t, copy, obj), 0);
	assert_int_equal(codec_encode(t, obj, &buf, &len), 0);
	assert_int_equal(codec_decode(t, buf, len, wire, NULL), 0);
	a = codec_to_json(t, copy, 0);
	b = codec_to_json(t, wire, 0);
	assert_string_equal(a, b);
	/* JSON shows an absent array and an empty one alike: the pointers too */
	for (size_t i = 0; i < t->nfields; i++) {
		const struct rota_field *f = &t->fields[i];
		if (f->kind == FK_STRV || f->kind == FK_U32V || f->kind == FK_LIST ||
		    f->kind == FK_BIN)
			assert_int_equal(!*(void **)((char *)copy + f->offset),
			                 !*(void **)((char *)wire + f->offset));
	}
	codec_release(t, copy);
	codec_release(t, wire);
	free(copy);
	free(wire);
	free(buf);
	free(a);
	free(b);
}

static void test_copy_is_a_roundtrip(void **state)
{
	char *env[] = {"A=1", "B=two", NULL};
	uint32_t cpus[] = {4, 2};
	uint8_t key[] = {1, 0, 2, 3};
	struct job_desc d = {
	    .name = "demo", .env = env, .min_nodes = 2, .begin_time = -5};
	struct job_info jobs[2] = {{.job_id = 7, .name = "a"},
	                           {.job_id = 8, .user = "u"}};
	struct job_info_resp r = {.now = 123, .jobs = jobs, .jobs_count = 2};
	struct launch_req l = {.job_id = 3, .env = env, .io_key = {key, sizeof(key)}};

	jobs[1].cpus_per_node = (struct rota_u32v){cpus, 2};
	copy_matches_roundtrip(&job_desc_type, &d);
	copy_matches_roundtrip(&job_info_resp_type, &r);
	copy_matches_roundtrip(&launch_req_type, &l);
	memset(&d, 0, sizeof(d)); /* nothing set: absent arrays come back empty */
	copy_matches_roundtrip(&job_desc_type, &d);
}

static void test_truncated_body_refused(void **state)
{
	struct job_desc d = {.name = "demo", .script = "x"};
	struct job_desc out = {0};
	struct rota_error err = {""};
	char *buf;
	size_t len;

	codec_encode(&job_desc_type, &d, &buf, &len);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_not_equal(codec_decode(&job_desc_type, buf, cut, &out, &err),
		                     0);
	assert_null(out.name);
	free(buf);
}

static void test_garbage_refused(void **state)
{
	struct job_desc out = {0};
	struct rota_error err = {""};
	/* an array instead of a map; a map with a wrong-typed field; trailing bytes */
	const char arr[] = "\x92\x01\x02";
	const char wrong[] = "\x81\xa9min_nodes\xa3"
	                     "abc";
	const char trailing[] = "\x80\x00";

	assert_int_equal(codec_decode(&job_desc_type, arr, 3, &out, &err), -EPROTO);
	assert_int_equal(
	    codec_decode(&job_desc_type, wrong, sizeof(wrong) - 1, &out, &err), -EPROTO);
	assert_non_null(strstr(err.text, "min_nodes"));
	assert_int_equal(codec_decode(&job_desc_type, trailing, 2, &out, &err), -EPROTO);
	/* a negative value for an unsigned field */
	const char neg[] = "\x81\xa9min_nodes\xff";
	assert_int_equal(codec_decode(&job_desc_type, neg, sizeof(neg) - 1, &out, &err),
	                 -EPROTO);
	/* a string with an embedded NUL */
	const char nul[] = "\x81\xa4name\xa3"
	                   "a\0b";
	assert_int_equal(codec_decode(&job_desc_type, nul, sizeof(nul) - 1, &out, &err),
	                 -EPROTO);
	/* random bytes never crash */
	srand(1);
	for (int i = 0; i < 2000; i++) {
		char junk[64];
		size_t n = (size_t)(rand() % 64);
		for (size_t k = 0; k < n; k++)
			junk[k] = (char)rand();
		if (codec_decode(&job_desc_type, junk, n, &out, NULL) == 0)
			codec_release(&job_desc_type, &out);
		memset(&out, 0, sizeof(out));
	}
}

/* Declared lengths are checked against the bytes present before anything is
 * allocated: a 2^31-entry map (96 GiB of entries) in a 23-byte body. */
static void test_declared_lengths_checked(void **state)
{
	struct job_desc out = {0};
	struct rota_error err = {""};
	char body[23] = "\xdf\x80\x00\x00\x00"; /* map32 of 2^31 entries, then zeros */
	/* a job_desc whose env claims 2^20 strings in 4 bytes */
	const char env[] = "\x81\xa3"
	                   "env\xdd\x00\x10\x00\x00\xa1x\xa1y";
	/* a name claiming a 4 GiB string */
	const char str[] = "\x81\xa4name\xdb\xff\xff\xff\xf0xyz";
	/* a bin claiming more than follows, and an ext likewise */
	const char bin[] = "\x81\xa4name\xc5\x10\x00xyz";
	const char ext[] = "\x81\xa4name\xc9\x00\x00\x10\x00\x01xyz";
	/* nested: an array inside an array, both within their bytes, then a lie */
	const char nest[] = "\x81\xa3"
	                    "env\x92\x91\xa1x\xdc\xff\xff";

	assert_int_equal(codec_decode(&job_desc_type, body, sizeof(body), &out, &err),
	                 -EPROTO);
	assert_non_null(
	    strstr(err.text, "a map declares 2147483648 entries but only 18"));
	assert_int_equal(codec_decode(&job_desc_type, env, sizeof(env) - 1, &out, &err),
	                 -EPROTO);
	assert_non_null(strstr(err.text, "an array declares 1048576 entries"));
	assert_null(out.env);
	assert_int_equal(codec_decode(&job_desc_type, str, sizeof(str) - 1, &out, &err),
	                 -EPROTO);
	assert_int_equal(codec_decode(&job_desc_type, bin, sizeof(bin) - 1, &out, &err),
	                 -EPROTO);
	assert_int_equal(codec_decode(&job_desc_type, ext, sizeof(ext) - 1, &out, &err),
	                 -EPROTO);
	assert_int_equal(codec_decode(&job_desc_type, nest, sizeof(nest) - 1, &out, &err),
	                 -EPROTO);
	assert_non_null(strstr(err.text, "declares 65535 entries but only 0 bytes"));
	assert_null(out.name);
	assert_null(out.env);
}

/* A cap on values refuses a body of many tiny values before they are decoded
 * (a struct each); the same body decodes without the cap. */
static void test_value_cap(void **state)
{
	struct job_info_resp r = {0}, out = {0};
	struct job_info job = {.job_id = 1};
	uint32_t *v = xcalloc(5000, sizeof(uint32_t));
	struct rota_error err = {""};
	char *buf;
	size_t len;

	job.cpus_per_node = (struct rota_u32v){v, 5000};
	r.jobs = &job;
	r.jobs_count = 1;
	assert_int_equal(codec_encode(&job_info_resp_type, &r, &buf, &len), 0);
	assert_int_equal(
	    codec_decode_max(&job_info_resp_type, buf, len, 4096, &out, &err), -EMSGSIZE);
	assert_non_null(strstr(err.text, "more than 4096 values"));
	assert_null(out.jobs);
	assert_int_equal(
	    codec_decode_max(&job_info_resp_type, buf, len, 8192, &out, &err), 0);
	assert_int_equal(out.jobs[0].cpus_per_node.n, 5000);
	codec_release(&job_info_resp_type, &out);
	/* a submission is capped by type when it comes in a frame */
	assert_true(frame_max_values(MSG_SUBMIT_REQ) < frame_max_body(MSG_SUBMIT_REQ));
	free(buf);
	free(v);
}

/* Counts that do fit still decode: 100,000 one-byte entries in a u32 list. */
static void test_many_small_entries_decode(void **state)
{
	struct job_info_resp r = {0}, out = {0};
	struct job_info job = {.job_id = 1};
	uint32_t *v = xcalloc(100000, sizeof(uint32_t));
	char *buf;
	size_t len;

	job.cpus_per_node = (struct rota_u32v){v, 100000};
	r.jobs = &job;
	r.jobs_count = 1;
	assert_int_equal(codec_encode(&job_info_resp_type, &r, &buf, &len), 0);
	assert_int_equal(codec_decode(&job_info_resp_type, buf, len, &out, NULL), 0);
	assert_int_equal(out.jobs[0].cpus_per_node.n, 100000);
	codec_release(&job_info_resp_type, &out);
	free(buf);
	free(v);
}

/* A list item that fails half-way is released with the rest (found by
 * fuzz_journal: a job_event whose desc item had a name then a bad field). */
static void test_failed_list_item_released(void **state)
{
	struct job_info_resp out = {0};
	struct rota_error err = {""};
	const char m[] = "\x81\xa4jobs\x91\x82\xa4name\xa8leak-me!\xa6job_id\xa3"
	                 "bad";
	size_t before = mallinfo2().uordblks;

	for (int i = 0; i < 1000; i++) {
		assert_int_equal(
		    codec_decode(&job_info_resp_type, m, sizeof(m) - 1, &out, &err),
		    -EPROTO);
		assert_null(out.jobs);
		assert_int_equal(out.jobs_count, 0);
	}
	assert_non_null(strstr(err.text, "job_id"));
	/* under ASan the allocator is not glibc's: LeakSanitizer checks instead */
	assert_true(mallinfo2().uordblks < before + 1000 * 9);
}

static void test_unknown_fields_skipped(void **state)
{
	struct job_desc out = {0};
	const char m[] = "\x82\xa5newer\x05\xa4name\xa1x";

	assert_int_equal(codec_decode(&job_desc_type, m, sizeof(m) - 1, &out, NULL), 0);
	assert_string_equal(out.name, "x");
	codec_release(&job_desc_type, &out);
}

static void test_frame_header(void **state)
{
	struct rc_msg rc = {.rc = 2017, .msg = "x"};
	struct rota_error err = {""};
	uint16_t type;
	uint32_t len;
	char *buf;
	size_t flen;
	uint8_t hdr[FRAME_HDR_LEN];
	uint32_t big;

	assert_int_equal(frame_pack(MSG_RC, &rc, &buf, &flen), 0);
	assert_int_equal(frame_parse_header((uint8_t *)buf, &type, &len, &err), 0);
	assert_int_equal(type, MSG_RC);
	assert_int_equal(len, flen - FRAME_HDR_LEN);
	/* oversized */
	memcpy(hdr, buf, FRAME_HDR_LEN);
	big = htonl(FRAME_MAX_BODY + 1);
	memcpy(hdr + 8, &big, 4);
	assert_int_equal(frame_parse_header(hdr, &type, &len, &err), -EMSGSIZE);
	/* bad magic */
	memcpy(hdr, "GET ", 4);
	assert_int_equal(frame_parse_header(hdr, &type, &len, &err), -EPROTO);
	/* unknown type */
	memcpy(hdr, buf, FRAME_HDR_LEN);
	hdr[6] = 0x7f;
	assert_int_equal(frame_parse_header(hdr, &type, &len, &err), -EPROTO);
	/* wrong version */
	memcpy(hdr, buf, FRAME_HDR_LEN);
	hdr[5] = 9;
	assert_int_equal(frame_parse_header(hdr, &type, &len, &err), -EPROTO);
	free(buf);
}

static void test_json(void **state)
{
	struct submit_resp r = {.job_id = 42, .msg = NULL};
	char *s = codec_to_json(&submit_resp_type, &r, 0);
	assert_string_equal(s, "{\"job_id\": 42, \"msg\": null}");
	free(s);
}

/* The shortest form of each value, as msgpack-c and Python's msgpack write it:
 * the job credential is signed over these bytes. */
/* A map of more than 15 fields gets its shortest head (map 16) though it is
 * written after the fields: the same bytes as counting first, item by item
 * in a list, and read back whole. */
/* A request's seldom-given fields are out of line (proto/declare.h): absent,
 * they read as zero and cost no allocation, on the wire or in a copy; given,
 * they travel by name like any other. */
static void test_out_of_line_fields(void **state)
{
	struct job_desc a = {0}, b = {0}, c = {0};
	char *buf, *json;
	size_t len;

	(void)state;
	a.name = xstrdup("plain");
	a.min_nodes = 2;
	assert_int_equal(codec_encode(&job_desc_type, &a, &buf, &len), 0);
	assert_int_equal(codec_decode(&job_desc_type, buf, len, &b, NULL), 0);
	free(buf);
	assert_null(b.ext);
	assert_null(job_desc_X(&b)->comment);
	assert_int_equal(job_desc_X(&b)->priority, 0);
	assert_int_equal(codec_copy(&job_desc_type, &c, &b), 0);
	assert_null(c.ext);
	codec_release(&job_desc_type, &c);
	codec_release(&job_desc_type, &b);

	job_desc_x_mut(&a)->comment = xstrdup("a note");
	job_desc_x_mut(&a)->deadline = 1700000000;
	job_desc_x_mut(&a)->gres_flags = 7;
	assert_int_equal(codec_encode(&job_desc_type, &a, &buf, &len), 0);
	assert_int_equal(codec_decode(&job_desc_type, buf, len, &b, NULL), 0);
	free(buf);
	assert_non_null(b.ext);
	assert_string_equal(b.ext->comment, "a note");
	assert_int_equal(b.ext->deadline, 1700000000);
	assert_int_equal(b.ext->gres_flags, 7);
	assert_string_equal(b.name, "plain");
	assert_int_equal(codec_copy(&job_desc_type, &c, &b), 0);
	assert_true(c.ext && c.ext != b.ext && c.ext->comment != b.ext->comment);
	assert_string_equal(c.ext->comment, "a note");
	json = codec_to_json(&job_desc_type, &c, 0);
	assert_non_null(strstr(json, "\"comment\": \"a note\""));
	assert_non_null(strstr(json, "\"deadline\": 1700000000"));
	free(json);
	codec_release(&job_desc_type, &c);
	assert_null(c.ext);
	codec_release(&job_desc_type, &b);
	codec_release(&job_desc_type, &a);
	/* a repeated out-of-line key keeps the last value, leaking nothing */
	{
		static const char twice[] = "\x82\xa7"
		                            "comment"
		                            "\xa1"
		                            "x"
		                            "\xa7"
		                            "comment"
		                            "\xa1"
		                            "y";
		assert_int_equal(
		    codec_decode(&job_desc_type, twice, sizeof(twice) - 1, &b, NULL), 0);
		assert_string_equal(b.ext->comment, "y");
		codec_release(&job_desc_type, &b);
	}
}

static void test_map16_head(void **state)
{
	struct job_desc d[2];
	struct job_info_resp r = {0}, out = {0};
	char *buf, *one;
	size_t len, len1;
	uint32_t *u = &d[0].min_nodes;

	memset(d, 0, sizeof(d));
	/* every number field set: more than 15 entries */
	for (size_t i = 0; i < job_desc_type.nfields; i++)
		if (job_desc_type.fields[i].kind == FK_U32)
			*(uint32_t *)codec_field_mut(&job_desc_type.fields[i], &d[0]) =
			    (uint32_t)(1000 + i);
	d[0].name = xstrdup("a-name");
	d[0].mem_per_cpu = 70000;
	memset(&d[1], 0, sizeof(d[1]));
	assert_int_equal(codec_encode(&job_desc_type, &d[0], &one, &len1), 0);
	assert_int_equal((uint8_t)one[0], 0xde);
	assert_int_equal((uint8_t)one[1], 0);
	assert_true((uint8_t)one[2] > 15);
	assert_int_equal(codec_decode(&job_desc_type, one, len1, &d[1], NULL), 0);
	assert_int_equal(d[1].min_nodes, *u);
	assert_int_equal(d[1].mem_per_cpu, 70000);
	assert_string_equal(d[1].name, "a-name");
	assert_non_null(d[1].ext);
	assert_int_equal(d[1].ext->het_offset, d[0].ext->het_offset);
	codec_release(&job_desc_type, &d[1]);
	/* two such items in a list of a map */
	r.jobs = xcalloc(2, sizeof(struct job_info));
	r.jobs_count = 2;
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < job_info_type.nfields; i++)
			if (job_info_type.fields[i].kind == FK_U32)
				*(uint32_t *)((char *)&r.jobs[k] +
				              job_info_type.fields[i].offset) =
				    (uint32_t)(7 * i + k + 1);
		r.jobs[k].name = xstrdup(k ? "second" : "first");
	}
	assert_int_equal(codec_encode(&job_info_resp_type, &r, &buf, &len), 0);
	assert_int_equal(codec_decode(&job_info_resp_type, buf, len, &out, NULL), 0);
	assert_int_equal(out.jobs_count, 2);
	for (int k = 0; k < 2; k++) {
		assert_string_equal(out.jobs[k].name, k ? "second" : "first");
		assert_int_equal(out.jobs[k].job_id, r.jobs[k].job_id);
		assert_int_equal(out.jobs[k].priority, r.jobs[k].priority);
	}
	free(buf);
	free(one);
	codec_release(&job_desc_type, &d[0]);
	codec_release(&job_info_resp_type, &r);
	codec_release(&job_info_resp_type, &out);
}

static void test_canonical_bytes(void **state)
{
	static const struct {
		int64_t v;
		const char *bytes;
		size_t len;
	} ints[] = {
	    {0, "\x00", 1},
	    {127, "\x7f", 1},
	    {128, "\xcc\x80", 2},
	    {65535, "\xcd\xff\xff", 3},
	    {65536, "\xce\x00\x01\x00\x00", 5},
	    {INT64_C(1) << 32, "\xcf\x00\x00\x00\x01\x00\x00\x00\x00", 9},
	    {-1, "\xff", 1},
	    {-32, "\xe0", 1},
	    {-33, "\xd0\xdf", 2},
	    {-129, "\xd1\xff\x7f", 3},
	    {-32769, "\xd2\xff\xff\x7f\xff", 5},
	    {INT64_MIN, "\xd3\x80\x00\x00\x00\x00\x00\x00\x00", 9},
	};
	char name[300];
	struct mp_buf b = {0};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		b.len = 0;
		mp_put_int(&b, ints[i].v);
		assert_int_equal(b.len, ints[i].len);
		assert_memory_equal(b.data, ints[i].bytes, ints[i].len);
	}
	memset(name, 'x', sizeof(name));
	b.len = 0;
	mp_put_str(&b, name, 31);
	assert_int_equal((uint8_t)b.data[0], 0xbf);
	b.len = 0;
	mp_put_str(&b, name, 32);
	assert_memory_equal(b.data, "\xd9\x20", 2);
	b.len = 0;
	mp_put_str(&b, name, 256);
	assert_memory_equal(b.data, "\xda\x01\x00", 3);
	b.len = 0;
	mp_put_map(&b, 16);
	mp_put_array(&b, 15);
	mp_put_bin(&b, "", 0);
	assert_int_equal(b.len, 6);
	assert_memory_equal(b.data, "\xde\x00\x10\x9f\xc4\x00", 6);
	free(b.data);
}

/* A signed form that holds a value >= 0 is read as unsigned (msgpack-c did);
 * a value too large for its field, a float, or the unused byte 0xc1 is not. */
static void test_signed_forms_read(void **state)
{
	struct job_info out = {0};
	struct rota_error err = {""};
	const char ok[] = "\x81\xa6job_id\xd1\x01\x00";
	const char neg[] = "\x81\xa6job_id\xd0\xff";
	const char big[] = "\x81\xa6job_id\xcf\x00\x00\x00\x01\x00\x00\x00\x00";
	const char flt[] = "\x81\xa6job_id\xca\x00\x00\x00\x00";
	const char c1[] = "\x81\xa6job_id\xc1";

	assert_int_equal(codec_decode(&job_info_type, ok, sizeof(ok) - 1, &out, &err), 0);
	assert_int_equal(out.job_id, 256);
	codec_release(&job_info_type, &out);
	memset(&out, 0, sizeof(out));
	assert_int_equal(codec_decode(&job_info_type, neg, sizeof(neg) - 1, &out, &err),
	                 -EPROTO);
	assert_int_equal(codec_decode(&job_info_type, big, sizeof(big) - 1, &out, &err),
	                 -EPROTO);
	assert_non_null(strstr(err.text, "job_id"));
	assert_int_equal(codec_decode(&job_info_type, flt, sizeof(flt) - 1, &out, &err),
	                 -EPROTO);
	assert_int_equal(codec_decode(&job_info_type, c1, sizeof(c1) - 1, &out, &err),
	                 -EPROTO);
	assert_int_equal(out.job_id, 0);
}

/* An unknown field's value is stepped over however deep it nests (no
 * recursion), and the known fields around it still decode. */
static void test_deep_unknown_field_skipped(void **state)
{
	size_t depth = 200000, n = 0;
	char *buf = xmalloc(depth + 64);
	struct job_info out = {0};

	memcpy(buf + n, "\x82\xa4zzzz", 6);
	n += 6;
	memset(buf + n, 0x91, depth - 1); /* [[[...[0]...]]] */
	n += depth - 1;
	buf[n++] = 0x00;
	memcpy(buf + n, "\xa6job_id\x07", 8);
	n += 8;
	assert_int_equal(codec_decode(&job_info_type, buf, n, &out, NULL), 0);
	assert_int_equal(out.job_id, 7);
	/* cut short inside the nesting: refused */
	memset(&out, 0, sizeof(out));
	assert_int_equal(codec_decode(&job_info_type, buf, 6 + depth / 2, &out, NULL),
	                 -EPROTO);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_job_desc),
	    cmocka_unit_test(test_roundtrip_nested_list),
	    cmocka_unit_test(test_copy_is_a_roundtrip),
	    cmocka_unit_test(test_truncated_body_refused),
	    cmocka_unit_test(test_garbage_refused),
	    cmocka_unit_test(test_declared_lengths_checked),
	    cmocka_unit_test(test_many_small_entries_decode),
	    cmocka_unit_test(test_value_cap),
	    cmocka_unit_test(test_failed_list_item_released),
	    cmocka_unit_test(test_unknown_fields_skipped),
	    cmocka_unit_test(test_frame_header),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_canonical_bytes),
	    cmocka_unit_test(test_map16_head),
	    cmocka_unit_test(test_out_of_line_fields),
	    cmocka_unit_test(test_signed_forms_read),
	    cmocka_unit_test(test_deep_unknown_field_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
