/* The firmware's protocol state machine: receive, answer, animate, limit, watch the host.
 *
 * The platform allocates one tk_core_t (all buffers inside it, no heap), calls tk_core_init() once
 * and tk_core_task() from its main loop as often as it can.
 */
#ifndef TK_CORE_H
#define TK_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "tk_button.h"
#include "tk_frame.h"
#include "tk_layout.h"
#include "tk_protocol.h"
#include "tk_render.h"

#define TK_STATE_SHOWING 0u /* showing the host's frame */
#define TK_STATE_WAITING 1u /* waiting-for-host pattern (boot, or host lost) */

typedef struct {
    uint16_t frames_ok;
    uint16_t crc_errors;
    uint16_t cobs_errors;
    uint16_t too_long;
    uint16_t busy;
    uint16_t watchdog_trips;
    uint16_t led_writes;
    uint16_t naks_sent;
} tk_stats_t;

typedef struct {
    tk_config_t cfg;
    uint8_t brightness;
    uint8_t state;
    tk_square_t squares[TK_MAX_SQUARES];
    uint8_t grb[TK_MAX_LEDS * 3u];
    uint8_t rx[TK_RX_CAP];
    tk_parser_t parser;
    uint8_t tx_payload[TK_INFO_LEN + 4u];
    uint8_t tx_wire[TK_COBS_WIRE_MAX];
    uint32_t last_valid_ms; /* last frame with a good CRC */
    uint32_t last_rx_ms;    /* last received byte */
    uint32_t last_show_ms;
    bool hold;              /* the host is talking: start no LED write (PROTOCOL.md section 3) */
    bool dirty;             /* the LEDs do not show the current state yet */
    tk_button_t button;
    tk_stats_t stats;
    tk_render_stats_t render;
} tk_core_t;

void tk_core_init(tk_core_t *core);
void tk_core_task(tk_core_t *core);

/* Microseconds a host must wait after the wake byte (INFO wake_guard_us). */
uint16_t tk_core_wake_guard_us(const tk_core_t *core);

#endif
