/* pmi_kvs.h - a PMI key-value space: what a step's tasks put (PMI_KVS_Put,
 * PMI2_KVS_Put) and read after a fence, and the byte form in which each
 * node's puts travel through srun to every node (MSG_PMI_FENCE).
 *
 * The byte form is a run of records {u32 key length, key, u32 value length,
 * value}, little-endian, so that the nodes' runs concatenated are one run.
 * Keys and values are text without NUL bytes, at most PMI_KVS_KEY_MAX and
 * PMI_KVS_VAL_MAX bytes; a space holds at most PMI_KVS_BYTES_MAX bytes of
 * keys and values.
 */
#ifndef ROTA_STEPD_PMI_KVS_H
#define ROTA_STEPD_PMI_KVS_H

#include <stddef.h>
#include <stdint.h>

#define PMI_KVS_KEY_MAX   64
#define PMI_KVS_VAL_MAX   1024
#define PMI_KVS_BYTES_MAX (48u << 20)

struct pmi_kvs;

struct pmi_kvs *pmi_kvs_create(void);
void pmi_kvs_destroy(struct pmi_kvs *kvs); /* NULL allowed */
/* Forget every key. */
void pmi_kvs_clear(struct pmi_kvs *kvs);
size_t pmi_kvs_count(const struct pmi_kvs *kvs);

/* Set key to val (copied; an earlier value is replaced).  Returns 0, or -1
 * when the key or value is too long or the space is full. */
int pmi_kvs_put(struct pmi_kvs *kvs, const char *key, const char *val);
/* The value of key (borrowed until the next put or clear), or NULL. */
const char *pmi_kvs_get(const struct pmi_kvs *kvs, const char *key);

/* The byte form of every key: *ret (caller frees) and *ret_len. */
void pmi_kvs_encode(const struct pmi_kvs *kvs, uint8_t **ret, size_t *ret_len);
/* Put every record of a byte form.  Returns the records read, or -1 when it
 * is malformed or does not fit (what came before stays put). */
long pmi_kvs_decode(struct pmi_kvs *kvs, const uint8_t *p, size_t n);

#endif
