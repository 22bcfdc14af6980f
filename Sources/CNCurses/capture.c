/* Keeps the terminal hlstui's alone while the dashboard owns it: file descriptors 1 and 2 (where C libraries such as ALSA
   and PipeWire write directly) go into a pipe that a reader thread drains; curses writes to a duplicate of the terminal. */
#include "CNCurses.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int saved_out = -1;     /* the terminal, as fd 1 was before the capture */
static int saved_err = -1;     /* fd 2 before the capture */
static int pipe_read = -1;
static volatile sig_atomic_t capturing = 0;
static int only_err = 0;       /* hl_capture_start_stderr: fd 2 alone is captured, fd 1 stays where it was */
static volatile sig_atomic_t reader_done = 1; /* the reader saw the pipe's end and holds nothing it has not remembered */
static pthread_t reader;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* What the reader took and Swift has not: bounded; the oldest bytes go when a library floods. */
#define PENDING_MAX (256 * 1024)
static char *pending = NULL;
static size_t pending_len = 0;
static size_t dropped = 0;

/* The last bytes captured, for the crash handler to show after it gave the terminal back. */
#define TAIL_MAX 4096
static char tail[TAIL_MAX];
static volatile size_t tail_len = 0;

static void remember_tail(const char *b, size_t n) {
    if (n >= TAIL_MAX) { memcpy(tail, b + n - TAIL_MAX, TAIL_MAX); tail_len = TAIL_MAX; return; }
    if (tail_len + n > TAIL_MAX) {
        size_t keep = TAIL_MAX - n;
        memmove(tail, tail + tail_len - keep, keep);
        tail_len = keep;
    }
    memcpy(tail + tail_len, b, n);
    tail_len += n;
}

static void *read_loop(void *arg) {
    (void)arg;
    char b[4096];
    for (;;) {
        ssize_t n = read(pipe_read, b, sizeof b);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pthread_mutex_lock(&mu);
        remember_tail(b, (size_t)n);
        if (pending_len + (size_t)n > PENDING_MAX) {
            size_t cut = pending_len + (size_t)n - PENDING_MAX;
            if (cut > pending_len) cut = pending_len;
            memmove(pending, pending + cut, pending_len - cut);
            pending_len -= cut;
            dropped += cut;
        }
        size_t take = (size_t)n > PENDING_MAX ? PENDING_MAX : (size_t)n;
        memcpy(pending + pending_len, b + n - take, take);
        pending_len += take;
        pthread_mutex_unlock(&mu);
    }
    reader_done = 1;
    return NULL;
}

/* Captures fd 2, and fd 1 too unless `err_only`. */
static int capture_start(int err_only) {
    if (capturing) return 0;
    int p[2];
    fflush(stdout);
    fflush(stderr);
    if (pending == NULL && (pending = malloc(PENDING_MAX)) == NULL) return -1;
    if (pipe(p) != 0) return -1;
    saved_out = err_only ? -1 : fcntl(1, F_DUPFD_CLOEXEC, 3);
    saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if ((!err_only && saved_out < 0) || saved_err < 0) { close(p[0]); close(p[1]); return -1; }
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    pipe_read = p[0];
    if ((!err_only && dup2(p[1], 1) < 0) || dup2(p[1], 2) < 0) {
        if (!err_only) dup2(saved_out, 1);
        dup2(saved_err, 2);
        close(p[0]);
        close(p[1]);
        return -1;
    }
    close(p[1]);
    only_err = err_only;
    capturing = 1;
    reader_done = 0;
    if (pthread_create(&reader, NULL, read_loop, NULL) != 0) { hl_capture_stop(); return -1; }
    pthread_detach(reader);
    return 0;
}

int hl_capture_start(void) { return capture_start(0); }

/* Captures fd 2 alone (the headless commands: their stdout is their output): what libraries write there goes into the pipe,
   hlstui's own lines go to hl_stderr_fd(). */
int hl_capture_start_stderr(void) { return capture_start(1); }

int hl_capture_active(void) { return capturing; }

int hl_terminal_fd(void) { return capturing && !only_err ? saved_out : 1; }

int hl_stderr_fd(void) { return capturing ? saved_err : 2; }

/* Async-signal-safe: only dup2. The reader sees end of file once no descriptor holds the pipe's write end. */
void hl_capture_stop(void) {
    if (!capturing) return;
    capturing = 0;
    fflush(stdout);
    fflush(stderr);
    if (!only_err) dup2(saved_out, 1);
    dup2(saved_err, 2);
    only_err = 0;
}

size_t hl_capture_take(char *buf, size_t cap, size_t *lost) {
    pthread_mutex_lock(&mu);
    size_t n = pending_len < cap ? pending_len : cap;
    if (n > 0) {
        memcpy(buf, pending, n);
        memmove(pending, pending + n, pending_len - n);
        pending_len -= n;
    }
    if (lost) { *lost = dropped; dropped = 0; }
    pthread_mutex_unlock(&mu);
    return n;
}

/* From the crash handler, after the terminal is back: what was captured last (the runtime's own message among it). */
void hl_capture_dump_tail(void) {
    if (saved_err < 0) return;
    /* The capture is stopped, so no descriptor holds the pipe's write end any more: the reader drains what is left, sees
       the end and says so. Wait for that (bounded, with nanosleep, which is async-signal-safe): bytes the reader has read
       but not yet remembered — the runtime's message is often among them — would be lost otherwise. */
    for (int i = 0; i < 100 && !reader_done; i++) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* A reader that did not finish (a child process kept the write end): read what is left without blocking. */
    if (pipe_read >= 0 && !reader_done) {
        int fl = fcntl(pipe_read, F_GETFL);
        fcntl(pipe_read, F_SETFL, fl | O_NONBLOCK);
        char b[2048];
        ssize_t n;
        while ((n = read(pipe_read, b, sizeof b)) > 0) remember_tail(b, (size_t)n);
    }
    if (tail_len == 0) return;
    const char head[] = "hlstui: the last output captured while the dashboard ran:\n";
    ssize_t w = write(2, head, sizeof head - 1);
    w = write(2, tail, tail_len);
    (void)w;
}
