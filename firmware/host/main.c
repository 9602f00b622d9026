/* The portable core built for Linux: the same protocol as the AVR, without the emulator.
 *
 *   takboard-host [--link PATH]   run on a fresh pty; prints "PTY /dev/pts/N", then one
 *                                 "LEDS ms=T n=N grb=HEX" line per LED write (PROTOCOL.md section 8);
 *                                 "BUTTON 1" / "BUTTON 0" on stdin press / release the button
 *   takboard-host --script        a test twin driven by lines on stdin, with a virtual clock:
 *       rx HEX       bytes arrive on the serial line, the core runs until it has handled them
 *       during HEX   bytes that will arrive while the next LED write is in progress
 *       tick MS      advance the clock MS milliseconds, running the core every millisecond
 *       button 1|0   the button's contact closes / opens, and the core runs once (bounce it with
 *                    ticks between)
 *       sync         prints "SYNC" (everything before it has been printed)
 *     and prints "TX HEX" for every write to the serial line and "LEDS ms=T n=N grb=HEX" per write.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../core/hal.h"
#include "../core/tk_core.h"

#define RING_SIZE 4096u

static uint8_t ring[RING_SIZE];
static uint32_t ring_head, ring_tail;
static bool script_mode;
static uint32_t virtual_ms;
static struct timespec started;
static int pty_master = -1;
static uint8_t during[512];
static size_t during_len;
static const char *link_path;
static bool button_down; /* the raw contact, set by a script line or a stdin line */

static void ring_push(uint8_t b)
{
    if (ring_head - ring_tail < RING_SIZE) {
        ring[ring_head++ % RING_SIZE] = b;
    }
}

uint32_t hal_millis(void)
{
    if (script_mode) {
        return virtual_ms;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (int64_t)(now.tv_sec - started.tv_sec) * 1000 + (now.tv_nsec - started.tv_nsec) / 1000000;
    return (uint32_t)ms;
}

bool hal_uart_read(uint8_t *byte)
{
    if (ring_tail == ring_head) {
        return false;
    }
    *byte = ring[ring_tail++ % RING_SIZE];
    return true;
}

bool hal_uart_pending(void)
{
    return ring_tail != ring_head;
}

static void print_hex(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        printf("%02x", data[i]);
    }
}

void hal_uart_write(const uint8_t *data, uint16_t len)
{
    if (script_mode) {
        printf("TX ");
        print_hex(data, len);
        printf("\n");
        fflush(stdout);
        return;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(pty_master, data + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return; /* nobody reading and the pty buffer full: like a UART with no cable */
        }
        done += (size_t)n;
    }
}

tk_show_result_t hal_leds_show(const uint8_t *grb, uint16_t len)
{
    printf("LEDS ms=%u n=%u grb=", (unsigned)hal_millis(), (unsigned)(len / 3u));
    print_hex(grb, len);
    printf("\n");
    fflush(stdout);
    if (!script_mode || during_len == 0) {
        return TK_SHOW_CLEAN;
    }
    /* The AVR rule: one 0x00 (the wake byte) may arrive during a write; anything else is lost
     * bytes on real hardware. */
    bool clean = during_len == 1 && during[0] == 0;
    for (size_t i = 0; i < during_len; i++) {
        ring_push(during[i]);
    }
    during_len = 0;
    return clean ? TK_SHOW_CLEAN : TK_SHOW_RX_DURING_WRITE;
}

uint8_t hal_reset_cause(void)
{
    return 1u; /* power-on */
}

uint8_t hal_baud_code(void)
{
    return 255u;
}

bool hal_button_down(void)
{
    return button_down;
}

/* "1" or "0" (after the command word) -> the button level; false for anything else. */
static bool parse_level(const char *text, bool *level)
{
    if (strcmp(text, "1") == 0 || strcmp(text, "0") == 0) {
        *level = text[0] == '1';
        return true;
    }
    return false;
}

static size_t parse_hex(const char *text, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (text[0] && text[1] && n < cap) {
        unsigned v;
        if (sscanf(text, "%2x", &v) != 1) {
            break;
        }
        out[n++] = (uint8_t)v;
        text += 2;
    }
    return n;
}

static tk_core_t core;

static int run_script(void)
{
    char line[8192];
    uint8_t bytes[4096];
    tk_core_init(&core);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (strncmp(line, "rx ", 3) == 0) {
            size_t n = parse_hex(line + 3, bytes, sizeof bytes);
            for (size_t i = 0; i < n; i++) {
                ring_push(bytes[i]);
            }
            tk_core_task(&core);
        } else if (strncmp(line, "during ", 7) == 0) {
            during_len = parse_hex(line + 7, during, sizeof during);
        } else if (strncmp(line, "tick ", 5) == 0) {
            long ms = strtol(line + 5, NULL, 10);
            for (long i = 0; i < ms; i++) {
                virtual_ms++;
                tk_core_task(&core);
            }
        } else if (strncmp(line, "button ", 7) == 0) {
            if (!parse_level(line + 7, &button_down)) {
                fprintf(stderr, "takboard-host: button wants 1 or 0: %s\n", line);
                return 2;
            }
            tk_core_task(&core); /* the main loop samples the pin at once, as on the chip */
        } else if (strcmp(line, "sync") == 0) {
            printf("SYNC\n");
            fflush(stdout);
        } else if (line[0] != 0) {
            fprintf(stderr, "takboard-host: unknown script line: %s\n", line);
            return 2;
        }
    }
    return 0;
}

static void on_signal(int sig)
{
    (void)sig;
    if (link_path) {
        unlink(link_path);
    }
    _exit(0);
}

static int run_pty(void)
{
    int slave;
    char name[128];
    if (openpty(&pty_master, &slave, name, NULL, NULL) < 0) {
        fprintf(stderr, "takboard-host: cannot create a pty: %s\n", strerror(errno));
        return 1;
    }
    /* Raw before anyone writes: the line discipline must not translate or echo frame bytes. Our
     * own slave fd stays open so a client closing and reopening the port never hangs us up. */
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    if (link_path) {
        unlink(link_path);
        if (symlink(name, link_path) != 0) {
            fprintf(stderr, "takboard-host: cannot create link %s: %s\n", link_path, strerror(errno));
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &started);
    tk_core_init(&core);
    printf("PTY %s\n", name);
    fflush(stdout);
    char control[64];
    size_t control_len = 0;
    bool control_open = true; /* stdin: "BUTTON 1" / "BUTTON 0" lines, until EOF */
    for (;;) {
        struct pollfd pfd[2] = {{.fd = pty_master, .events = POLLIN},
                                {.fd = control_open ? STDIN_FILENO : -1, .events = POLLIN}};
        poll(pfd, 2, 1);
        uint8_t buf[256];
        ssize_t n = read(pty_master, buf, sizeof buf);
        for (ssize_t i = 0; i < n; i++) {
            ring_push(buf[i]);
        }
        if (pfd[1].revents & (POLLIN | POLLHUP)) {
            char c;
            if (read(STDIN_FILENO, &c, 1) != 1) {
                control_open = false;
            } else if (c == '\n') {
                control[control_len] = 0;
                if (strncmp(control, "BUTTON ", 7) != 0 || !parse_level(control + 7, &button_down)) {
                    fprintf(stderr, "takboard-host: unknown control line: %s\n", control);
                }
                control_len = 0;
            } else if (control_len + 1 < sizeof control) {
                control[control_len++] = c;
            }
        }
        tk_core_task(&core);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--script") == 0) {
            script_mode = true;
        } else if (strcmp(argv[i], "--link") == 0 && i + 1 < argc) {
            link_path = argv[++i];
        } else {
            fprintf(stderr, "usage: takboard-host [--link PATH] | takboard-host --script\n");
            return 2;
        }
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    return script_mode ? run_script() : run_pty();
}
