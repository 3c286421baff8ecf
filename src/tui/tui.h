/* SPDX-License-Identifier: GPL-2.0 */
/* The ncurses cacheline browser. The only module that includes curses. */
#ifndef C2CSCAN_TUI_H
#define C2CSCAN_TUI_H

struct report;

/* Runs the browser on r until the user quits; restores the terminal on every
 * exit path. Returns 0; -EINTR after SIGINT/SIGTERM/SIGHUP; -ENOTTY, with a
 * one-line reason in err, when there is no usable terminal (nothing was
 * drawn: the caller may print the text report instead). */
int tui__browse(struct report *r, char *err, size_t errsize);

#endif
