/* entropy.h - unpredictable bytes from the kernel (getrandom), for nonces,
 * credential ids and one-time keys. */
#ifndef ROTA_ENTROPY_H
#define ROTA_ENTROPY_H

#include <stddef.h>

/* Fill buf[0..len) from the kernel's random source; 0, or -errno. */
int entropy_fill(void *buf, size_t len);

#endif
