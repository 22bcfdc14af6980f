#include "CNCurses.h"
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <langinfo.h>

static int started = 0;

int hl_start(void) {
    if (started) return 0;
    /* Wide characters need a UTF-8 locale: the user's, else C.UTF-8 (present on every Debian); mpv needs LC_NUMERIC=C. */
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    if (cs == NULL || strcmp(cs, "UTF-8") != 0) setlocale(LC_CTYPE, "C.UTF-8");
    setlocale(LC_NUMERIC, "C");
    if (newterm(NULL, stdout, stdin) == NULL) return -1;
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

void hl_put_attrs(int y, int x, const char *utf8, int attrs, int pair) {
    attr_t a = A_NORMAL;
    if (attrs & 1) a |= A_BOLD;
    if (attrs & 2) a |= A_REVERSE;
    if (attrs & 4) a |= A_UNDERLINE;
    if (attrs & 8) a |= A_DIM;
    attr_set(a, (short)pair, NULL);
    mvaddstr(y, x, utf8);
    attr_set(A_NORMAL, 0, NULL);
}

int hl_key_ppage(void) { return KEY_PPAGE; }
int hl_key_npage(void) { return KEY_NPAGE; }
int hl_key_home(void) { return KEY_HOME; }
int hl_key_end(void) { return KEY_END; }
int hl_color_pairs(void) { return (started && has_colors() && getenv("NO_COLOR") == NULL) ? COLOR_PAIRS : 0; }
void hl_clear(void) { clearok(stdscr, TRUE); }

static volatile sig_atomic_t quit_requested = 0;

static void on_quit(int sig) { (void)sig; quit_requested = 1; }

static void on_crash(int sig) {
    /* Restore the terminal first: the user must get a usable shell back even when hlstui crashes. */
    hl_stop();
    const char msg[] = "\nhlstui crashed (signal); the terminal was restored\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void at_exit_restore(void) { hl_stop(); }

void hl_install_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);
    atexit(at_exit_restore);
}

int hl_quit_requested(void) { return quit_requested; }
