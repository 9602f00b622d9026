#include "tk_render.h"

#include "tk_protocol.h"

uint8_t tk_pulse_level(uint32_t t_ms, uint16_t period_ms)
{
    uint16_t phase = (uint16_t)(t_ms % period_ms);
    uint16_t x = (uint16_t)(((uint32_t)phase * 510u) / period_ms);
    return (uint8_t)(x <= 255u ? x : 510u - x);
}

void tk_effect_colour(const tk_square_t *sq, uint32_t t_ms, uint8_t rgb[3])
{
    rgb[0] = 0;
    rgb[1] = 0;
    rgb[2] = 0;
    uint16_t period_ms = (uint16_t)(sq->period * TK_PERIOD_UNIT_MS);
    switch (sq->effect) {
    case TK_FX_SOLID:
        break;
    case TK_FX_BLINK:
        if ((uint16_t)(t_ms % period_ms) >= period_ms / 2u) {
            return;
        }
        break;
    case TK_FX_PULSE: {
        uint8_t level = tk_pulse_level(t_ms, period_ms);
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
    /* One 12-bit fraction, rounded down: every channel scales by the same factor and the scaled
     * sum stays <= allowed, so the estimate stays <= budget. allowed < 2^17, so allowed << 12 fits. */
    uint16_t factor = (uint16_t)((allowed << 12) / sum); /* < 4096 because allowed < sum */
    uint32_t scaled_sum = 0;
    for (uint16_t i = 0; i < n_bytes; i++) {
        grb[i] = (uint8_t)(((uint32_t)grb[i] * factor) >> 12);
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
    uint8_t count = tk_config_squares(cfg);
    uint8_t rgb[3];
    if (waiting) {
        uint8_t level = tk_pulse_level(t_ms, TK_WAIT_PERIOD_MS);
        rgb[0] = 0;
        rgb[1] = 0;
        rgb[2] = tk_div255((uint16_t)(level * TK_WAIT_BLUE_MAX));
    }
    for (uint8_t sq = 0; sq < count; sq++) {
        if (!waiting) {
            tk_effect_colour(&squares[sq], t_ms, rgb);
        }
        uint8_t r = rgb[0];
        uint8_t g = rgb[1];
        uint8_t b = rgb[2];
        if (!waiting) { /* the waiting pattern is already dim; a brightness of 0 must not hide it */
            r = tk_div255((uint16_t)(r * brightness));
            g = tk_div255((uint16_t)(g * brightness));
            b = tk_div255((uint16_t)(b * brightness));
        }
        uint16_t led = tk_layout_first_led(cfg, sq);
        for (uint8_t k = 0; k < cfg->leds_per_square; k++) {
            uint8_t *p = grb + (uint16_t)(led + k) * 3u;
            p[0] = g;
            p[1] = r;
            p[2] = b;
        }
    }
    tk_limit_current(grb, tk_config_led_count(cfg), cfg->budget_ma, stats);
}
