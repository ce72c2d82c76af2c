/* arrayspec.c - parse and format job array index specifications. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/arrayspec.h"
#include "common/common.h"

static int parse_u32(const char **p, uint32_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
		s++;
	}
	*p = s;
	*ret = (uint32_t)v;
	return 0;
}

static void bit_set(struct arrayspec *a, uint32_t id)
{
	if (!(a->bits[id / 8] & (1u << (id % 8)))) {
		a->bits[id / 8] |= (uint8_t)(1u << (id % 8));
		a->count++;
	}
}

int arrayspec_parse(const char *spec, uint32_t limit, struct arrayspec *ret,
                    struct rota_error *err)
{
	struct arrayspec a = {0};
	const char *p = spec;
	uint32_t max = 0;

	if (limit > ARRAYSPEC_LIMIT)
		limit = ARRAYSPEC_LIMIT;
	if (!spec || !*spec)
		return errprintf(err, "empty array specification"), -EINVAL;
	/* first pass: syntax and the largest id, so the bitmap is sized once */
	for (int pass = 0; pass < 2; pass++) {
		p = spec;
		for (;;) {
			uint32_t lo, hi, step = 1;
			if (parse_u32(&p, &lo) < 0)
				goto bad;
			hi = lo;
			if (*p == '-') {
				p++;
				if (parse_u32(&p, &hi) < 0 || hi < lo)
					goto bad;
				if (*p == ':') {
					p++;
					if (parse_u32(&p, &step) < 0 || step == 0)
						goto bad;
				}
			}
			if (hi >= limit) {
				errprintf(err,
				          "array task id %u is not below MaxArraySize %u",
				          hi, limit);
				goto fail;
			}
			if (pass == 0 && hi > max)
				max = hi;
			for (uint64_t i = lo; pass == 1 && i <= hi; i += step)
				bit_set(&a, (uint32_t)i);
			if (*p != ',')
				break;
			p++;
		}
		if (*p == '%') {
			p++;
			if (parse_u32(&p, &a.throttle) < 0)
				goto bad;
		}
		if (*p)
			goto bad;
		if (pass == 0) {
			a.nbits = max + 1;
			a.bits = xcalloc(a.nbits / 8 + 1, 1);
		}
	}
	*ret = a;
	return 0;
bad:
	errprintf(err, "invalid array specification '%s'", spec);
fail:
	free(a.bits);
	return -EINVAL;
}

void arrayspec_release(struct arrayspec *a)
{
	if (!a)
		return;
	free(a->bits);
	memset(a, 0, sizeof(*a));
}

void arrayspec_copy(struct arrayspec *dst, const struct arrayspec *src)
{
	*dst = *src;
	dst->bits = NULL;
	if (src->bits) {
		dst->bits = xmalloc(src->nbits / 8 + 1);
		memcpy(dst->bits, src->bits, src->nbits / 8 + 1);
	}
}

int arrayspec_test(const struct arrayspec *a, uint32_t id)
{
	return a->bits && id < a->nbits && (a->bits[id / 8] & (1u << (id % 8)));
}

int arrayspec_set(struct arrayspec *a, uint32_t id)
{
	if (id >= ARRAYSPEC_LIMIT)
		return -EINVAL;
	if (arrayspec_test(a, id))
		return 0;
	if (!a->bits || id >= a->nbits) {
		/* the bitmap holds nbits / 8 + 1 bytes (arrayspec_copy) */
		size_t had = a->bits ? a->nbits / 8 + 1 : 0, need = id / 8 + 2;

		a->bits = xrealloc(a->bits, need);
		memset(a->bits + had, 0, need - had);
		a->nbits = id + 1;
	}
	bit_set(a, id);
	return 1;
}

int arrayspec_clear(struct arrayspec *a, uint32_t id)
{
	if (!arrayspec_test(a, id))
		return 0;
	a->bits[id / 8] &= (uint8_t) ~(1u << (id % 8));
	a->count--;
	return 1;
}

int64_t arrayspec_next(const struct arrayspec *a, int64_t after)
{
	uint32_t i = (uint32_t)(after + 1);

	if (!a->count)
		return -1;
	while (i < a->nbits) {
		if (!(i % 8) && !a->bits[i / 8]) {
			i += 8;
			continue;
		}
		if (a->bits[i / 8] & (1u << (i % 8)))
			return i;
		i++;
	}
	return -1;
}

int64_t arrayspec_first(const struct arrayspec *a)
{
	return arrayspec_next(a, -1);
}

int64_t arrayspec_last(const struct arrayspec *a)
{
	if (!a->count)
		return -1;
	for (int64_t i = (int64_t)a->nbits - 1; i >= 0; i--)
		if (arrayspec_test(a, (uint32_t)i))
			return i;
	return -1;
}

uint32_t arrayspec_step(const struct arrayspec *a)
{
	int64_t prev = arrayspec_first(a), cur;
	uint32_t step = 0;

	if (prev < 0)
		return 1;
	while ((cur = arrayspec_next(a, prev)) >= 0) {
		if (step && (uint32_t)(cur - prev) != step)
			return 1;
		step = (uint32_t)(cur - prev);
		prev = cur;
	}
	return step ? step : 1;
}

char *arrayspec_format(const struct arrayspec *a, int with_throttle)
{
	size_t cap = 64, len = 0;
	char *out = xmalloc(cap);
	int64_t cur = arrayspec_first(a);

	out[0] = '\0';
	while (cur >= 0) {
		int64_t nx = arrayspec_next(a, cur), last = cur, n = 1;
		int64_t step = nx >= 0 ? nx - cur : 1;

		/* extend a run with a constant step */
		while (nx >= 0 && nx - last == step) {
			last = nx;
			n++;
			nx = arrayspec_next(a, nx);
		}
		/* leave a stepped run's end to a consecutive run that follows */
		if (step > 1 && n >= 3 && nx == last + 1) {
			last -= step;
			n--;
			nx = last + step;
		}
		if (cap - len < 48) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		if (n == 1 || (n == 2 && step > 1)) {
			/* a lone id; with two ids far apart only the first is taken */
			len += (size_t)snprintf(out + len, cap - len, "%s%lld",
			                        len ? "," : "", (long long)cur);
			nx = arrayspec_next(a, cur);
		} else if (step == 1) {
			len += (size_t)snprintf(out + len, cap - len, "%s%lld-%lld",
			                        len ? "," : "", (long long)cur,
			                        (long long)last);
		} else {
			len += (size_t)snprintf(out + len, cap - len, "%s%lld-%lld:%lld",
			                        len ? "," : "", (long long)cur,
			                        (long long)last, (long long)step);
		}
		cur = nx;
	}
	if (with_throttle && a->throttle) {
		if (cap - len < 16)
			out = xrealloc(out, cap += 16);
		snprintf(out + len, cap - len, "%%%u", a->throttle);
	}
	return out;
}
