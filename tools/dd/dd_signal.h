/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd's signals, as GNU dd: SIGUSR1 asks for the statistics, SIGINT
 * stops the copy. The handlers only count and flag; the copy loop acts.
 */
#ifndef DD_SIGNAL_H
#define DD_SIGNAL_H

#include <stdbool.h>

/** Catch SIGUSR1 (unless POSIXLY_CORRECT is set) and SIGINT (unless ignored). */
void dd_signal_install(void);

/** Whether SIGINT arrived. */
bool dd_signal_interrupted(void);

/** Take one pending SIGUSR1; false when none is pending. */
bool dd_signal_take_info(void);

/** A signal waits to be acted on (an EINTR should return to the copy loop). */
bool dd_signal_pending(void);

/** Die of the SIGINT that arrived, as GNU dd does (the shell sees 130). */
void dd_signal_reraise(void);

#endif /* DD_SIGNAL_H */
