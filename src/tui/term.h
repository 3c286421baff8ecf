/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal under the browser: the only file that includes curses.
 * Screens draw through these few calls in semantic styles; term.c maps the
 * styles to colours, or to bold/underline/reverse when there are no colours
 * or NO_COLOR is set.
 *
 * Headless mode (C2CSCAN_KEYS=FILE): curses draws into a virtual screen on
 * /dev/null, keys come from FILE, and the script can dump the screen:
 *   one command per word, '#' starts a comment;
 *   up down left right pgup pgdn home end enter esc tab backspace f1 C-c
 *   space, any single character (d s / ? q ...), text:WORD (typed as is;
 *   'space' types a blank), resize:COLSxROWS, dump:FILE (the text), attrs:FILE (one letter
 *   per cell: R reverse, 1-9 colour pair, B bold, U underline, . plain).
 * The size is COLUMNS x LINES (default 80x24). At the end of the script the
 * browser quits.
 */
#ifndef C2CSCAN_TUI_TERM_H
#define C2CSCAN_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

enum tui_style {
	ST_NORMAL,
	ST_TITLE,       /* top line */
	ST_HEADER,      /* column headers */
	ST_SELECTED,    /* the cursor row */
	ST_STATUS,      /* bottom line */
	ST_DIM,         /* untouched bytes, secondary text */
	ST_READ,        /* strip: loads only */
	ST_WRITE,       /* strip: stores only */
	ST_BOTH,        /* strip: loads and stores */
	ST_WARN,        /* a verdict or a warning */
	ST_MARK,        /* the selected offset in the strip */
	ST__NR,
};

/* Keys beyond characters (characters are themselves, Ctrl-C is 3). */
enum {
	K_NONE = -1,    /* nothing typed (poll timeout) */
	K_UP = 0x1000, K_DOWN, K_LEFT, K_RIGHT, K_PGUP, K_PGDN, K_HOME, K_END,
	K_ENTER, K_ESC, K_BACKSPACE, K_F1, K_RESIZE, K_TAB,
	K_WHEEL_UP, K_WHEEL_DOWN,
	K_QUIT_SIGNAL,  /* SIGINT/SIGTERM/SIGHUP arrived: leave now */
	K_SCRIPT_END,   /* the key script is exhausted */
};

/* Sets the terminal up (or the headless screen). 0, or < 0 and why in *err. */
struct tui_error;
int term__init(struct tui_error *err);
/* Restores the terminal; safe to call twice and from any exit path. */
void term__exit(void);
/* The signal that made term__key() return K_QUIT_SIGNAL, 0 if none. */
int term__signal(void);

int term__rows(void);
int term__cols(void);
bool term__utf8(void);
/* The one cell that says text was cut: an ellipsis, or + without UTF-8. */
const char *term__ellipsis(void);

/* Next key; blocks (but returns K_QUIT_SIGNAL on a signal). */
int term__key(void);

void term__clear(void);
/* Writes s (UTF-8) at (y, x), at most w cells, in style st; returns cells written. */
int term__put(int y, int x, int w, enum tui_style st, const char *s);
/* Fills w cells at (y, x) with blanks in style st. */
void term__fill(int y, int x, int w, enum tui_style st);
void term__refresh(void);

/* Display width of s in cells (what term__put would use, unclipped). */
int term__width(const char *s);

#endif
