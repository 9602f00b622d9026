/* Unit tests of the portable core's pure parts, run under ASan/UBSan by `make test`.
 * The protocol state machine is tested through the host build from tests/firmware/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hal.h"
#include "../core/tk_button.h"
#include "../core/tk_cobs.h"
#include "../core/tk_core.h"
#include "../core/tk_crc.h"
#include "../core/tk_frame.h"
#include "../core/tk_layout.h"
#include "../core/tk_render.h"

/* tk_core.c needs a platform; these tests never run the core task. */
uint32_t hal_millis(void) { return 0; }
bool hal_uart_read(uint8_t *byte) { (void)byte; return false; }
bool hal_uart_pending(void) { return false; }
void hal_uart_write(const uint8_t *data, uint16_t len) { (void)data; (void)len; }
tk_show_result_t hal_leds_show(const uint8_t *grb, uint16_t len) { (void)grb; (void)len; return TK_SHOW_CLEAN; }
uint8_t hal_reset_cause(void) { return 0; }
uint8_t hal_baud_code(void) { return 255; }
bool hal_button_down(void) { return false; }

static int failures;
static int checks;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static uint32_t rng = 12345u; /* seeded: failures reproduce */
static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void test_crc_check_value(void)
{
    const uint8_t text[] = "123456789";
    CHECK(tk_crc16(TK_CRC_INIT, text, 9) == 0x29B1, "got %04x", tk_crc16(TK_CRC_INIT, text, 9));
}

static void test_cobs_round_trips_every_length_and_zero_pattern(void)
{
    static uint8_t src[700], enc[720], dec[720];
    for (uint16_t len = 0; len < 700; len++) {
        for (int pattern = 0; pattern < 3; pattern++) {
            for (uint16_t i = 0; i < len; i++) {
                uint8_t v = (uint8_t)next_random();
                src[i] = pattern == 0 ? (uint8_t)(v | 1) : pattern == 1 ? 0 : v;
            }
            uint16_t n = tk_cobs_encode(src, len, enc, sizeof enc);
            CHECK(n > 0 && n <= TK_COBS_MAX_ENCODED(len), "len %u -> %u", len, n);
            CHECK(memchr(enc, 0, n) == NULL, "zero in encoding of len %u", len);
            uint16_t out = 0;
            CHECK(tk_cobs_decode(enc, n, dec, &out), "decode len %u", len);
            CHECK(out == len && memcmp(src, dec, len) == 0, "round trip len %u (got %u)", len, out);
            /* in place */
            CHECK(tk_cobs_decode(enc, n, enc, &out) && out == len && memcmp(src, enc, len) == 0,
                  "in-place len %u", len);
        }
    }
}

static void test_cobs_rejects_malformed_input(void)
{
    uint8_t out[16];
    uint16_t n;
    const uint8_t truncated[] = {0x05, 0x01, 0x02};
    CHECK(!tk_cobs_decode(truncated, sizeof truncated, out, &n), "group past the end");
    const uint8_t inner_zero[] = {0x03, 0x00, 0x01};
    CHECK(!tk_cobs_decode(inner_zero, sizeof inner_zero, out, &n), "zero inside");
    uint8_t small[4];
    const uint8_t payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(tk_cobs_encode(payload, sizeof payload, small, sizeof small) == 0, "capacity respected");
}

static void test_parser_reports_crc_and_resyncs(void)
{
    uint8_t buf[TK_RX_CAP], scratch[64], wire[80];
    tk_parser_t p;
    tk_frame_t f;
    tk_parser_init(&p, buf, sizeof buf);
    uint8_t body[3] = {9, 0, 7};
    uint16_t n = tk_frame_build(0x02, 0x33, body, 3, scratch, sizeof scratch, wire, sizeof wire);
    wire[2] ^= 0x40; /* corrupt */
    int events = 0;
    for (uint16_t i = 0; i < n; i++) {
        if (tk_parser_feed(&p, wire[i], &f)) {
            events++;
            CHECK(f.error == TK_ERR_BAD_CRC, "error %u", f.error);
        }
    }
    wire[2] ^= 0x40;
    for (uint16_t i = 0; i < n; i++) {
        if (tk_parser_feed(&p, wire[i], &f)) {
            events++;
            CHECK(f.error == 0 && f.type == 0x02 && f.seq == 0x33 && f.body_len == 3 &&
                      memcmp(f.body, body, 3) == 0,
                  "good frame after a bad one");
        }
    }
    CHECK(events == 2, "events %d", events);
}

static void test_parser_overlong_input_is_one_too_long_error(void)
{
    uint8_t buf[TK_RX_CAP];
    tk_parser_t p;
    tk_frame_t f;
    tk_parser_init(&p, buf, sizeof buf);
    int events = 0;
    for (int i = 0; i < 2000; i++) {
        events += tk_parser_feed(&p, 0x55, &f);
    }
    CHECK(events == 0, "no event before the delimiter");
    CHECK(tk_parser_feed(&p, 0, &f) && f.error == TK_ERR_TOO_LONG, "too long");
    CHECK(!tk_parser_busy(&p), "resynced");
}

static void test_layout_is_a_bijection_for_every_configuration(void)
{
    for (uint8_t size = 3; size <= 8; size++) {
        for (uint8_t lps = 1; lps <= 4; lps++) {
            for (uint8_t wiring = 0; wiring < 2; wiring++) {
                for (uint8_t corner = 0; corner < 4; corner++) {
                    for (uint8_t axis = 0; axis < 2; axis++) {
                        tk_config_t c = {size, lps, wiring, corner, axis, 1500, 5000};
                        if (!tk_config_valid(&c)) {
                            CHECK(size * size * lps > TK_MAX_LEDS, "valid config rejected");
                            continue;
                        }
                        uint8_t seen[TK_MAX_LEDS] = {0};
                        for (uint8_t sq = 0; sq < size * size; sq++) {
                            uint16_t first = tk_layout_first_led(&c, sq);
                            CHECK(first % lps == 0 && first + lps <= tk_config_led_count(&c),
                                  "square %u -> %u", sq, first);
                            seen[first / lps]++;
                        }
                        for (uint8_t k = 0; k < size * size; k++) {
                            CHECK(seen[k] == 1, "chain slot %u used %u times", k, seen[k]);
                        }
                    }
                }
            }
        }
    }
}

static void test_layout_serpentine_from_bottom_left_matches_the_hardware_readme(void)
{
    tk_config_t c;
    tk_config_default(&c);
    for (uint8_t led = 0; led < 64; led++) {
        uint8_t rank = led / 8;
        uint8_t file = (rank % 2 == 0) ? led % 8 : 7 - led % 8;
        CHECK(tk_layout_first_led(&c, (uint8_t)(rank * 8 + file)) == led, "led %u", led);
    }
    c.start_corner = TK_CORNER_TOP_RIGHT;
    c.wiring = TK_WIRING_ROW_MAJOR;
    c.axis = TK_AXIS_FILES;
    CHECK(tk_layout_first_led(&c, 63) == 0, "h8 first");
    CHECK(tk_layout_first_led(&c, 55) == 1, "h7 second: along the file");
    CHECK(tk_layout_first_led(&c, 62) == 8, "g8 starts the second file");
}

static void test_current_cap_never_exceeds_budget(void)
{
    static uint8_t grb[TK_MAX_LEDS * 3];
    for (int round = 0; round < 3000; round++) {
        uint16_t leds = (uint16_t)(1 + next_random() % TK_MAX_LEDS);
        uint16_t budget = (uint16_t)(leds + 50 + next_random() % 4000);
        bool bright = round % 3 == 0;
        uint32_t sum_before = 0;
        for (uint16_t i = 0; i < leds * 3; i++) {
            grb[i] = bright ? 255 : (uint8_t)next_random();
            sum_before += grb[i];
        }
        tk_render_stats_t st;
        tk_limit_current(grb, leds, budget, &st);
        uint32_t sum = 0;
        for (uint16_t i = 0; i < leds * 3; i++) {
            sum += grb[i];
        }
        CHECK(tk_estimate_ma(leds, sum) <= budget, "leds %u budget %u est %u", leds, budget,
              tk_estimate_ma(leds, sum));
        CHECK(st.estimate_ma == tk_estimate_ma(leds, sum), "reported estimate");
        if (st.request_ma <= budget) {
            CHECK(sum == sum_before, "a frame within budget is untouched");
        } else {
            /* not needlessly dark: the loss is the rounding down of each channel (< 1 step each)
             * plus the 16-bit scale factor (< 1 mA) */
            uint32_t slack = (uint32_t)leds * 3u * 20u / 255u + 3u;
            CHECK(st.estimate_ma + slack >= budget, "est %u budget %u", st.estimate_ma, budget);
        }
    }
}

static void test_all_white_board_is_scaled_to_the_default_budget(void)
{
    tk_config_t c;
    tk_config_default(&c);
    tk_square_t squares[64];
    for (int i = 0; i < 64; i++) {
        squares[i] = (tk_square_t){255, 255, 255, TK_FX_SOLID, 0};
    }
    static uint8_t grb[TK_MAX_LEDS * 3];
    tk_render_stats_t st;
    tk_render(&c, squares, false, 255, 0, grb, &st);
    CHECK(st.request_ma == 64 + 64 * 3 * 20, "request %u", st.request_ma);
    CHECK(st.estimate_ma <= 1500 && st.estimate_ma > 1450, "estimate %u", st.estimate_ma);
}

static void test_effects_follow_the_protocol_formulas(void)
{
    tk_square_t blink = {200, 100, 50, TK_FX_BLINK, 10}; /* 200 ms */
    uint8_t rgb[3];
    tk_effect_colour(&blink, 1000 + 99, rgb);
    CHECK(rgb[0] == 200 && rgb[1] == 100 && rgb[2] == 50, "blink on in the first half");
    tk_effect_colour(&blink, 1000 + 100, rgb);
    CHECK(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0, "blink off in the second half");
    CHECK(tk_pulse_level(0, 1000) == 0 && tk_pulse_level(500, 1000) == 255, "pulse ends and peak");
    CHECK(tk_pulse_level(250, 1000) == 127, "pulse quarter %u", tk_pulse_level(250, 1000));
    for (uint32_t x = 0; x <= 65025; x++) {
        if (tk_div255((uint16_t)x) != x / 255) {
            CHECK(0, "div255(%u)", x);
            break;
        }
    }
}

/* Feeds `level` every millisecond for `ms` ms (the core samples at least that often); returns the
 * presses completed meanwhile. */
static int hold_level(tk_button_t *b, bool level, uint32_t *now, uint32_t ms)
{
    int pressed = 0;
    for (uint32_t i = 0; i < ms; i++) {
        pressed += tk_button_update(b, level, (*now)++);
    }
    return pressed;
}

static void test_button_one_clean_press_counts_once(void)
{
    tk_button_t b;
    uint32_t now = 1000;
    tk_button_init(&b, false, now);
    CHECK(hold_level(&b, true, &now, TK_DEBOUNCE_MS) == 0 && !b.down, "not yet after 19 ms");
    CHECK(hold_level(&b, true, &now, 1) == 1 && b.down && b.presses == 1, "a press at 20 ms");
    CHECK(hold_level(&b, true, &now, 5000) == 0 && b.presses == 1, "held 5 s: still one press");
    CHECK(hold_level(&b, false, &now, 100) == 0 && !b.down && b.presses == 1, "release: no press");
}

static void test_button_bounces_shorter_than_the_debounce_time_are_ignored(void)
{
    tk_button_t b;
    uint32_t now = 0;
    tk_button_init(&b, false, now);
    /* glitches of 1..19 ms never make a press, however many */
    for (uint32_t width = 1; width < TK_DEBOUNCE_MS; width++) {
        CHECK(hold_level(&b, true, &now, width) == 0, "glitch %u ms", width);
        CHECK(hold_level(&b, false, &now, 3) == 0, "after glitch %u ms", width);
    }
    CHECK(b.presses == 0 && !b.down, "presses %u", b.presses);
    /* a make with 6 ms of bounce, then the contact holds: one press; a break with bounce: none */
    int pressed = 0;
    for (int k = 0; k < 3; k++) {
        pressed += hold_level(&b, true, &now, 1);
        pressed += hold_level(&b, false, &now, 1);
    }
    pressed += hold_level(&b, true, &now, 80);
    for (int k = 0; k < 4; k++) {
        pressed += hold_level(&b, false, &now, 2);
        pressed += hold_level(&b, true, &now, 1);
    }
    pressed += hold_level(&b, false, &now, 80);
    CHECK(pressed == 1 && b.presses == 1 && !b.down, "pressed %d presses %u", pressed, b.presses);
    /* a release shorter than the debounce time inside a long hold does not make a second press */
    hold_level(&b, true, &now, 50);
    hold_level(&b, false, &now, TK_DEBOUNCE_MS - 1);
    hold_level(&b, true, &now, 50);
    CHECK(b.presses == 2, "presses %u", b.presses);
}

static void test_button_random_bounce_gives_exactly_one_press_per_real_press(void)
{
    tk_button_t b;
    uint32_t now = 0xFFFFF000u; /* the clock wraps during the test */
    tk_button_init(&b, false, now);
    for (int press = 1; press <= 200; press++) {
        for (int edge = 0, n = (int)(next_random() % 8); edge < n; edge++) {
            hold_level(&b, edge % 2 == 0, &now, 1 + next_random() % 4);
        }
        hold_level(&b, true, &now, 25 + next_random() % 200);
        for (int edge = 0, n = (int)(next_random() % 8); edge < n; edge++) {
            hold_level(&b, edge % 2 == 1, &now, 1 + next_random() % 4);
        }
        hold_level(&b, false, &now, 25 + next_random() % 200);
        CHECK(b.presses == press, "after press %d: %u", press, b.presses);
    }
}

static void test_button_sampled_coarsely_still_needs_20_ms(void)
{
    /* the AVR samples at every main-loop pass; during an LED write (2 ms) it does not sample */
    tk_button_t b;
    tk_button_init(&b, false, 0);
    CHECK(!tk_button_update(&b, true, 0), "edge");
    CHECK(!tk_button_update(&b, true, 19), "19 ms");
    CHECK(tk_button_update(&b, true, 20), "20 ms");
}

static void test_button_held_at_boot_is_not_a_press_and_counter_wraps(void)
{
    tk_button_t b;
    uint32_t now = 0;
    tk_button_init(&b, true, now);
    CHECK(b.down && hold_level(&b, true, &now, 100) == 0 && b.presses == 0, "held at boot");
    hold_level(&b, false, &now, 30);
    CHECK(hold_level(&b, true, &now, 30) == 1 && b.presses == 1, "the next press counts");
    b.presses = 0xFFFFu;
    hold_level(&b, false, &now, 30);
    CHECK(hold_level(&b, true, &now, 30) == 1 && b.presses == 0, "wraps to 0: %u", b.presses);
}

int main(void)
{
    test_crc_check_value();
    test_cobs_round_trips_every_length_and_zero_pattern();
    test_cobs_rejects_malformed_input();
    test_parser_reports_crc_and_resyncs();
    test_parser_overlong_input_is_one_too_long_error();
    test_layout_is_a_bijection_for_every_configuration();
    test_layout_serpentine_from_bottom_left_matches_the_hardware_readme();
    test_current_cap_never_exceeds_budget();
    test_all_white_board_is_scaled_to_the_default_budget();
    test_effects_follow_the_protocol_formulas();
    test_button_one_clean_press_counts_once();
    test_button_bounces_shorter_than_the_debounce_time_are_ignored();
    test_button_random_bounce_gives_exactly_one_press_per_real_press();
    test_button_sampled_coarsely_still_needs_20_ms();
    test_button_held_at_boot_is_not_a_press_and_counter_wraps();
    printf("unit-tests: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
