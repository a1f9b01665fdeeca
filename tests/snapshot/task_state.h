/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the snapshot tests: whether a child task is asleep, e.g. blocked
 * in a read, so that a test proves the blocking instead of sleeping.
 */
#ifndef LAB_TASK_STATE_H
#define LAB_TASK_STATE_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* A task's state letter from /proc/PID/stat, or 0 */
static char task_state(pid_t pid)
{
	char path[64], stat[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	p = strrchr(stat, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Waits up to 5 s for @pid to sleep (S); returns 1 if it did */
static int sleeping(pid_t pid)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (task_state(pid) == 'S')
			return 1;
		usleep(10 * 1000);
	}
	return 0;
}

#endif
