#include "tk_layout.h"

#include "tk_protocol.h"

void tk_config_default(tk_config_t *cfg)
{
    cfg->board_size = 8;
    cfg->leds_per_square = 1;
    cfg->wiring = TK_WIRING_SERPENTINE;
    cfg->start_corner = TK_CORNER_BOTTOM_LEFT;
    cfg->axis = TK_AXIS_RANKS;
    cfg->budget_ma = 1500;
    cfg->watchdog_ms = 5000;
}

uint8_t tk_config_squares(const tk_config_t *cfg)
{
    return (uint8_t)(cfg->board_size * cfg->board_size);
}

uint16_t tk_config_led_count(const tk_config_t *cfg)
{
    return (uint16_t)(tk_config_squares(cfg) * cfg->leds_per_square);
}

bool tk_config_valid(const tk_config_t *cfg)
{
    if (cfg->board_size < 3 || cfg->board_size > 8) {
        return false;
    }
    if (cfg->leds_per_square < 1 || cfg->leds_per_square > 4) {
        return false;
    }
    if (tk_config_led_count(cfg) > TK_MAX_LEDS) {
        return false;
    }
    if (cfg->wiring > TK_WIRING_SERPENTINE || cfg->start_corner > TK_CORNER_TOP_RIGHT ||
        cfg->axis > TK_AXIS_FILES) {
        return false;
    }
    if (cfg->budget_ma < 100 || cfg->budget_ma > 10000) {
        return false;
    }
    /* the quiescent draw alone must leave room for light */
    if (cfg->budget_ma < tk_config_led_count(cfg) * TK_MA_IDLE_PER_LED + 50u) {
        return false;
    }
    return cfg->watchdog_ms >= 100 && cfg->watchdog_ms <= 60000;
}

uint16_t tk_layout_first_led(const tk_config_t *cfg, uint8_t square)
{
    return tk_layout_led_at(cfg, (uint8_t)(square % cfg->board_size), (uint8_t)(square / cfg->board_size));
}

uint16_t tk_layout_led_at(const tk_config_t *cfg, uint8_t file, uint8_t rank)
{
    uint8_t n = cfg->board_size;
    /* distances from the corner where the chain starts */
    bool right = cfg->start_corner == TK_CORNER_BOTTOM_RIGHT || cfg->start_corner == TK_CORNER_TOP_RIGHT;
    bool top = cfg->start_corner == TK_CORNER_TOP_LEFT || cfg->start_corner == TK_CORNER_TOP_RIGHT;
    uint8_t across = right ? (uint8_t)(n - 1 - file) : file;
    uint8_t up = top ? (uint8_t)(n - 1 - rank) : rank;
    uint8_t row = up;
    uint8_t col = across;
    if (cfg->axis == TK_AXIS_FILES) {
        row = across;
        col = up;
    }
    if (cfg->wiring == TK_WIRING_SERPENTINE && (row & 1u)) {
        col = (uint8_t)(n - 1 - col);
    }
    return (uint16_t)((uint16_t)(row * n + col) * cfg->leds_per_square);
}
