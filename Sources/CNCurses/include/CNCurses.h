#ifndef HLSTUI_CNCURSES_H
#define HLSTUI_CNCURSES_H
/* Wraps the ncursesw macros and globals Swift cannot import (getmaxyx, ACS_*, A_*, stdscr, LINES, COLS). */
#include <wchar.h>
#include <stddef.h>
#include <locale.h>

/* Starts curses on the terminal: locale, raw keys, no echo, keypad, hidden cursor; returns 0 on success. */
int hl_start(void);
/* Ends curses and restores the terminal; safe to call more than once and from a signal handler. */
void hl_stop(void);
/* 1 while curses is started. */
int hl_active(void);
/* The screen size. */
int hl_rows(void);
int hl_cols(void);
/* Moves and writes a UTF-8 string with attributes (bold, reverse, underline flags) and a colour pair. */
void hl_put(int y, int x, const char *utf8, int bold, int reverse, int underline, int pair);
/* Writes with an attribute mask: 1 bold, 2 reverse, 4 underline, 8 dim. */
void hl_put_attrs(int y, int x, const char *utf8, int attrs, int pair);
/* Key codes for page up/down, home, end, and the number of colour pairs. */
int hl_key_ppage(void);
int hl_key_npage(void);
int hl_key_home(void);
int hl_key_end(void);
int hl_color_pairs(void);
/* Installs handlers: SIGTERM/SIGHUP/SIGINT set a flag (read with hl_quit_requested); SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT restore the terminal and re-raise; atexit restores too. */
void hl_install_handlers(void);
int hl_quit_requested(void);
/* Forces a full repaint on the next refresh (after a resize). */
void hl_clear(void);
/* Clears, refreshes. */
void hl_erase(void);
void hl_refresh(void);
/* Reads a key with a timeout in ms; returns -1 on timeout, KEY_* codes or a wide char. */
int hl_getkey(int timeout_ms, int *is_function_key);
/* Colours: number supported (0 when none), and define pair n. */
int hl_colors(void);
void hl_init_pair(int pair, int fg, int bg);
int hl_alloc_pair(int fg, int bg);
void hl_put_pair(int y, int x, const char *utf8, int pair);
/* Key code constants. */
int hl_key_up(void);
int hl_key_down(void);
int hl_key_left(void);
int hl_key_right(void);
int hl_key_resize(void);
int hl_key_enter(void);
int hl_key_backspace(void);
int hl_key_f(int n);
/* The ncurses version string, e.g. "ncurses 6.4.20221231". */
const char *hl_curses_version(void);
/* Makes stdout line-buffered, so logs reach a pipe line by line. */
void hl_stdout_line_buffered(void);
/* Output capture (capture.c): fds 1 and 2 into a pipe drained by a reader thread; curses keeps the terminal. */
int hl_capture_start(void);
/* Captures fd 2 alone; hlstui's own lines go to hl_stderr_fd() meanwhile. */
int hl_capture_start_stderr(void);
/* Where hlstui's own stderr lines go: the stderr from before a capture, else 2. */
int hl_stderr_fd(void);
void hl_capture_stop(void);
int hl_capture_active(void);
/* The terminal's fd while capturing (else 1). */
int hl_terminal_fd(void);
/* Copies up to cap captured bytes not yet taken into buf; *lost gets the bytes dropped because nobody took them in time. */
size_t hl_capture_take(char *buf, size_t cap, size_t *lost);
/* Writes the last captured bytes to the restored stderr (the crash handler's). */
void hl_capture_dump_tail(void);
/* Whether the terminal can run the dashboard: 0, or a reason code (see shim.c). */
int hl_terminal_check(void);
/* 1 when the user's locale (before hlstui's own choice) is UTF-8; valid after hl_start. */
int hl_user_utf8(void);
/* Ctrl-Z: stop the job and take the terminal back on fg. */
void hl_suspend(void);
/* 1 once after SIGCONT arrived (the screen needs a full repaint). */
int hl_take_continued(void);
#endif
