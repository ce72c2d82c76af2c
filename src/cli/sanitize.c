/* sanitize.c - under AddressSanitizer, the programs of the CLI (rota and
 * rota-sim) are not checked for leaks: they exit right after their one
 * request (CI checks the daemons, which free what they own at exit).
 * ASAN_OPTIONS still overrides. */
#ifdef __SANITIZE_ADDRESS__
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#else
typedef int rota_cli_sanitize_unused; /* an empty file is not ISO C */
#endif
