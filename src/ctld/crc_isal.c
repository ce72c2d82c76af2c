/* crc_isal.c - the controller's CRC-32 for its journal and state image:
 * ISA-L's (the CPU's carry-less multiply, 8 times zlib's speed here; a
 * restart checks every record).  It overrides the weak zlib one of
 * common/recframe.c, so that the CLI and rotadbd start without libisal. */
#include <isa-l/crc.h>
#include "common/recframe.h"

uint32_t recframe_crc(uint32_t crc, const uint8_t *p, size_t n)
{
	return crc32_gzip_refl(crc, p, (uint64_t)n);
}
