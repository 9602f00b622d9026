#include "tk_render.h"

#include "tk_protocol.h"

static uint8_t triangle(uint16_t phase, uint16_t period_ms)
{
    uint16_t x = (uint16_t)(((uint32_t)phase * 510u) / period_ms);
    return (uint8_t)(x <= 255u ? x : 510u - x);
}

uint8_t tk_pulse_level(uint32_t t_ms, uint16_t period_ms)
{
    return triangle((uint16_t)(t_ms % period_ms), period_ms);
}

/* The effect at `phase` = t mod the square's period (the caller computes it once per period). */
static void effect_at(const tk_square_t *sq, uint16_t phase, uint16_t period_ms, uint8_t rgb[3])
{
    rgb[0] = 0;
    rgb[1] = 0;
    rgb[2] = 0;
    switch (sq->effect) {
    case TK_FX_SOLID:
        break;
    case TK_FX_BLINK:
        if (phase >= period_ms / 2u) {
            return;
        }
        break;
    case TK_FX_PULSE: {
        uint8_t level = triangle(phase, period_ms);
        rgb[0] = tk_div255((uint16_t)(sq->r * level));
        rgb[1] = tk_div255((uint16_t)(sq->g * level));
        rgb[2] = tk_div255((uint16_t)(sq->b * level));
        return;
    }
    default: /* off, and anything validation let through by mistake */
        return;
    }
    rgb[0] = sq->r;
    rgb[1] = sq->g;
    rgb[2] = sq->b;
}

void tk_effect_colour(const tk_square_t *sq, uint32_t t_ms, uint8_t rgb[3])
{
    uint16_t period_ms = (uint16_t)(sq->period * TK_PERIOD_UNIT_MS);
    uint16_t phase = period_ms ? (uint16_t)(t_ms % period_ms) : 0;
    effect_at(sq, phase, period_ms, rgb);
}

uint16_t tk_estimate_ma(uint16_t n_leds, uint32_t channel_sum)
{
    return (uint16_t)(n_leds * TK_MA_IDLE_PER_LED + (channel_sum * TK_MA_PER_CHANNEL) / 255u);
}

void tk_limit_current(uint8_t *grb, uint16_t n_leds, uint16_t budget_ma, tk_render_stats_t *stats)
{
    uint16_t n_bytes = (uint16_t)(n_leds * 3u);
    uint32_t sum = 0;
    for (uint16_t i = 0; i < n_bytes; i++) {
        sum += grb[i];
    }
    stats->request_ma = tk_estimate_ma(n_leds, sum);
    stats->estimate_ma = stats->request_ma;
    if (stats->request_ma <= budget_ma) {
        return;
    }
    /* Largest channel sum the budget allows; the config guarantees budget > idle draw. */
    uint32_t allowed = ((uint32_t)(budget_ma - n_leds * TK_MA_IDLE_PER_LED) * 255u) / TK_MA_PER_CHANNEL;
    /* One 16-bit fraction f = floor(allowed / sum * 65536), by long division (allowed < sum, so
     * the remainder stays below 2^18), then every channel becomes floor(v * f / 65536): the scaled
     * sum stays <= allowed, so the estimate stays <= budget. */
    uint16_t factor = 0;
    uint32_t rem = allowed;
    for (uint8_t bit = 0; bit < 16; bit++) {
        rem <<= 1;
        factor = (uint16_t)(factor << 1);
        if (rem >= sum) {
            rem -= sum;
            factor |= 1u;
        }
    }
    uint8_t f_high = (uint8_t)(factor >> 8);
    uint8_t f_low = (uint8_t)(factor & 0xFFu);
    uint32_t scaled_sum = 0;
    for (uint16_t i = 0; i < n_bytes; i++) {
        /* v * f >> 16 from two 8x8 products (the AVR's MUL): floor((hi + floor(lo / 256)) / 256)
         * is exactly floor((hi * 256 + lo) / 65536), and hi + lo / 256 <= 65280 fits 16 bits. */
        uint16_t high = (uint16_t)(grb[i] * f_high);
        uint16_t low = (uint16_t)(grb[i] * f_low);
        grb[i] = (uint8_t)((uint16_t)(high + (low >> 8)) >> 8);
        scaled_sum += grb[i];
    }
    stats->estimate_ma = tk_estimate_ma(n_leds, scaled_sum);
}

bool tk_frame_animated(const tk_square_t *squares, uint8_t count, bool waiting)
{
    if (waiting) {
        return true;
    }
    for (uint8_t i = 0; i < count; i++) {
        if (squares[i].effect == TK_FX_BLINK || squares[i].effect == TK_FX_PULSE) {
            return true;
        }
    }
    return false;
}

void tk_render(const tk_config_t *cfg, const tk_square_t *squares, bool waiting, uint8_t brightness,
               uint32_t t_ms, uint8_t *grb, tk_render_stats_t *stats)
{
    uint8_t rgb[3];
    if (waiting) {
        uint8_t level = tk_pulse_level(t_ms, TK_WAIT_PERIOD_MS);
        rgb[0] = 0;
        rgb[1] = 0;
        rgb[2] = tk_div255((uint16_t)(level * TK_WAIT_BLUE_MAX));
    }
    bool dim = !waiting && brightness != 255; /* the waiting pattern is already dim */
    uint16_t cached_period = 0;
    uint16_t cached_phase = 0;
    uint8_t sq = 0;
    for (uint8_t rank = 0; rank < cfg->board_size; rank++) {
        for (uint8_t file = 0; file < cfg->board_size; file++, sq++) {
            if (!waiting) {
                const tk_square_t *square = &squares[sq];
                uint16_t period_ms = 0;
                uint16_t phase = 0;
                if (square->effect == TK_FX_BLINK || square->effect == TK_FX_PULSE) {
                    period_ms = (uint16_t)(square->period * TK_PERIOD_UNIT_MS);
                    if (period_ms != cached_period) { /* one 32-bit modulo per distinct period */
                        cached_period = period_ms;
                        cached_phase = (uint16_t)(t_ms % period_ms);
                    }
                    phase = cached_phase;
                }
                effect_at(square, phase, period_ms, rgb);
            }
            uint8_t r = rgb[0];
            uint8_t g = rgb[1];
            uint8_t b = rgb[2];
            if (dim) {
                r = tk_div255((uint16_t)(r * brightness));
                g = tk_div255((uint16_t)(g * brightness));
                b = tk_div255((uint16_t)(b * brightness));
            }
            uint8_t *p = grb + tk_layout_led_at(cfg, file, rank) * 3u;
            for (uint8_t k = 0; k < cfg->leds_per_square; k++) {
                *p++ = g;
                *p++ = r;
                *p++ = b;
            }
        }
    }
    tk_limit_current(grb, tk_config_led_count(cfg), cfg->budget_ma, stats);
}
