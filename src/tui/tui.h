/* SPDX-License-Identifier: GPL-2.0 */
/* The ncurses cacheline browser. The only module that includes curses. */
#ifndef C2CSCAN_TUI_H
#define C2CSCAN_TUI_H

struct report;

/* Why the browser could not start, as a value (the CLI words it). */
enum tui_err {
	TUI_ERR_NONE,
	TUI_ERR_KEY_SCRIPT,             /* name (C2CSCAN_KEYS) cannot be read: errnum */
	TUI_ERR_NO_TERMINAL,            /* neither stdin/stdout nor /dev/tty */
	TUI_ERR_TERM_SETUP,             /* curses cannot set up the terminal name ($TERM) */
	TUI_ERR_NO_CURSOR,              /* the terminal name cannot move the cursor */
};
struct tui_error {
	enum tui_err kind;
	int errnum;
	const char *name;
};

/* Runs the browser on r until the user quits; restores the terminal on every
 * exit path. Returns 0; -EINTR after SIGINT/SIGTERM/SIGHUP; -ENOTTY (or the
 * key script's -errno), with why in *err, when there is no usable terminal
 * (nothing was drawn: the caller may print the text report instead). */
int tui__browse(struct report *r, struct tui_error *err);

#endif
