/* srun_pty.c - srun --pty: our terminal's side; see srun_pty.h. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cli/srun_pty.h"
#include "proto/codec.h"
#include "common/common.h"

static struct termios saved;
static int raw;

char **srun_pty_env(char **env)
{
	char row[16], col[16];
	struct winsize ws;

	if (!isatty(0) || ioctl(0, TIOCGWINSZ, &ws) < 0 || !ws.ws_row || !ws.ws_col)
		return env;
	snprintf(row, sizeof(row), "%u", (unsigned)ws.ws_row);
	snprintf(col, sizeof(col), "%u", (unsigned)ws.ws_col);
	env = strv_setenv(env, "SLURM_PTY_WIN_ROW", row);
	return strv_setenv(env, "SLURM_PTY_WIN_COL", col);
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
