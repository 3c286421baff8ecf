// SPDX-License-Identifier: GPL-2.0
/*
 * Curses setup, teardown on every exit path, keys (from the terminal or a
 * key script), styled text, and the screen dumps of the headless tests.
 *
 * Terminal restore: a normal return calls term__exit(); exit() paths (an
 * allocation failure) reach it through atexit(); SIGINT, SIGTERM and SIGHUP
 * only set a flag that term__key() turns into K_QUIT_SIGNAL, so the browser
 * unwinds normally; fatal signals (SIGSEGV, SIGABRT, ...) restore the
 * terminal and re-raise. SIGWINCH is left to ncurses, which turns it into
 * KEY_RESIZE.
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include "tui/term.h"
#include "tui/tui.h"

static struct {
	bool active;            /* curses is up: term__exit has work to do */
	bool atexit_done;
	bool utf8;
	bool colors;
	SCREEN *screen;
	FILE *in, *out;         /* what newterm was given (closed on exit) */
	FILE *script;           /* headless: the key script */
	const char *script_path;
	char word[4096];        /* the script word being typed (text:) */
	size_t word_pos, word_len;
	int attrs[ST__NR];
	short pairs[ST__NR];
} term;

static volatile sig_atomic_t quit_signal;

static void on_quit_signal(int sig)
{
	quit_signal = sig;
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void on_fatal_signal(int sig)
{
	/* not async-signal-safe, but the process is dying anyway and a
	 * terminal left in raw mode is worse */
	if (term.active)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

static void restore_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		signal(fatal_signals[i], SIG_DFL);
}

static void setup_styles(void)
{
	static const struct {
		short fg, bg;
		int attr;       /* with colours */
		int mono;       /* without */
	} def[ST__NR] = {
		[ST_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
		[ST_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD },
		[ST_HEADER] = { COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[ST_SELECTED] = { -1, -1, A_REVERSE, A_REVERSE },
		[ST_STATUS] = { COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE },
		[ST_DIM] = { -1, -1, A_DIM, A_DIM },
		[ST_READ] = { COLOR_GREEN, -1, A_BOLD, A_NORMAL },
		[ST_WRITE] = { COLOR_RED, -1, A_BOLD, A_BOLD },
		[ST_BOTH] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[ST_WARN] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
		[ST_MARK] = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE },
	};
	const char *nc = getenv("NO_COLOR");
	short next = 1;

	term.colors = has_colors() && !(nc && *nc);
	if (term.colors) {
		start_color();
		use_default_colors();
	}
	for (int i = 0; i < ST__NR; i++) {
		term.pairs[i] = 0;
		term.attrs[i] = term.colors ? def[i].attr : def[i].mono;
		if (term.colors && (def[i].fg != -1 || def[i].bg != -1)) {
			init_pair(next, def[i].fg, def[i].bg);
			term.pairs[i] = next++;
		}
	}
}

static int size_from_env(const char *name, int def)
{
	const char *s = getenv(name);
	int v = s ? atoi(s) : 0;

	return v >= 2 && v <= 4096 ? v : def;
}

int term__init(struct tui_error *err)
{
	const char *script = getenv("C2CSCAN_KEYS");
	const char *termname = NULL;
	const char *cs;

	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	term.utf8 = cs && !strcmp(cs, "UTF-8");
	quit_signal = 0;
	if (script && *script) {
		term.script = fopen(script, "r");
		if (!term.script) {
			*err = (struct tui_error){ .kind = TUI_ERR_KEY_SCRIPT, .errnum = errno, .name = script };
			return -errno;
		}
		term.script_path = script;
		term.word_pos = term.word_len = 0;
		term.in = fopen("/dev/null", "r");
		term.out = fopen("/dev/null", "w");
		termname = "xterm";
	} else if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		term.in = fdopen(dup(STDIN_FILENO), "r");
		term.out = fdopen(dup(STDOUT_FILENO), "w");
	} else {
		/* input is a pipe (report -i -) or output is redirected with --tui */
		term.in = fopen("/dev/tty", "r");
		term.out = fopen("/dev/tty", "w");
	}
	if (!term.in || !term.out) {
		*err = (struct tui_error){ .kind = TUI_ERR_NO_TERMINAL };
		term__exit();
		return -ENOTTY;
	}
	term.screen = newterm(termname, term.out, term.in);
	if (!term.screen) {
		const char *t = getenv("TERM");

		*err = (struct tui_error){ .kind = TUI_ERR_TERM_SETUP, .name = t ? t : "" };
		term__exit();
		return -ENOTTY;
	}
	set_term(term.screen);
	term.active = true;
	{
		/* "dumb" and the like: curses starts but cannot draw a screen */
		const char *cup = tigetstr("cup");

		if (!cup || cup == (const char *)-1) {
			const char *t = getenv("TERM");

			*err = (struct tui_error){ .kind = TUI_ERR_NO_CURSOR, .name = t ? t : "" };
			term__exit();
			return -ENOTTY;
		}
	}
	if (!term.atexit_done) {
		atexit(term__exit);
		term.atexit_done = true;
	}
	setup_signals();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	setup_styles();
	if (term.script)
		resizeterm(size_from_env("LINES", 24), size_from_env("COLUMNS", 80));
	else
		mousemask(BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	wtimeout(stdscr, 200);
	return 0;
}

void term__exit(void)
{
	if (term.active) {
		endwin();
		term.active = false;
		restore_signals();
	}
	if (term.screen) {
		delscreen(term.screen);
		term.screen = NULL;
	}
	if (term.in)
		fclose(term.in);
	if (term.out)
		fclose(term.out);
	if (term.script)
		fclose(term.script);
	term.in = term.out = term.script = NULL;
}

int term__signal(void)
{
	return quit_signal;
}

int term__rows(void)
{
	return LINES;
}

int term__cols(void)
{
	return COLS;
}

bool term__utf8(void)
{
	return term.utf8;
}

const char *term__ellipsis(void)
{
	return term.utf8 ? "\u2026" : "+";
}

/* ---- headless: the key script and the dumps ---- */

static char cell_attr_letter(attr_t a, short pair)
{
	if (a & A_REVERSE)
		return 'R';
	if (pair > 0)
		return pair < 10 ? '0' + pair : 'C';
	if (a & A_BOLD)
		return 'B';
	if (a & A_UNDERLINE)
		return 'U';
	if (a & A_DIM)
		return 'D';
	return '.';
}

/* The screen as text (attrs false) or as attribute letters, trailing blanks
 * trimmed. */
static int dump_screen(const char *path, bool attrs)
{
	FILE *fp = fopen(path, "w");
	int rows = LINES, cols = COLS;
	cchar_t *line;

	if (!fp)
		return -errno;
	line = calloc(cols + 1, sizeof(*line));
	for (int y = 0; line && y < rows; y++) {
		char out[4 * 4096 + 8];
		size_t n = 0, keep = 0;

		mvwin_wchnstr(stdscr, y, 0, line, cols);
		for (int x = 0; x < cols && n + MB_LEN_MAX + 1 < sizeof(out); x++) {
			wchar_t wc[CCHARW_MAX + 1] = { 0 };
			attr_t a = 0;
			short pair = 0;
			mbstate_t st;
			size_t len;

			getcchar(&line[x], wc, &a, &pair, NULL);
			if (attrs) {
				out[n++] = cell_attr_letter(a, pair);
				if (out[n - 1] != '.')
					keep = n;
				continue;
			}
			memset(&st, 0, sizeof(st));
			len = wc[0] ? wcrtomb(out + n, wc[0], &st) : (size_t)-1;
			if (len == (size_t)-1) {
				out[n] = wc[0] ? '?' : ' ';
				len = 1;
			}
			n += len;
			if (wc[0] != L' ')
				keep = n;
		}
		fprintf(fp, "%.*s\n", (int)keep, out);
	}
	free(line);
	return fclose(fp) ? -errno : 0;
}

static bool next_word(char *buf, size_t size)
{
	int c;
	size_t n = 0;

	for (;;) {
		c = fgetc(term.script);
		if (c == EOF)
			return false;
		if (c == '#') {
			while (c != EOF && c != '\n')
				c = fgetc(term.script);
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
	}
	while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
		if (n + 1 < size)
			buf[n++] = c;
		c = fgetc(term.script);
	}
	buf[n] = '\0';
	return true;
}

static void script_error(const char *word, const char *what)
{
	fprintf(stderr, "c2cscan: %s: %s '%s'\n", term.script_path, what, word);
}

static int script_key(void)
{
	static const struct {
		const char *name;
		int key;
	} names[] = {
		{ "up", K_UP }, { "down", K_DOWN }, { "left", K_LEFT }, { "right", K_RIGHT },
		{ "pgup", K_PGUP }, { "pgdn", K_PGDN }, { "home", K_HOME }, { "end", K_END },
		{ "enter", K_ENTER }, { "esc", K_ESC }, { "tab", K_TAB }, { "backspace", K_BACKSPACE },
		{ "f1", K_F1 }, { "space", ' ' }, { "wheelup", K_WHEEL_UP }, { "wheeldown", K_WHEEL_DOWN },
	};
	char w[4096];

	if (term.word_pos < term.word_len) {
		char c = term.word[term.word_pos++];

		return (unsigned char)c;
	}
	while (next_word(w, sizeof(w))) {
		int cols, rows, ret;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(w, names[i].name))
				return names[i].key;
		if (!strcmp(w, "C-c")) {
			quit_signal = SIGINT;
			return K_QUIT_SIGNAL;
		}
		if (!w[1])
			return (unsigned char)w[0];
		if (!strncmp(w, "text:", 5)) {
			snprintf(term.word, sizeof(term.word), "%s", w + 5);
			term.word_len = strlen(term.word);
			term.word_pos = 0;
			if (term.word_len)
				return script_key();
			continue;
		}
		if (!strncmp(w, "resize:", 7) && sscanf(w + 7, "%dx%d", &cols, &rows) == 2 &&
		    cols >= 2 && rows >= 2 && cols <= 4096 && rows <= 4096) {
			resizeterm(rows, cols);
			return K_RESIZE;
		}
		if (!strncmp(w, "dump:", 5) || !strncmp(w, "attrs:", 6)) {
			bool attrs = w[0] == 'a';

			ret = dump_screen(w + (attrs ? 6 : 5), attrs);
			if (ret < 0) {
				script_error(w, strerror(-ret));
				return K_SCRIPT_END;
			}
			continue;
		}
		script_error(w, "unknown key script word");
		return K_SCRIPT_END;
	}
	return K_SCRIPT_END;
}

/* ---- keys ---- */

static int map_key(int ch)
{
	MEVENT ev;

	switch (ch) {
	case KEY_UP: return K_UP;
	case KEY_DOWN: return K_DOWN;
	case KEY_LEFT: return K_LEFT;
	case KEY_RIGHT: return K_RIGHT;
	case KEY_PPAGE: return K_PGUP;
	case KEY_NPAGE: return K_PGDN;
	case KEY_HOME: return K_HOME;
	case KEY_END: return K_END;
	case KEY_ENTER: case '\n': case '\r': return K_ENTER;
	case 27: return K_ESC;
	case KEY_BACKSPACE: case 127: case 8: return K_BACKSPACE;
	case KEY_F(1): return K_F1;
	case KEY_RESIZE: return K_RESIZE;
	case '\t': return K_TAB;
	case KEY_MOUSE:
		if (getmouse(&ev) == OK) {
			if (ev.bstate & BUTTON4_PRESSED)
				return K_WHEEL_UP;
			if (ev.bstate & BUTTON5_PRESSED)
				return K_WHEEL_DOWN;
		}
		return K_NONE;
	default:
		return ch >= 0 && ch < 256 ? ch : K_NONE;
	}
}

int term__key(void)
{
	if (term.script)
		return script_key();
	for (;;) {
		int ch, k;

		if (quit_signal)
			return K_QUIT_SIGNAL;
		ch = wgetch(stdscr);
		if (ch == ERR)
			continue;
		k = map_key(ch);
		if (k != K_NONE)
			return k;
	}
}

/* ---- drawing ---- */

/* s decoded to cells: invalid or unprintable bytes become '?'. */
static size_t decode(const char *s, wchar_t *out, size_t max, int *widths)
{
	mbstate_t st;
	size_t n = 0, len = strlen(s);

	memset(&st, 0, sizeof(st));
	while (len && n < max) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &st);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof(st));
			wc = L'?';
			k = 1;
		}
		w = wcwidth(wc);
		if (w < 0) {
			wc = L'?';
			w = 1;
		}
		out[n] = wc;
		widths[n++] = w;
		s += k;
		len -= k;
	}
	return n;
}

int term__width(const char *s)
{
	wchar_t wc[1024];
	int widths[1024], total = 0;
	size_t n = decode(s, wc, 1024, widths);

	for (size_t i = 0; i < n; i++)
		total += widths[i];
	return total;
}

int term__put(int y, int x, int w, enum tui_style st, const char *s)
{
	wchar_t wc[1024];
	int widths[1024], used = 0;
	size_t n, k;

	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	n = decode(s, wc, 1024, widths);
	for (k = 0; k < n && used + widths[k] <= w; k++)
		used += widths[k];
	wattr_set(stdscr, term.attrs[st], term.pairs[st], NULL);
	if (k)
		mvwaddnwstr(stdscr, y, x, wc, (int)k);
	wattr_set(stdscr, A_NORMAL, 0, NULL);
	return used;
}

void term__fill(int y, int x, int w, enum tui_style st)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	wattr_set(stdscr, term.attrs[st], term.pairs[st], NULL);
	mvwhline(stdscr, y, x, ' ' | term.attrs[st] | COLOR_PAIR(term.pairs[st]), w);
	wattr_set(stdscr, A_NORMAL, 0, NULL);
}

void term__clear(void)
{
	werase(stdscr);
}

void term__refresh(void)
{
	if (!term.script)
		wrefresh(stdscr);
}
