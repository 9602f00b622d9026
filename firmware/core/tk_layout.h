/* Configuration of the board and the LED chain, and the square -> LED mapping it implies. */
#ifndef TK_LAYOUT_H
#define TK_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define TK_WIRING_ROW_MAJOR 0u
#define TK_WIRING_SERPENTINE 1u
#define TK_CORNER_BOTTOM_LEFT 0u  /* a1 */
#define TK_CORNER_BOTTOM_RIGHT 1u /* last file, rank 1 */
#define TK_CORNER_TOP_LEFT 2u     /* file a, last rank */
#define TK_CORNER_TOP_RIGHT 3u
#define TK_AXIS_RANKS 0u          /* the chain runs along a rank first */
#define TK_AXIS_FILES 1u

typedef struct {
    uint8_t board_size;      /* 3..8 */
    uint8_t leds_per_square; /* 1..4 */
    uint8_t wiring;
    uint8_t start_corner;
    uint8_t axis;
    uint16_t budget_ma;
    uint16_t watchdog_ms;
} tk_config_t;

void tk_config_default(tk_config_t *cfg);

/* Checks a configuration against PROTOCOL.md section 4.5. */
bool tk_config_valid(const tk_config_t *cfg);

uint8_t tk_config_squares(const tk_config_t *cfg);
uint16_t tk_config_led_count(const tk_config_t *cfg);

/* Chain index of the first LED under `square` (a1 = 0, index = rank * size + file); the square's
 * other LEDs follow it. */
uint16_t tk_layout_first_led(const tk_config_t *cfg, uint8_t square);

/* The same by coordinates (file 0 = a, rank 0 = rank 1), without a division. */
uint16_t tk_layout_led_at(const tk_config_t *cfg, uint8_t file, uint8_t rank);

#endif
