/*
 * tty-inject: run inside the sandbox on a terminal; tries the two terminal
 * injection ioctls on fd 0 and reports what the kernel allowed.
 *
 * Prints one line: "tiocsti=E tiocsti_high=E tioclinux=E tiocgwinsz=E",
 * each E the errno of that attempt (0 when it succeeded). tiocsti_high
 * passes TIOCSTI with junk in the upper 32 bits of the command, which the
 * kernel drops, so a filter comparing the whole 64-bit value would miss it.
 * tiocgwinsz is a legitimate ioctl that must keep working.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int attempt(unsigned long command, const void *arg)
{
	if (syscall(SYS_ioctl, STDIN_FILENO, command, arg) == 0)
		return 0;
	return errno;
}

int main(void)
{
	const char injected = 'Z';
	/* TIOCL_GETSHIFTSTATE: harmless on a console, refused on a pty. */
	const char linux_subcode = 6;
	unsigned long high = (unsigned long)TIOCSTI;
	struct winsize size;
	int sti, sti_high, linux_ioctl, winsize;

#if ULONG_MAX > 0xffffffffUL
	high |= 1UL << 32;
#endif
	sti = attempt(TIOCSTI, &injected);
	sti_high = attempt(high, &injected);
	linux_ioctl = attempt(TIOCLINUX, &linux_subcode);
	/* A legitimate terminal ioctl, which the filter must leave alone. */
	winsize = attempt(TIOCGWINSZ, &size);
	printf("tiocsti=%d tiocsti_high=%d tioclinux=%d tiocgwinsz=%d\n", sti,
	       sti_high, linux_ioctl, winsize);
	return 0;
}
