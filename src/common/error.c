#include <stdarg.h>
#include <stdio.h>
#include "common/error.h"

int errprintf(struct rota_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	return -1;
}
