/* mailtype.h - --mail-type's events (Slurm 22.05's names and bits), shared
 * by the CLIs that take it, scontrol's MailType= and the controller's mails
 * (ctld/mail.h). */
#ifndef ROTA_COMMON_MAILTYPE_H
#define ROTA_COMMON_MAILTYPE_H

#include <stddef.h>
#include <stdint.h>

enum mail_type {
	MAIL_BEGIN = 1 << 0,
	MAIL_END = 1 << 1,
	MAIL_FAIL = 1 << 2,
	MAIL_REQUEUE = 1 << 3,
	MAIL_TIME100 = 1 << 4,
	MAIL_TIME90 = 1 << 5,
	MAIL_TIME80 = 1 << 6,
	MAIL_TIME50 = 1 << 7,
	MAIL_STAGE_OUT = 1 << 8,
	MAIL_ARRAY_TASKS = 1 << 9,
	MAIL_INVALID_DEPEND = 1 << 10,
};
#define MAIL_ALL                                                                         \
	(MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE | MAIL_STAGE_OUT |             \
	 MAIL_INVALID_DEPEND)

/* "END,FAIL", "ALL", "NONE" ... (case-insensitive): the bits, 0 for NONE, or
 * -1 when a word is not one of them. */
long mail_type_parse(const char *s);
/* The bits as Slurm prints them ("BEGIN,END,FAIL"; "NONE" for 0) into buf. */
const char *mail_type_str(uint32_t type, char *buf, size_t len);

#endif
