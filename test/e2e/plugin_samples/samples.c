/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The program the sample plugins are recorded with: each function does one thing a sample
 * measures (page faults, context switches, CPU time, loopback traffic), a second thread
 * makes per-thread counters show on two locations, burst() fills small buffers (BURST=N
 * calls), and idle() lasts long enough for the samplers to take their values. What the test expects
 * of each is in test_plugin_samples.py.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOUCH_PAGES    1024
#define NAPS	       10
#define SPIN_MS	       30
#define DATAGRAMS      64
#define DATAGRAM_BYTES 4000
#define LEAVES	       20

static volatile unsigned long sink;

__attribute__((no_instrument_function)) static double thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* TOUCH_PAGES fresh anonymous pages, one write each: as many page faults (no huge pages). */
void touch(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(TOUCH_PAGES * page), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(3);
	madvise(p, (size_t)(TOUCH_PAGES * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < TOUCH_PAGES; i++)
		p[i * page] = (char)i;
	sink += (unsigned char)p[page];
	munmap(p, (size_t)(TOUCH_PAGES * page));
}

/* One voluntary context switch at least: the thread sleeps. */
void nap(void)
{
	usleep(2000);
}

void naps(void)
{
	for (int i = 0; i < NAPS; i++)
		nap();
}

/* SPIN_MS of this thread's CPU time. */
void spin(void)
{
	double until = thread_cpu_ms() + SPIN_MS;
	while (thread_cpu_ms() < until)
		sink++;
}

/* DATAGRAMS datagrams of DATAGRAM_BYTES over the loopback interface, to itself. */
void net(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	static char buf[DATAGRAM_BYTES];
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0)
		exit(4);
	for (int i = 0; i < DATAGRAMS; i++) {
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&a, sizeof(a)) !=
		    (ssize_t)sizeof(buf))
			exit(5);
		if (recv(s, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			exit(6);
	}
	close(s);
}

void leaf(void)
{
	sink++;
}

void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < LEAVES; i++)
		leaf();
	return NULL;
}

/* BURST (default 0) calls of leaf(): events enough to fill small buffers. */
void burst(void)
{
	const char *e = getenv("BURST");
	int n = e ? atoi(e) : 0;
	for (int i = 0; i < n; i++)
		leaf();
}

/* IDLE_MS (default 300) of sleep in 10 ms steps: the samplers' time. */
void idle(void)
{
	const char *e = getenv("IDLE_MS");
	int ms = e ? atoi(e) : 300;
	for (int i = 0; i < ms; i += 10)
		usleep(10000);
}

int main(void)
{
	pthread_t t;
	touch();
	naps();
	spin();
	net();
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 7;
	burst();
	idle();
	printf("samples done\n");
	return 0;
}
