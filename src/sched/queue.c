/* queue.c - queue records in scheduling order (queue.h). */
#include <stdlib.h>
#include "sched/queue.h"

static int cmp_rec(const void *a, const void *b)
{
	const struct sched_qrec *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->resv > y->resv) - (x->resv < y->resv);
}

void sched_queue_sort(struct sched_qrec *r, size_t n)
{
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_rec);
}
