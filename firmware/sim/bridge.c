/* takboard-sim: the real AVR firmware under simavr, wired like the board.
 *
 *   takboard-sim [--link PATH] [--speed X] [--wake-gap-us N] [--quiet-leds] FIRMWARE.elf
 *
 * - UART0 <-> a pty (printed as "PTY /dev/pts/N"), bytes delivered at the firmware's baud rate in
 *   simulated time, like a wire.
 * - PD6 (the WS2812B data pin) is decoded from its edges in simulated cycles: one
 *   "LEDS cycle=.. start=.. n=.. grb=.. t0h=min,max t1h=min,max bit=min,max" line per latched frame.
 * - "RXEND cycle=C" when a 0x00 byte has fully arrived; "RESET cycle=C" after SIGUSR1 (board reset).
 * - The push button on PD2 (to GND, pull-up): "BUTTON 1" on stdin presses it, "BUTTON 0" releases it;
 *   "BUTTON 1010001 every=US" plays the levels one every US microseconds of simulated time (a
 *   bouncing contact). "BUTTON cycle=C down=D" is printed for every level applied.
 * - Simulated time is paced to wall time (--speed 1, the default; 0 = as fast as possible), so the
 *   firmware's timeouts mean what they mean on the board.
 * - SIGTERM/SIGINT: exit at once, status 0.
 * The output format is part of firmware/PROTOCOL.md, section 8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

/* ATmega328P data-space addresses */
#define REG_UCSR0A 0xC0
#define REG_UBRR0L 0xC4
#define REG_UBRR0H 0xC5
#define BIT_U2X0 0x02

#define LATCH_US 50u      /* low this long ends a WS2812 frame */
#define ONE_THRESHOLD_NS 550u /* high longer than this is a 1 bit (T0H ~350 ns, T1H ~700 ns) */
#define MAX_LED_BYTES 4096u

static avr_t *avr;
static FILE *out;
static int master = -1;
static const char *link_path;
static volatile sig_atomic_t reset_requested;
static bool quiet_leds;
static double speed = 1.0;

/* ---- serial line ---- */
static avr_irq_t *uart_in;
static uint8_t to_avr[256];
static size_t to_avr_len, to_avr_pos;
static avr_cycle_count_t next_byte_cycle;
static bool uart_full;
static uint8_t from_avr[8192];
static size_t from_avr_len;

static void on_uart_output(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (from_avr_len < sizeof from_avr) {
        from_avr[from_avr_len++] = (uint8_t)value;
    }
}

static void on_uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uart_full = value != 0;
}

static void on_uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (value) {
        uart_full = false;
    }
}

/* simavr 1.6 does not store writes to UCSR0A, so the U2X bit would be lost and the emulated line
 * would run at half speed. Keep the bit ourselves (the firmware sets it before UBRR0). */
static void on_ucsr0a_write(struct avr_t *a, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    (void)param;
    a->data[REG_UCSR0A] = (uint8_t)((a->data[REG_UCSR0A] & ~BIT_U2X0) | (v & BIT_U2X0));
}

/* The byte time simavr's UART uses (it counts 11 bits, a parity bit included, and whole
 * microseconds): feeding faster would only queue bytes inside simavr and make RXEND early. */
static avr_cycle_count_t cycles_per_byte(void)
{
    uint32_t ubrr = avr->data[REG_UBRR0L] | ((uint32_t)avr->data[REG_UBRR0H] << 8);
    uint32_t baud = avr->frequency / (ubrr + 1u) / ((avr->data[REG_UCSR0A] & BIT_U2X0) ? 8u : 16u);
    uint32_t usec = baud >= 11u ? 1000000u / (baud / 11u) : 1000u;
    return (avr_cycle_count_t)usec * (avr->frequency / 1000000u);
}

/* ---- host -> AVR: a reader thread timestamps what the host writes ----
 * The host's pauses matter (the wake byte, then a guard pause, then the frame: PROTOCOL.md
 * section 3). Reading the pty from the simulation loop would merge a pause into one chunk whenever
 * the loop is late (a busy machine), so a thread reads as soon as bytes arrive, notes the wall
 * time, and the loop keeps the same gaps between chunks in simulated time. */
#define CHUNKS 256u
static struct {
    double wall;
    uint16_t len;
    uint8_t data[256];
} chunks[CHUNKS];
static unsigned chunk_head, chunk_tail; /* guarded by chunk_lock */
static pthread_mutex_t chunk_lock = PTHREAD_MUTEX_INITIALIZER;
static double last_chunk_wall = -1.0;
static avr_cycle_count_t last_chunk_cycle;
static uint32_t wake_gap_us = 5000;  /* --wake-gap-us */
static avr_cycle_count_t line_idle_since; /* when the last byte fed to the AVR ended */
static bool line_used;                    /* any byte fed since start or reset */

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *pty_reader(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd pfd = {.fd = master, .events = POLLIN};
        if (poll(&pfd, 1, 100) <= 0) {
            continue;
        }
        pthread_mutex_lock(&chunk_lock);
        bool room = chunk_head - chunk_tail < CHUNKS;
        pthread_mutex_unlock(&chunk_lock);
        if (!room) { /* the AVR side is behind: let the pty buffer hold the rest */
            usleep(1000);
            continue;
        }
        uint8_t buf[256];
        ssize_t n = read(master, buf, sizeof buf);
        if (n <= 0) {
            usleep(1000); /* EAGAIN, or no client has the port open (EIO) */
            continue;
        }
        double now = wall_seconds();
        pthread_mutex_lock(&chunk_lock);
        unsigned slot = chunk_head % CHUNKS;
        chunks[slot].wall = now;
        chunks[slot].len = (uint16_t)n;
        memcpy(chunks[slot].data, buf, (size_t)n);
        chunk_head++;
        pthread_mutex_unlock(&chunk_lock);
    }
    return NULL;
}

/* Moves bytes to the AVR at the line rate: one byte per byte-time, like a wire, each chunk no
 * earlier (in simulated time) than the host's pause before it allows. */
static void feed_uart(void)
{
    if (to_avr_pos == to_avr_len) {
        bool got = false;
        double wall = 0;
        pthread_mutex_lock(&chunk_lock);
        if (chunk_tail != chunk_head) {
            unsigned slot = chunk_tail % CHUNKS;
            memcpy(to_avr, chunks[slot].data, chunks[slot].len);
            to_avr_len = chunks[slot].len;
            to_avr_pos = 0;
            wall = chunks[slot].wall;
            chunk_tail++;
            got = true;
        }
        pthread_mutex_unlock(&chunk_lock);
        if (got) {
            avr_cycle_count_t earliest = avr->cycle;
            /* Only short pauses are kept exactly (the wake guard is a few ms): keeping long ones
             * would let a slow simulation fall further behind at every exchange. */
            if (last_chunk_wall >= 0 && wall > last_chunk_wall && wall - last_chunk_wall < 0.05) {
                double ratio = speed > 0 ? speed : 1.0;
                avr_cycle_count_t gap =
                    (avr_cycle_count_t)((wall - last_chunk_wall) * ratio * (double)avr->frequency);
                if (last_chunk_cycle + gap > earliest) {
                    earliest = last_chunk_cycle + gap;
                }
            }
            if (next_byte_cycle < earliest) {
                next_byte_cycle = earliest;
            }
            last_chunk_wall = wall;
            last_chunk_cycle = next_byte_cycle;
        }
    }
    while (to_avr_pos < to_avr_len && avr->cycle >= next_byte_cycle && !uart_full) {
        uint8_t byte = to_avr[to_avr_pos++];
        avr_cycle_count_t per_byte = cycles_per_byte();
        /* A 0x00 on an idle line is the host's wake byte, and the host pauses after it (PROTOCOL.md
         * section 3). This thread can see the pause shrink or vanish when it reads the pty late on
         * a loaded machine; a real USB-serial line keeps it. So keep the pause here, or the
         * emulator would invent collisions the board never sees. A host that sends no wake byte
         * at all is still caught; one that skips only the pause is caught by the board's overrun
         * flag, not here. */
        bool wake = byte == 0 && (!line_used || next_byte_cycle - line_idle_since >
                                                    (avr_cycle_count_t)avr->frequency / 1000u);
        line_used = true;
        avr_raise_irq(uart_in, byte);
        if (byte == 0) {
            fprintf(out, "RXEND cycle=%llu\n", (unsigned long long)(next_byte_cycle + per_byte));
            fflush(out);
        }
        next_byte_cycle += per_byte;
        line_idle_since = next_byte_cycle;
        if (wake) {
            next_byte_cycle += (avr_cycle_count_t)wake_gap_us * (avr->frequency / 1000000u);
        }
    }
}

static void drain_uart(void)
{
    size_t done = 0;
    while (done < from_avr_len) {
        ssize_t n = write(master, from_avr + done, from_avr_len - done);
        if (n <= 0) {
            break; /* nobody reading and the pty full: the bytes are gone, like on a real wire */
        }
        done += (size_t)n;
    }
    from_avr_len = 0;
}

/* ---- WS2812 decoder on PD6 ---- */
static struct {
    bool level;
    avr_cycle_count_t rise, fall, first_rise, prev_rise;
    uint32_t bits;
    uint8_t bytes[MAX_LED_BYTES];
    uint8_t current;
    uint32_t t0h_min, t0h_max, t1h_min, t1h_max, bit_min, bit_max;
} dec;

static void decoder_reset(void)
{
    memset(&dec, 0, sizeof dec);
    dec.t0h_min = dec.t1h_min = dec.bit_min = UINT32_MAX;
}

static avr_cycle_count_t us_to_cycles(uint32_t us)
{
    return (avr_cycle_count_t)avr->frequency / 1000000u * us;
}

static void emit_frame(void)
{
    if (dec.bits == 0) {
        return;
    }
    uint32_t n_bytes = dec.bits / 8u;
    if (!quiet_leds) {
        fprintf(out, "LEDS cycle=%llu start=%llu n=%u grb=", (unsigned long long)dec.fall,
                (unsigned long long)dec.first_rise, n_bytes / 3u);
        for (uint32_t i = 0; i < n_bytes && i < MAX_LED_BYTES; i++) {
            fprintf(out, "%02x", dec.bytes[i]);
        }
        fprintf(out, " t0h=%u,%u t1h=%u,%u bit=%u,%u", dec.t0h_min == UINT32_MAX ? 0 : dec.t0h_min,
                dec.t0h_max, dec.t1h_min == UINT32_MAX ? 0 : dec.t1h_min, dec.t1h_max,
                dec.bit_min == UINT32_MAX ? 0 : dec.bit_min, dec.bit_max);
        if (dec.bits % 8u) {
            fprintf(out, " stray_bits=%u", dec.bits % 8u);
        }
        fprintf(out, "\n");
        fflush(out);
    }
    bool level = dec.level;
    decoder_reset();
    dec.level = level;
}

static void on_led_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    bool level = value != 0;
    if (level == dec.level) {
        return;
    }
    dec.level = level;
    avr_cycle_count_t now = avr->cycle;
    if (level) {
        if (dec.bits > 0 && now - dec.fall >= us_to_cycles(LATCH_US)) {
            emit_frame();
            dec.level = true;
        }
        if (dec.bits == 0) {
            dec.first_rise = now;
        } else {
            uint32_t period = (uint32_t)(now - dec.prev_rise);
            if (period < dec.bit_min) dec.bit_min = period;
            if (period > dec.bit_max) dec.bit_max = period;
        }
        dec.rise = now;
        dec.prev_rise = now;
        return;
    }
    dec.fall = now;
    uint32_t high = (uint32_t)(now - dec.rise);
    bool one = (uint64_t)high * 1000000000u / avr->frequency > ONE_THRESHOLD_NS;
    if (one) {
        if (high < dec.t1h_min) dec.t1h_min = high;
        if (high > dec.t1h_max) dec.t1h_max = high;
    } else {
        if (high < dec.t0h_min) dec.t0h_min = high;
        if (high > dec.t0h_max) dec.t0h_max = high;
    }
    dec.current = (uint8_t)((dec.current << 1) | (one ? 1u : 0u));
    dec.bits++;
    if (dec.bits % 8u == 0 && dec.bits / 8u <= MAX_LED_BYTES) {
        dec.bytes[dec.bits / 8u - 1u] = dec.current;
    }
}

/* ---- the push button on PD2: levels asked for on stdin, applied in simulated time ----
 * The contact pulls the pin low against the AVR's internal pull-up. simavr re-applies the pull-up
 * level to an input pin whenever the firmware writes PORTD (the LED data pin is on the same port),
 * so the button is set as the port's "external" level, which wins over the pull-up, and raised. */
#define BUTTON_PIN 2
#define BUTTON_STEPS 64u
#define BUTTON_QUEUE 16u
typedef struct {
    char levels[BUTTON_STEPS];
    size_t len;
    uint32_t every_us;
    double wall; /* when the line was read */
} button_plan_t;
static button_plan_t button_queue[BUTTON_QUEUE];
static unsigned button_head, button_tail; /* guarded by button_lock */
static pthread_mutex_t button_lock = PTHREAD_MUTEX_INITIALIZER;
static button_plan_t button_plan; /* the one being played (simulation thread only) */
static size_t button_pos;
static avr_cycle_count_t button_next;
static bool button_down;
static avr_irq_t *button_irq;
static double button_last_wall = -1.0;
static avr_cycle_count_t button_last_cycle;

static void button_apply(bool down)
{
    button_down = down;
    avr_ioport_external_t ext = {.name = 'D', .mask = 1u << BUTTON_PIN,
                                 .value = down ? 0u : (1u << BUTTON_PIN)};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('D'), &ext);
    avr_raise_irq(button_irq, down ? 0u : 1u);
}

/* "BUTTON LEVELS [every=US]" -> a plan; false (and a message on stderr) for anything else. */
static bool button_parse(const char *line, button_plan_t *plan)
{
    char levels[BUTTON_STEPS + 1];
    unsigned every = 0;
    int fields = sscanf(line, "BUTTON %64s every=%u", levels, &every);
    size_t len = fields >= 1 ? strlen(levels) : 0;
    bool ok = len > 0 && len <= BUTTON_STEPS && strspn(levels, "01") == len &&
              (len == 1 || (fields == 2 && every > 0));
    if (!ok) {
        fprintf(stderr, "takboard-sim: bad control line (want BUTTON 1, BUTTON 0 or "
                        "BUTTON 0101.. every=US, up to %u levels): %s\n", BUTTON_STEPS, line);
        return false;
    }
    memcpy(plan->levels, levels, len);
    plan->len = len;
    plan->every_us = every;
    return true;
}

static void *control_reader(void *arg)
{
    (void)arg;
    char line[256];
    FILE *in = fdopen(STDIN_FILENO, "r");
    while (in && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = 0;
        button_plan_t plan;
        if (line[0] == 0 || !button_parse(line, &plan)) {
            continue;
        }
        plan.wall = wall_seconds();
        for (;;) {
            pthread_mutex_lock(&button_lock);
            bool room = button_head - button_tail < BUTTON_QUEUE;
            if (room) {
                button_queue[button_head % BUTTON_QUEUE] = plan;
                button_head++;
            }
            pthread_mutex_unlock(&button_lock);
            if (room) {
                break;
            }
            usleep(1000);
        }
    }
    return NULL; /* EOF: no more button changes; the pin keeps its level */
}

static void button_step(void)
{
    if (button_pos == button_plan.len) {
        pthread_mutex_lock(&button_lock);
        bool got = button_tail != button_head;
        if (got) {
            button_plan = button_queue[button_tail % BUTTON_QUEUE];
            button_tail++;
        }
        pthread_mutex_unlock(&button_lock);
        if (!got) {
            return;
        }
        button_pos = 0;
        /* "BUTTON 1", 100 ms, "BUTTON 0" must be a 100 ms press in simulated time even when the
         * simulation ran late and both lines wait here together (a loaded machine): keep the
         * wall-time gap between lines, up to 1 s (longer presses need no precision). */
        button_next = avr->cycle;
        double gap = button_plan.wall - button_last_wall;
        if (button_last_wall >= 0 && gap > 0) {
            double ratio = speed > 0 ? speed : 1.0;
            avr_cycle_count_t keep =
                button_last_cycle + (avr_cycle_count_t)((gap < 1.0 ? gap : 1.0) * ratio * avr->frequency);
            if (keep > button_next) {
                button_next = keep;
            }
        }
        button_last_wall = button_plan.wall;
        button_last_cycle = button_next;
    }
    while (button_pos < button_plan.len && avr->cycle >= button_next) {
        button_apply(button_plan.levels[button_pos++] == '1');
        fprintf(out, "BUTTON cycle=%llu down=%d\n", (unsigned long long)avr->cycle, button_down);
        fflush(out);
        button_next += (avr_cycle_count_t)button_plan.every_us * (avr->frequency / 1000000u);
    }
}

/* ---- process ---- */
static void on_terminate(int sig)
{
    (void)sig;
    if (link_path) {
        unlink(link_path);
    }
    _exit(0); /* no teardown: nothing to save, and simavr's own teardown can hang */
}

static void on_reset_signal(int sig)
{
    (void)sig;
    reset_requested = 1;
}

static int open_pty(void)
{
    int slave;
    char name[128];
    if (openpty(&master, &slave, name, NULL, NULL) < 0) {
        fprintf(stderr, "takboard-sim: cannot create a pty: %s\n", strerror(errno));
        return -1;
    }
    /* Raw mode before anyone writes; keep our slave fd open so a client closing the port does not
     * hang the line up (the board stays powered when the host closes the port). */
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    if (link_path) {
        unlink(link_path);
        if (symlink(name, link_path) != 0) {
            fprintf(stderr, "takboard-sim: cannot create link %s: %s\n", link_path, strerror(errno));
            return -1;
        }
    }
    fprintf(out, "PTY %s\n", name);
    fflush(out);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: takboard-sim [--link PATH] [--speed X] [--wake-gap-us N] [--quiet-leds] FIRMWARE.elf\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *elf = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--link") == 0 && i + 1 < argc) {
            link_path = argv[++i];
        } else if (strcmp(argv[i], "--speed") == 0 && i + 1 < argc) {
            speed = atof(argv[++i]);
        } else if (strcmp(argv[i], "--wake-gap-us") == 0 && i + 1 < argc) {
            wake_gap_us = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--quiet-leds") == 0) {
            quiet_leds = true;
        } else if (argv[i][0] != '-' && !elf) {
            elf = argv[i];
        } else {
            return usage();
        }
    }
    if (!elf) {
        return usage();
    }
    /* Our report lines own stdout; simavr's chatter goes to stderr. */
    out = fdopen(dup(STDOUT_FILENO), "w");
    dup2(STDERR_FILENO, STDOUT_FILENO);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (access(elf, R_OK) != 0 || elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "takboard-sim: cannot read firmware %s\n", elf);
        return 1;
    }
    avr = avr_make_mcu_by_name(fw.mmcu[0] ? fw.mmcu : "atmega328p");
    if (!avr) {
        fprintf(stderr, "takboard-sim: unknown MCU '%s' in %s\n", fw.mmcu, elf);
        return 1;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    if (avr->frequency == 0) {
        avr->frequency = 16000000;
    }

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_POLL_SLEEP | AVR_UART_FLAG_STDIO); /* else ~270x slower */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_register_io_write(avr, REG_UCSR0A, on_ucsr0a_write, NULL);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_output, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_uart_xoff, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), IOPORT_IRQ_PIN0 + 6),
                            on_led_pin, NULL);
    decoder_reset();
    button_irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), IOPORT_IRQ_PIN0 + BUTTON_PIN);
    button_apply(false);

    signal(SIGTERM, on_terminate);
    signal(SIGINT, on_terminate);
    signal(SIGUSR1, on_reset_signal);
    signal(SIGPIPE, SIG_IGN);
    if (open_pty() != 0) {
        return 1;
    }

    pthread_t reader, control;
    if (pthread_create(&reader, NULL, pty_reader, NULL) != 0 ||
        pthread_create(&control, NULL, control_reader, NULL) != 0) {
        fprintf(stderr, "takboard-sim: cannot start the reader threads\n");
        return 1;
    }
    /* The simulation loop may spin; the reader must win the CPU when the host writes, or its
     * timestamps (and so the host's pauses) come late. On Linux this lowers only this thread. */
    setpriority(PRIO_PROCESS, 0, 10);
    double wall_start = wall_seconds();
    avr_cycle_count_t cycle_start = avr->cycle;
    for (;;) {
        for (int i = 0; i < 2000; i++) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "takboard-sim: the firmware stopped (state %d) at cycle %llu\n", state,
                        (unsigned long long)avr->cycle);
                return 1;
            }
        }
        feed_uart();
        drain_uart();
        button_step();
        if (dec.bits > 0 && !dec.level && avr->cycle - dec.fall >= us_to_cycles(LATCH_US)) {
            emit_frame();
        }
        if (reset_requested) {
            reset_requested = 0;
            avr_reset(avr);
            decoder_reset();
            to_avr_pos = to_avr_len = 0;
            next_byte_cycle = avr->cycle;
            last_chunk_wall = -1.0;
            line_used = false;
            uart_full = false;
            /* The reset cleared PIND but not the pin IRQ's remembered level, and simavr passes on
             * only changes: raise the other level first (no cycle runs between the two). */
            bool finger = button_down; /* the finger stays where it was */
            button_apply(!finger);
            button_apply(finger);
            fprintf(out, "RESET cycle=%llu\n", (unsigned long long)avr->cycle);
            fflush(out);
        }
        if (speed > 0) {
            double sim_s = (double)(avr->cycle - cycle_start) / avr->frequency / speed;
            double ahead = sim_s - (wall_seconds() - wall_start);
            if (ahead > 0.002) {
                usleep((useconds_t)(ahead * 1e6));
            } else if (ahead < -0.5) {
                /* slower than real time (a busy machine): do not try to catch up in a burst */
                wall_start += -ahead - 0.5;
            }
        }
    }
}
