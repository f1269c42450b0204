/* SPDX-License-Identifier: BSD-3-Clause */
/* Two threads write files of their own at once: 10 writes of 100 bytes each, then close. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *writer(void *arg)
{
	char path[32], buf[100];
	memset(buf, 'y', sizeof(buf));
	snprintf(path, sizeof(path), "t%ld.bin", (long)arg);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_APPEND, 0644);
	long sum = 0;
	for (int i = 0; i < 10; i++)
		sum += write(fd, buf, sizeof(buf));
	close(fd);
	unlink(path);
	return (void *)sum;
}

int main(void)
{
	pthread_t th[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, writer, (void *)i);
	for (int i = 0; i < 2; i++) {
		void *sum;
		pthread_join(th[i], &sum);
		printf("thread %d wrote %ld\n", i, (long)sum);
	}
	return 0;
}
