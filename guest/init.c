// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of a lab guest (see ./lab --help).
 *
 * The root filesystem is the host's / over 9p, read-only.  The kernel
 * command line names the repository (labtop=) and a writable run directory
 * (labrun=, 9p tag "labrun") holding cmd.sh, cwd and env.  We mount the
 * usual filesystems, run "sh cmd.sh" as root with stdout and stderr on the
 * two virtio serial ports, write its exit status to the run directory and
 * reboot, which ends QEMU (-no-reboot).  With labshell=1 (`lab shell`) the
 * command gets the serial console instead, as its controlling terminal.
 *
 * A static C program rather than a shell script: every exec over 9p under
 * TCG costs tens of milliseconds, and a script needs dozens.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	if (fd >= 0) {
		dprintf(fd, "lab-init: %s\n", buf);
		close(fd);
	}
}

static void __attribute__((noreturn)) die(const char *what)
{
	say("%s: %s", what, strerror(errno));
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void mnt(const char *src, const char *dir, const char *type,
		unsigned long flags, const char *data)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, flags, data) && errno != EBUSY)
		say("mount %s on %s: %s", type, dir, strerror(errno));
}

static void mkdirs(const char *path)
{
	char buf[4096];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

/* The virtio serial port numbered nr, e.g. /dev/vport2p1 for nr 1. */
static int open_port(int nr)
{
	char suffix[8], path[300];
	struct dirent *d;
	DIR *dev = opendir("/dev");
	int fd = -1;

	snprintf(suffix, sizeof(suffix), "p%d", nr);
	while (dev && (d = readdir(dev))) {
		size_t n = strlen(d->d_name);

		if (strncmp(d->d_name, "vport", 5) || n < 3 ||
		    strcmp(d->d_name + n - strlen(suffix), suffix))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		fd = open(path, O_WRONLY | O_NOCTTY);
		break;
	}
	if (dev)
		closedir(dev);
	return fd;
}

static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		say("loopback up: %s", strerror(errno));
	close(s);
}

/* Set the NUL-separated VAR=VALUE pairs of the run directory's env file. */
static void load_env(const char *run)
{
	static char buf[65536];
	char path[4096], *p, *eq;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/env", run);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = buf; p < buf + n; p += strlen(p) + 1) {
		eq = strchr(p, '=');
		if (!eq)
			continue;
		*eq = '\0';
		setenv(p, eq + 1, 1);
	}
}

static int run_cmd(const char *run, int shell)
{
	char path[4096], cwd[4096] = "/";
	int out = -1, err = -1;
	int status, fd;
	pid_t pid, w;

	if (shell) {
		out = open("/dev/ttyS0", O_RDWR | O_NOCTTY);
		err = out;
		if (out < 0)
			die("open /dev/ttyS0");
	} else {
		out = open_port(1);
		err = open_port(2);
		if (out < 0 || err < 0)
			die("virtio serial ports");
	}
	snprintf(path, sizeof(path), "%s/cwd", run);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, cwd, sizeof(cwd) - 1);

		cwd[n > 0 ? n : 0] = '\0';
		cwd[strcspn(cwd, "\n")] = '\0';
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/cmd.sh", run);

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int in = shell ? out : open("/dev/null", O_RDONLY);

		setsid();
		if (shell && ioctl(out, TIOCSCTTY, 0))
			say("TIOCSCTTY: %s", strerror(errno));
		if (chdir(cwd))
			chdir("/");
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		clearenv();
		setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
		setenv("HOME", "/root", 1);
		setenv("TERM", shell ? "linux" : "dumb", 1);
		setenv("LANG", "C.UTF-8", 1);
		setenv("LAB_OUT", run, 1);
		load_env(run);
		execl("/bin/sh", "sh", path, (char *)NULL);
		_exit(127);
	}
	/* PID 1 reaps every orphan until the command itself is done. */
	while ((w = wait(&status)) != pid)
		if (w < 0 && errno != EINTR)
			die("wait");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Copy the kernel log into the run directory as "dmesg", every record
 * whatever its level: the console shows only what passes loglevel=, and
 * the host scans both for splats.
 */
static void save_kmsg(const char *run)
{
	char path[4096], rec[8192];
	int in = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	FILE *out;
	ssize_t n;

	if (in < 0)
		return;
	snprintf(path, sizeof(path), "%s/dmesg", run);
	out = fopen(path, "w");
	if (!out) {
		close(in);
		return;
	}
	/* "prio,seq,usec,flags;text\n" then " KEY=value" lines per record. */
	while ((n = read(in, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		unsigned long long usec;
		char *text, *nl;

		if (n < 0)
			continue;	/* records overwritten before we read them */
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text || sscanf(rec, "%*u,%*u,%llu", &usec) != 1)
			continue;
		nl = strchr(++text, '\n');
		if (nl)
			*nl = '\0';
		fprintf(out, "[%5llu.%06llu] %s\n", usec / 1000000, usec % 1000000, text);
	}
	fclose(out);
	close(in);
}

int main(void)
{
	static const char *const tmpfs[] = { "/tmp", "/run", "/var" };
	const char *top = getenv("labtop"), *run = getenv("labrun");
	const char *shell = getenv("labshell");
	char path[4096], tmp[4096];
	struct stat st;
	unsigned int i;
	FILE *f;
	int status;

	mnt("proc", "/proc", "proc", 0, NULL);
	mnt("sysfs", "/sys", "sysfs", 0, NULL);
	mnt("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mnt("devpts", "/dev/pts", "devpts", 0, NULL);
	mnt("tmpfs", "/dev/shm", "tmpfs", 0, NULL);
	for (i = 0; i < sizeof(tmpfs) / sizeof(tmpfs[0]); i++)
		mnt("tmpfs", tmpfs[i], "tmpfs", 0, "mode=1777");
	mkdirs("/var/tmp");
	mkdirs("/var/log");
	mkdirs("/run/lock");
	mnt("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	mnt("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);

	if (!top || !run) {
		errno = EINVAL;
		die("no labtop= or labrun= on the kernel command line");
	}
	/* The repository may live under one of the tmpfs mounts. */
	snprintf(path, sizeof(path), "%s/guest", top);
	if (stat(path, &st)) {
		mkdirs(top);
		mnt("labtop", top, "9p", MS_RDONLY, "trans=virtio,version=9p2000.L");
	}
	mkdirs(run);
	if (mount("labrun", run, "9p", 0, "trans=virtio,version=9p2000.L,msize=262144"))
		die("mount the run directory");

	sethostname("lab", 3);
	loopback_up();
	status = run_cmd(run, shell && !strcmp(shell, "1"));
	save_kmsg(run);

	snprintf(tmp, sizeof(tmp), "%s/status.tmp", run);
	snprintf(path, sizeof(path), "%s/status", run);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", status) < 0 || fclose(f) || rename(tmp, path))
		die("write the exit status");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
