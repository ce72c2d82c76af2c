/* srun_pty.c - srun --pty: our terminal's side; see srun_pty.h. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cli/srun_pty.h"
#include "common/xmalloc.h"
#include "common/common.h"

static struct termios saved;
static int raw;

static char **env_add(char **env, char *entry)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	env = xrealloc(env, (n + 2) * sizeof(char *));
	env[n] = entry;
	env[n + 1] = NULL;
	return env;
}

char **srun_pty_env(char **env)
{
	struct winsize ws;

	if (!isatty(0) || ioctl(0, TIOCGWINSZ, &ws) < 0 || !ws.ws_row || !ws.ws_col)
		return env;
	env = env_add(env, xasprintf("SLURM_PTY_WIN_ROW=%u", (unsigned)ws.ws_row));
	return env_add(env, xasprintf("SLURM_PTY_WIN_COL=%u", (unsigned)ws.ws_col));
}

void srun_pty_end(void)
{
	if (!raw)
		return;
	tcsetattr(0, TCSADRAIN, &saved);
	raw = 0;
}

void srun_pty_begin(void)
{
	static int registered;
	struct termios t;

	if (raw || !isatty(0) || tcgetattr(0, &saved) < 0)
		return;
	t = saved;
	cfmakeraw(&t);
	if (tcsetattr(0, TCSADRAIN, &t) < 0)
		return;
	raw = 1;
	if (!registered++)
		atexit(srun_pty_end);
}
