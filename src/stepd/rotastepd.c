/* rotastepd - the step daemon as a program of its own (stepd_main.h): what
 * rotad's children run, for tests that play rotad (tests/integration). */
#include <stddef.h>
#include "stepd/stepd_main.h"

int main(int argc, char **argv)
{
	return stepd_main(argc, argv, NULL);
}
