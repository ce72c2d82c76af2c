/* common.h - what every Rota .c file includes last. */
#ifndef ROTA_COMMON_H
#define ROTA_COMMON_H
#include "common/error.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "common/banned.h"
#endif
