/* hostsfile.c - /etc/hosts lines that name the cluster's nodes (hostsfile.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/conf.h"
#include "common/hostsfile.h"

int hostsfile_is_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (!addr)
		return 0;
	if (!strcmp(addr, "localhost"))
		return 1;
	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* An IP address written as one, or NULL (NodeAddr may be a name). */
static const char *ip_literal(const char *addr)
{
	unsigned char buf[sizeof(struct in6_addr)];

	if (addr &&
	    (inet_pton(AF_INET, addr, buf) == 1 || inet_pton(AF_INET6, addr, buf) == 1))
		return addr;
	return NULL;
}

static void put_node(FILE *f, const struct conf_node *n, const char *prev_host,
                     unsigned flags)
{
	const char *addr = ip_literal(n->addr);
	const char *host = n->hostname;

	if (!addr && !(flags & HOSTSFILE_F_LOCAL))
		return;
	if (!addr)
		addr = "127.0.0.1";
	fprintf(f, "%s\t%s", addr, n->name);
	if (host && *host && strcmp(host, n->name) &&
	    (!prev_host || strcmp(host, prev_host)))
		fprintf(f, " %s", host);
	fputc('\n', f);
}

int hostsfile_render(const char *base, const struct conf *conf, unsigned flags,
                     char **ret)
{
	char *buf = NULL;
	size_t len = 0, blen = base ? strlen(base) : 0;
	const char *prev_host = NULL;
	FILE *f = open_memstream(&buf, &len);
	int failed;

	if (!f)
		return -ENOMEM;
	fwrite(base ? base : "", 1, blen, f);
	if (blen && base[blen - 1] != '\n')
		fputc('\n', f);
	fputs("# the cluster's nodes, from slurm.conf (rotastepd)\n", f);
	for (size_t i = 0; i < conf->node_count; i++) {
		put_node(f, &conf->nodes[i], prev_host, flags);
		prev_host = conf->nodes[i].hostname;
	}
	failed = ferror(f);
	if (fclose(f) != 0 || failed) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}
