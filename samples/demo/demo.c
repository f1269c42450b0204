/* SPDX-License-Identifier: BSD-3-Clause */
/* The sample of the main job: a few threads counting primes, with a recursive helper. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3

static int is_prime(unsigned n)
{
	if (n < 2)
		return 0;
	for (unsigned d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

static unsigned count_primes(unsigned lo, unsigned hi)
{
	unsigned c = 0;
	for (unsigned n = lo; n < hi; n++)
		c += (unsigned)is_prime(n);
	return c;
}

/* Splits a range in halves down to small pieces: a recursion to see in the trace. */
static unsigned divide(unsigned lo, unsigned hi)
{
	if (hi - lo <= 2000)
		return count_primes(lo, hi);
	unsigned mid = lo + (hi - lo) / 2;
	return divide(lo, mid) + divide(mid, hi);
}

struct job {
	unsigned lo, hi, result;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	j->result = divide(j->lo, j->hi);
	return NULL;
}

int main(void)
{
	pthread_t tid[THREADS];
	struct job jobs[THREADS];
	unsigned total = 0;

	for (int i = 0; i < THREADS; i++) {
		jobs[i].lo = (unsigned)i * 32000;
		jobs[i].hi = (unsigned)(i + 1) * 32000;
		pthread_create(&tid[i], NULL, worker, &jobs[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(tid[i], NULL);
		total += jobs[i].result;
	}
	printf("primes below %u: %u\n", THREADS * 32000, total);
	return 0;
}
