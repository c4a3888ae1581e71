// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's signal handlers. Neither uses SA_RESTART, so a blocking
 * read(2) or write(2) on a pipe returns EINTR and the copy loop gets to
 * act; SIGINT's handler resets itself, so a second SIGINT kills at once.
 */
#include <signal.h>
#include <stdlib.h>

#include "dd_signal.h"

static volatile sig_atomic_t interrupt_signal;
static volatile sig_atomic_t info_count;

static void on_interrupt(int sig)
{
	interrupt_signal = sig;
}

static void on_info(int sig)
{
	(void)sig;
	info_count++;
}

void dd_signal_install(void)
{
	struct sigaction act, old;
	sigset_t caught;

	sigemptyset(&caught);
	if (!getenv("POSIXLY_CORRECT"))
		sigaddset(&caught, SIGUSR1);
	if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaddset(&caught, SIGINT);
	act.sa_mask = caught;
	if (sigismember(&caught, SIGUSR1)) {
		act.sa_handler = on_info;
		act.sa_flags = 0;
		sigaction(SIGUSR1, &act, NULL);
	}
	if (sigismember(&caught, SIGINT)) {
		act.sa_handler = on_interrupt;
		act.sa_flags = SA_NODEFER | SA_RESETHAND;
		sigaction(SIGINT, &act, NULL);
	}
}

bool dd_signal_interrupted(void)
{
	return interrupt_signal != 0;
}

bool dd_signal_take_info(void)
{
	sigset_t set, old;
	bool taken = false;

	/* The copy loop asks every pass: no system call while nothing came. */
	if (!info_count)
		return false;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (info_count > 0) {
		info_count--;
		taken = true;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return taken;
}

bool dd_signal_pending(void)
{
	return interrupt_signal || info_count;
}

void dd_signal_reraise(void)
{
	int sig = interrupt_signal;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}
