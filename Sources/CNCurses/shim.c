#include "CNCurses.h"
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <stdio.h>

static int started = 0;

int hl_start(void) {
    if (started) return 0;
    if (initscr() == NULL) return -1;
    started = 1;
    raw();
    noecho();
    keypad(stdscr, TRUE);
    nonl();
    curs_set(0);
    if (has_colors() && getenv("NO_COLOR") == NULL) {
        start_color();
        use_default_colors();
    }
    return 0;
}

void hl_stop(void) {
    if (!started) return;
    started = 0;
    curs_set(1);
    endwin();
}

int hl_active(void) { return started; }
int hl_rows(void) { int y, x; getmaxyx(stdscr, y, x); (void)x; return y; }
int hl_cols(void) { int y, x; getmaxyx(stdscr, y, x); (void)y; return x; }

void hl_put(int y, int x, const char *utf8, int bold, int reverse, int underline, int pair) {
    attr_t a = A_NORMAL;
    if (bold) a |= A_BOLD;
    if (reverse) a |= A_REVERSE;
    if (underline) a |= A_UNDERLINE;
    attr_set(a, (short)pair, NULL);
    mvaddstr(y, x, utf8);
    attr_set(A_NORMAL, 0, NULL);
}

void hl_erase(void) { erase(); }
void hl_refresh(void) { refresh(); }

int hl_getkey(int timeout_ms, int *is_function_key) {
    wint_t ch = 0;
    timeout(timeout_ms);
    int r = get_wch(&ch);
    if (r == ERR) return -1;
    *is_function_key = (r == KEY_CODE_YES);
    return (int)ch;
}

int hl_colors(void) { return (started && has_colors() && getenv("NO_COLOR") == NULL) ? COLORS : 0; }
void hl_init_pair(int pair, int fg, int bg) { init_pair((short)pair, (short)fg, (short)bg); }
int hl_key_up(void) { return KEY_UP; }
int hl_key_down(void) { return KEY_DOWN; }
int hl_key_left(void) { return KEY_LEFT; }
int hl_key_right(void) { return KEY_RIGHT; }
int hl_key_resize(void) { return KEY_RESIZE; }
int hl_key_enter(void) { return KEY_ENTER; }
int hl_key_backspace(void) { return KEY_BACKSPACE; }
int hl_key_f(int n) { return KEY_F(n); }
const char *hl_curses_version(void) { return curses_version(); }

void hl_stdout_line_buffered(void) { setvbuf(stdout, NULL, _IOLBF, 0); }
