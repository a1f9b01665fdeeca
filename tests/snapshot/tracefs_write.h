/* SPDX-License-Identifier: GPL-2.0 */
/* The one way the in-guest tests write a tracefs file. */
#ifndef TRACEFS_WRITE_H
#define TRACEFS_WRITE_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/*
 * Writes @val to @path opened for writing with @flags (O_TRUNC, or
 * O_APPEND for a trigger file, whose O_TRUNC removes its triggers);
 * returns 0 or the errno of open() or write().
 */
static inline int tracefs_write(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

#endif
