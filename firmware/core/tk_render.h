/* From the desired square states to the GRB bytes on the wire: effects, brightness, current cap. */
#ifndef TK_RENDER_H
#define TK_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "tk_layout.h"

typedef struct {
    uint8_t r, g, b;
    uint8_t effect; /* TK_FX_* */
    uint8_t period; /* units of TK_PERIOD_UNIT_MS; 0 only for off/solid */
} tk_square_t;

typedef struct {
    uint16_t request_ma;  /* estimate of the frame as asked (after brightness) */
    uint16_t estimate_ma; /* estimate of the frame written (after the cap) */
} tk_render_stats_t;

/* floor(x / 255) for x <= 65025 without a division (slow on the AVR); x + 1 + x/256 <= 65280
 * still fits 16 bits. */
static inline uint8_t tk_div255(uint16_t x)
{
    return (uint8_t)((uint16_t)(x + 1u + (x >> 8)) >> 8);
}

/* Triangle 0 -> 255 -> 0 over `period_ms` at time `t_ms` (PROTOCOL.md 4.3). */
uint8_t tk_pulse_level(uint32_t t_ms, uint16_t period_ms);

/* The colour a square shows at time t (effect applied, before brightness). */
void tk_effect_colour(const tk_square_t *sq, uint32_t t_ms, uint8_t rgb[3]);

/* Estimated draw in mA of `n_leds` LEDs whose channel values sum to `channel_sum`. */
uint16_t tk_estimate_ma(uint16_t n_leds, uint32_t channel_sum);

/* Scales `grb` (n_leds * 3 bytes) in place so that the estimate is <= budget_ma. */
void tk_limit_current(uint8_t *grb, uint16_t n_leds, uint16_t budget_ma, tk_render_stats_t *stats);

/* Renders the whole chain into `grb`: `squares` (board squares, a1 order) at time t, or the
 * waiting-for-host pattern when `waiting`; then brightness, then the current cap. */
void tk_render(const tk_config_t *cfg, const tk_square_t *squares, bool waiting, uint8_t brightness,
               uint32_t t_ms, uint8_t *grb, tk_render_stats_t *stats);

/* True when the frame changes over time (needs periodic re-rendering). */
bool tk_frame_animated(const tk_square_t *squares, uint8_t count, bool waiting);

#endif
