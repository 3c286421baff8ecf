/* SPDX-License-Identifier: GPL-2.0 */
/* The ncurses cacheline browser. The only module that includes curses. */
#ifndef C2CSCAN_TUI_H
#define C2CSCAN_TUI_H

struct report;

/* Runs the browser on r until the user quits; restores the terminal on every
 * exit path. Returns 0 or a negative errno. */
int tui__browse(struct report *r);

#endif
