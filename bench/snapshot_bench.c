// SPDX-License-Identifier: GPL-2.0
/*
 * In the guest, for bench/snapshot.py (a benchmark, not a test).
 *
 *   snapshot_bench take SIZE_KB DEPTH N
 *	Sets buffer_size_kb and snapshot_depth (DEPTH 1 only touches
 *	nothing, so that it runs on the stock kernel too), fills the live
 *	buffer, and times N writes of "1" to "snapshot", 100 ms apart. Prints
 *	one line per write: "take_us <microseconds>".
 *
 *   snapshot_bench marker N
 *	Writes N 64-byte lines to trace_marker and prints
 *	"marker_per_s <rate>".
 *
 *   snapshot_bench burst DEPTH N
 *	With a "snapshot" trigger on ftrace:print at DEPTH (lab kernel
 *	only: it reads the "# snapshot: #N" header), writes N lines to
 *	trace_marker as fast as it can: each is a trigger hit. Prints
 *	"burst_per_s <hits a second> taken <snapshots> of <hits>".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define T "/sys/kernel/tracing/"

static void wr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, val, strlen(val)) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void fill(int fd, long bytes)
{
	char line[1000];
	long n;

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	for (n = 0; n < bytes; n += sizeof(line))
		if (write(fd, line, sizeof(line)) < 0)
			break;
}

static int take(long size_kb, int depth, int n)
{
	char val[32];
	int marker, snap, i, cpu;
	cpu_set_t set;

	wr(T "snapshot", "0");
	snprintf(val, sizeof(val), "%ld", size_kb);
	wr(T "buffer_size_kb", val);
	if (depth != 1) {
		snprintf(val, sizeof(val), "%d", depth);
		wr(T "snapshot_depth", val);
	}
	wr(T "snapshot", "1");
	marker = open(T "trace_marker", O_WRONLY);
	snap = open(T "snapshot", O_WRONLY);
	if (marker < 0 || snap < 0) {
		perror("open");
		return 1;
	}
	for (i = 0; i < n; i++) {
		double t0;

		/* Every CPU's buffer full: what a snapshot of a busy trace sees. */
		for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN) && i == 0; cpu++) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
			fill(marker, size_kb * 1024 + size_kb * 256);
		}
		usleep(100 * 1000);
		t0 = now_us();
		if (pwrite(snap, "1", 1, 0) != 1) {
			perror("snapshot");
			return 1;
		}
		printf("take_us %.1f\n", now_us() - t0);
	}
	wr(T "snapshot", "0");
	if (depth != 1)
		wr(T "snapshot_depth", "1");
	return 0;
}

/* Writes @n 64-byte lines of @c to @fd; the microseconds it took, or -1 */
static double write_lines(int fd, long n, char c)
{
	char line[64];
	double t0 = now_us();
	long i;

	memset(line, c, sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	for (i = 0; i < n; i++)
		if (write(fd, line, sizeof(line)) < 0)
			return -1;
	return now_us() - t0;
}

static int marker_rate(long n)
{
	int fd = open(T "trace_marker", O_WRONLY);
	double dt;

	if (fd < 0) {
		perror("trace_marker");
		return 1;
	}
	dt = write_lines(fd, n, 'm');
	close(fd);
	if (dt < 0)
		return 1;
	printf("marker_per_s %.0f\n", n / dt * 1e6);
	return 0;
}

/* N in the "# snapshot: #N" header of "snapshot", or -1 */
static long snap_no(void)
{
	static char buf[1 << 16];
	ssize_t n;
	long no = -1;
	char *p;
	int fd = open(T "snapshot", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strstr(buf, "# snapshot: #");
	if (p)
		sscanf(p, "# snapshot: #%ld", &no);
	return no;
}

static int burst(int depth, long n)
{
	char val[32];
	long n0, n1;
	double dt;
	int fd;

	snprintf(val, sizeof(val), "%d", depth);
	wr(T "snapshot_depth", val);
	wr(T "snapshot", "1");
	wr(T "events/ftrace/print/trigger", "snapshot");
	fd = open(T "trace_marker", O_WRONLY);
	if (fd < 0)
		return 1;
	n0 = snap_no();
	dt = write_lines(fd, n, 'b');
	close(fd);
	if (dt < 0)
		return 1;
	wr(T "events/ftrace/print/trigger", "!snapshot");
	n1 = snap_no();
	printf("burst_per_s %.0f taken %ld of %ld\n", n / dt * 1e6, n1 - n0, n);
	wr(T "snapshot", "0");
	wr(T "snapshot_depth", "1");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "burst"))
		return burst(atoi(argv[2]), atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "take"))
		return take(atol(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "marker"))
		return marker_rate(atol(argv[2]));
	fprintf(stderr, "usage: %s take SIZE_KB DEPTH N | marker N | burst DEPTH N\n",
		argv[0]);
	return 2;
}
