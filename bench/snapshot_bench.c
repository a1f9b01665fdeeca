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
 *
 *   snapshot_bench irqsoff SIZE_KB DEPTH N file|trigger
 *	At DEPTH (2 or more: lab kernel only), with the irqsoff tracer
 *	current on CPU 1 alone, takes N snapshots from CPU 1, through the
 *	"snapshot" file or a "snapshot" trigger on ftrace:print. Before
 *	each, tracing_max_latency is reset; right after, tracing_on is
 *	turned off, so that irqsoff's maximum is the longest section with
 *	interrupts off that the snapshot caused. Prints, for each,
 *	"irqsoff_us <maximum> swap" if that section is the swap itself, or
 *	"irqsoff_us <maximum> irq_work" if it is the irq_work interrupt that
 *	follows it (the wake-ups of the buffers' readers, and irqsoff's own
 *	notification of a new maximum). A snapshot whose maximum is any
 *	other interrupt (a timer tick) is taken again, up to 10 times, and
 *	each retake prints "irqsoff_retake <started at> <us>".
 *
 *   snapshot_bench graph SIZE_KB N
 *	At depth 1 (stock too), times N writes of "1" to "snapshot" with
 *	the function_graph tracer on update_max_tr(), depth 1 of the
 *	graph. Prints "graph_us <duration>" for each.
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

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static char cpumask0[64];

/* Reads @path into @buf, of @len; returns @buf */
static char *rd_into(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static void setup(long size_kb, int depth)
{
	char val[32];

	rd_into(T "tracing_cpumask", cpumask0, sizeof(cpumask0));

	wr(T "current_tracer", "nop");
	wr(T "snapshot", "0");
	snprintf(val, sizeof(val), "%ld", size_kb);
	wr(T "buffer_size_kb", val);
	if (depth != 1) {
		snprintf(val, sizeof(val), "%d", depth);
		wr(T "snapshot_depth", val);
	}
	wr(T "snapshot", "1");
}

static void teardown(int depth)
{
	wr(T "current_tracer", "nop");
	wr(T "snapshot", "0");
	if (depth != 1)
		wr(T "snapshot_depth", "1");
	wr(T "tracing_cpumask", cpumask0);
}

static int take(long size_kb, int depth, int n)
{
	int marker, snap, i, cpu;

	setup(size_kb, depth);
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
			pin(cpu);
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
	teardown(depth);
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

/*
 * What irqsoff's maximum section was: "swap" (it started in the snapshot
 * code), "irq_work" (the interrupt raised by the snapshot's irq_work), or
 * NULL (any other; @at gets where it started).
 */
static const char *irqsoff_kind(const char *trace, char *at, size_t len)
{
	const char *p = strstr(trace, "=> started at: ");
	char fmt[32];

	snprintf(fmt, sizeof(fmt), "=> started at: %%%zus", len - 1);
	if (!p || sscanf(p, fmt, at) != 1)
		snprintf(at, len, "(none)");
	if (strstr(at, "snapshot") || strstr(at, "max_tr"))
		return "swap";
	if (!strcmp(at, "irqentry_enter") && strstr(trace, "=> asm_sysvec_irq_work"))
		return "irq_work";
	return NULL;
}

static int irqsoff(long size_kb, int depth, int n, const char *how)
{
	static char head[1 << 14];
	int fd, on, i, try, trigger = !strcmp(how, "trigger");
	const char *kind;
	char at[128];
	long us;

	setup(size_kb, depth);
	/* The irqsoff tracer times CPU 1 only, and the sections alone */
	wr(T "tracing_cpumask", "2");
	wr(T "current_tracer", "irqsoff");
	wr(T "options/function-trace", "0");
	pin(1);
	if (trigger)
		wr(T "events/ftrace/print/trigger", "snapshot");
	fd = open(trigger ? T "trace_marker" : T "snapshot", O_WRONLY);
	on = open(T "tracing_on", O_WRONLY);
	if (fd < 0 || on < 0) {
		perror(how);
		return 1;
	}
	for (i = 0; i < n; i++) {
		for (try = 0; try < 10; try++) {
			wr(T "tracing_max_latency", "0");
			if (write(fd, "1\n", 2) != 2 || write(on, "0", 1) != 1) {
				perror(how);
				return 1;
			}
			rd_into(T "trace", head, sizeof(head));
			us = atol(rd_into(T "tracing_max_latency", at, sizeof(at)));
			kind = irqsoff_kind(head, at, sizeof(at));
			if (write(on, "1", 1) != 1) {
				perror("tracing_on");
				return 1;
			}
			if (kind)
				break;
			printf("irqsoff_retake %s %ld\n", at, us);
		}
		if (kind)
			printf("irqsoff_us %ld %s\n", us, kind);
	}
	close(on);
	close(fd);
	if (trigger)
		wr(T "events/ftrace/print/trigger", "!snapshot");
	wr(T "options/function-trace", "1");
	teardown(depth);
	return 0;
}

static int graph(long size_kb, int n)
{
	static char out[1 << 16];
	int fd, i;
	double us;
	char *p;

	setup(size_kb, 1);
	wr(T "set_graph_function", "update_max_tr");
	wr(T "max_graph_depth", "1");
	wr(T "current_tracer", "function_graph");
	fd = open(T "snapshot", O_WRONLY);
	if (fd < 0) {
		perror("snapshot");
		return 1;
	}
	for (i = 0; i < n; i++) {
		/* Both buffers empty: the live one then holds only the return */
		wr(T "trace", "");
		wr(T "snapshot", "2");
		usleep(20 * 1000);
		if (write(fd, "1\n", 2) != 2) {
			perror("snapshot");
			return 1;
		}
		/* " 1) + 12.345 us   |  }": the duration follows the CPU's ")" */
		p = strstr(rd_into(T "trace", out, sizeof(out)), "|  }");
		while (p && p > out && p[-1] != '\n')
			p--;
		if (p && (p = strchr(p, ')')) && sscanf(p, ")%*[^0-9]%lf", &us) == 1)
			printf("graph_us %.3f\n", us);
		else
			printf("graph_none\n");
	}
	close(fd);
	wr(T "current_tracer", "nop");
	wr(T "max_graph_depth", "0");
	wr(T "set_graph_function", "");
	teardown(1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "irqsoff"))
		return irqsoff(atol(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
	if (argc == 4 && !strcmp(argv[1], "graph"))
		return graph(atol(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "burst"))
		return burst(atoi(argv[2]), atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "take"))
		return take(atol(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "marker"))
		return marker_rate(atol(argv[2]));
	fprintf(stderr, "usage: %s take SIZE_KB DEPTH N | marker N | burst DEPTH N |\n"
		"\tirqsoff SIZE_KB DEPTH N file|trigger | graph SIZE_KB N\n", argv[0]);
	return 2;
}
