/* test_sha256.c - SHA-256 against FIPS 180-4's examples and HMAC-SHA-256
 * against RFC 4231's test cases (src/common/sha256.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/sha256.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha(const void *data, size_t len, const char *want)
{
	uint8_t md[SHA256_LEN];
	char got[2 * SHA256_LEN + 1];

	sha256(data, len, md);
	hex(md, sizeof(md), got);
	assert_string_equal(got, want);
}

static void test_sha256_fips(void **state)
{
	check_sha("", 0,
	          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abc", 3,
	          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmn"
	          "opjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	          112,
	          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* A million 'a', fed in pieces that straddle the 64-byte blocks. */
static void test_sha256_pieces(void **state)
{
	static const char want[] =
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	char *a = malloc(1000000);
	uint8_t md[SHA256_LEN];
	char got[2 * SHA256_LEN + 1];
	struct sha256 c;
	size_t off = 0, step = 1;

	memset(a, 'a', 1000000);
	check_sha(a, 1000000, want);
	sha256_init(&c);
	while (off < 1000000) {
		size_t n = step < 1000000 - off ? step : 1000000 - off;
		sha256_update(&c, a + off, n);
		off += n;
		step = step * 3 % 191 + 1;
	}
	sha256_final(&c, md);
	hex(md, sizeof(md), got);
	assert_string_equal(got, want);
	/* the padding boundary: 55, 56 and 64 bytes */
	check_sha(a, 55,
	          "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_sha(a, 56,
	          "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_sha(a, 64,
	          "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	free(a);
}

static void check_hmac(const void *key, size_t klen, const void *data, size_t len,
                       const char *want)
{
	uint8_t mac[SHA256_LEN];
	char got[2 * SHA256_LEN + 1];

	hmac_sha256(key, klen, data, len, mac);
	hex(mac, sizeof(mac), got);
	assert_string_equal(got, want);
}

static void test_hmac_rfc4231(void **state)
{
	uint8_t k20[20], k131[131], d50[50];

	memset(k20, 0x0b, sizeof(k20));
	check_hmac(k20, 20, "Hi There", 8,
	           "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac("Jefe", 4, "what do ya want for nothing?", 28,
	           "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k20, 0xaa, sizeof(k20));
	memset(d50, 0xdd, sizeof(d50));
	check_hmac(k20, 20, d50, 50,
	           "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	/* keys longer than a block are hashed first */
	memset(k131, 0xaa, sizeof(k131));
	check_hmac(k131, 131, "Test Using Larger Than Block-Size Key - Hash Key First",
	           54,
	           "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void test_ct_equal(void **state)
{
	assert_true(ct_equal("abcd", "abcd", 4));
	assert_false(ct_equal("abcd", "abce", 4));
	assert_false(ct_equal("xbcd", "abcd", 4));
	assert_true(ct_equal("", "", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256_fips),
	    cmocka_unit_test(test_sha256_pieces),
	    cmocka_unit_test(test_hmac_rfc4231),
	    cmocka_unit_test(test_ct_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
