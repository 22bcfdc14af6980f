#include "CNCurses.h"
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <stdio.h>
#include <signal.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <langinfo.h>
#include <ncursesw/term.h>

static int started = 0;
static int user_utf8 = 1;
static SCREEN *screen = NULL;
static FILE *term_out = NULL;

int hl_user_utf8(void) { return user_utf8; }

/* 0 when stdin and stdout are a terminal that terminfo knows and that can address the cursor; else why not (1 stdin,
   2 stdout not a terminal, 3 TERM unset, 4 no terminfo entry for TERM, 5 the entry cannot move the cursor). */
int hl_terminal_check(void) {
    if (!isatty(0)) return 1;
    if (!isatty(hl_terminal_fd())) return 2;
    const char *t = getenv("TERM");
    if (t == NULL || *t == 0) return 3;
    int err = 0;
    if (setupterm(NULL, hl_terminal_fd(), &err) != OK) return 4;
    const char *cup = tigetstr("cup");
    int movable = cup != NULL && cup != (char *)-1;
    del_curterm(cur_term);
    return movable ? 0 : 5;
}

/* The direct-colour terminfo entry to use when COLORTERM says the terminal takes 24-bit colour (the convention terminals and
   applications follow: "truecolor" or "24bit") and TERM names a 256-colour entry: TERM's family with "-direct" (xterm-direct,
   tmux-direct, vte-direct, ...), when terminfo has it; NULL to use TERM as it is. */
static const char *direct_terminal(void) {
    static char name[96];
    const char *ct = getenv("COLORTERM");
    const char *t = getenv("TERM");
    if (ct == NULL || t == NULL || (strcmp(ct, "truecolor") != 0 && strcmp(ct, "24bit") != 0)) return NULL;
    if (strstr(t, "-direct") != NULL) return NULL;
    const char *dash = strchr(t, '-');
    int n = dash ? (int)(dash - t) : (int)strlen(t);
    snprintf(name, sizeof name, "%.*s-direct", n, t);
    int err = 0;
    if (setupterm(name, hl_terminal_fd(), &err) != OK) return NULL;
    int colors = tigetnum("colors");
    del_curterm(cur_term);
    return colors >= (1 << 24) ? name : NULL;
}

int hl_start(void) {
    if (started) return 0;
    /* Wide characters need a UTF-8 locale: the user's, else C.UTF-8 (present on every Debian); mpv needs LC_NUMERIC=C. */
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    user_utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
    if (!user_utf8) setlocale(LC_CTYPE, "C.UTF-8");
    setlocale(LC_NUMERIC, "C");
    /* While the output is captured, curses writes to the terminal as fd 1 was before (hl_capture_start). */
    if (term_out == NULL) {
        int fd = hl_capture_active() ? dup(hl_terminal_fd()) : 1;
        term_out = fd == 1 ? stdout : fdopen(fd, "w");
        if (term_out == NULL) return -1;
    }
    if (screen == NULL) {
        const char *direct = direct_terminal();
        if (direct != NULL) screen = newterm(direct, term_out, stdin);
        if (screen == NULL) screen = newterm(NULL, term_out, stdin);
    }
    else { set_term(screen); refresh(); }
    if (screen == NULL) return -1;
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

/* A colour pair for (fg, bg) from ncurses' own pool (alloc_pair: found or made, the least recently used reused when the
   terminal's pairs run out); -1 when none. */
int hl_alloc_pair(int fg, int bg) { return alloc_pair(fg, bg); }

/* Writes utf8 at (y, x) in an extended colour pair (pairs above 32767 need the opts pointer). */
void hl_put_pair(int y, int x, const char *utf8, int pair) {
    attr_set(A_NORMAL, 0, &pair);
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
    hl_capture_stop();
    hl_capture_dump_tail();
    const char msg[] = "\nhlstui crashed (signal); the terminal was restored\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void at_exit_restore(void) { hl_stop(); hl_capture_stop(); }

static volatile sig_atomic_t continued = 0;
static void on_continue(int sig) { (void)sig; continued = 1; }
int hl_take_continued(void) { int c = continued; continued = 0; return c; }

/* Ctrl-Z in raw mode arrives as a key: give the terminal back, stop the job as the terminal driver would, and take the
   terminal again when the shell continues it (fg). */
void hl_suspend(void) {
    if (!started) return;
    def_prog_mode();
    endwin();
    struct sigaction dfl, old;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &old);
    /* Sent to this thread, unblocked here: it takes the stop itself as raise returns. Sent to the process, another thread
       could take it after curses' own handler is back, and that handler ignores a stop while curses is ended. */
    sigset_t tstp, before;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    pthread_sigmask(SIG_UNBLOCK, &tstp, &before);
    raise(SIGTSTP);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    sigaction(SIGTSTP, &old, NULL);
    reset_prog_mode();
    clearok(stdscr, TRUE);
    refresh();
}

void hl_install_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_continue;
    sigaction(SIGCONT, &sa, NULL);
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
