/* fuzz_conf - slurm.conf parsing from a string.  Include is confined: the
 * harness works in a temporary directory holding a few files to include
 * (inc.conf, loop.conf that includes itself, na.conf, nb.conf), and inputs that
 * mention Include together with a '/' or '~' are skipped so nothing outside is
 * read.  What parses must dump its keys and accept itself as a reload.
 * (gres.conf has its own harness, fuzz_gres_conf.) */
#include <stdio.h>
#include <strings.h>
#include <unistd.h>
#include "common/conf.h"
#include "common/log.h"
#include "fuzz.h"

static char workdir[] = "/tmp/rota-fuzz-conf-XXXXXX";
static const char *const files[] = {"inc.conf", "loop.conf", "na.conf", "nb.conf"};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

static void cleanup(void)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(files[i]);
	if (chdir("/") == 0)
		rmdir(workdir);
}

/* Corpus paths given to a harness must be absolute: this changes directory. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_init("fuzz_conf", LOG_CRIT, NULL);
	if (!mkdtemp(workdir) || chdir(workdir) < 0)
		abort();
	atexit(cleanup);
	put(files[0], "NodeName=inc[1-2] CPUs=2\nPartitionName=inc Nodes=inc[1-2]\n");
	put(files[1], "Include loop.conf\n");
	put(files[2], "NodeName=na CPUs=4 RealMemory=1000\n");
	put(files[3], "NodeName=nb Sockets=2 CoresPerSocket=2\n");
	return 0;
}

static int confined(const char *s)
{
	if (!strcasestr(s, "include"))
		return 1;
	return !strpbrk(s, "/~$");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rota_error err = {""};
	struct conf *conf = NULL, *again = NULL;
	struct conf_kv *kv = NULL;
	size_t nkv = 0;
	char *s = fuzz_str(data, size);

	if (!confined(s))
		goto out;
	if (conf_load_string(s, "fuzz.conf", &conf, &err) < 0)
		goto out;
	conf_node_find(conf, "n1");
	conf_part_find(conf, "debug");
	conf_part_default(conf);
	conf_mem_consumable(conf);
	if (conf_dump_kv(conf, &kv, &nkv) == 0)
		conf_kv_free(kv, nkv);
	if (conf_load_string(s, "fuzz.conf", &again, &err) < 0)
		abort(); /* parsing is deterministic */
	conf_reload_check(conf, again, &err);
out:
	conf_destroy(conf);
	conf_destroy(again);
	free(s);
	return 0;
}
