#include "tk_core.h"

#include <string.h>

#include "hal.h"

static void inc(uint16_t *counter)
{
    if (*counter != 0xFFFFu) {
        (*counter)++;
    }
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}

static bool elapsed(uint32_t now, uint32_t since, uint32_t ms)
{
    return (uint32_t)(now - since) >= ms;
}

static void clear_squares(tk_core_t *c)
{
    memset(c->squares, 0, sizeof c->squares);
}

void tk_core_init(tk_core_t *c)
{
    memset(c, 0, sizeof *c);
    tk_config_default(&c->cfg);
    c->brightness = 255;
    c->state = TK_STATE_WAITING;
    tk_parser_init(&c->parser, c->rx, sizeof c->rx);
    uint32_t now = hal_millis();
    c->last_valid_ms = now;
    c->last_rx_ms = now;
    c->last_show_ms = now;
    c->dirty = true;
    tk_button_init(&c->button, hal_button_down(), now);
}

uint16_t tk_core_wake_guard_us(const tk_core_t *c)
{
    /* ~31 us per LED on the wire, the 300 us latch, the write's set-up, and 1 ms for USB: a
     * USB-serial adapter may send the wake byte up to one 1 ms USB frame late, the frame on time */
    return (uint16_t)(tk_config_led_count(&c->cfg) * 32u + 1500u);
}

static void reply(tk_core_t *c, uint8_t type, uint8_t seq, const uint8_t *body, uint16_t len)
{
    uint16_t n = tk_frame_build(type, seq, body, len, c->tx_payload, sizeof c->tx_payload,
                                c->tx_wire, sizeof c->tx_wire);
    if (n > 0) {
        hal_uart_write(c->tx_wire, n);
    }
    c->hold = false; /* the exchange is over: animation may write the LEDs again */
}

static void nak(tk_core_t *c, uint8_t req_type, uint8_t seq, uint8_t code)
{
    uint8_t body[2] = {req_type, code};
    inc(&c->stats.naks_sent);
    reply(c, TK_MSG_NAK, seq, body, sizeof body);
}

static void ack(tk_core_t *c, uint8_t req_type, uint8_t seq)
{
    reply(c, TK_MSG_ACK, seq, &req_type, 1);
}

/* Renders and writes the LEDs now. Returns false if a received byte is waiting and `may_defer`:
 * then the host has started talking and the write would collide with its frame. */
static bool show(tk_core_t *c, bool may_defer)
{
    uint32_t now = hal_millis();
    tk_render(&c->cfg, c->squares, c->state == TK_STATE_WAITING, c->brightness, now, c->grb,
              &c->render);
    if (may_defer && hal_uart_pending()) {
        return false;
    }
    tk_show_result_t result = hal_leds_show(c->grb, (uint16_t)(tk_config_led_count(&c->cfg) * 3u));
    inc(&c->stats.led_writes);
    c->last_show_ms = now;
    c->dirty = false;
    if (result == TK_SHOW_RX_DURING_WRITE) {
        /* The host broke stop-and-wait: on hardware part of its frame is gone. */
        tk_parser_poison(&c->parser);
        inc(&c->stats.busy);
    }
    return true;
}

static void send_info(tk_core_t *c, uint8_t seq)
{
    uint8_t b[TK_INFO_LEN];
    b[0] = TK_PROTOCOL_VERSION;
    b[1] = TK_FW_MAJOR;
    b[2] = TK_FW_MINOR;
    b[3] = TK_FW_PATCH;
    b[4] = c->cfg.board_size;
    b[5] = tk_config_squares(&c->cfg);
    b[6] = c->cfg.leds_per_square;
    put16(b + 7, tk_config_led_count(&c->cfg));
    b[9] = c->cfg.wiring;
    b[10] = c->cfg.start_corner;
    b[11] = c->cfg.axis;
    put16(b + 12, c->cfg.budget_ma);
    put16(b + 14, c->cfg.watchdog_ms);
    b[16] = c->brightness;
    put16(b + 17, TK_MAX_LEDS);
    put16(b + 19, tk_core_wake_guard_us(c));
    b[21] = c->state;
    b[22] = hal_reset_cause();
    b[23] = hal_baud_code();
    reply(c, TK_MSG_INFO, seq, b, sizeof b);
}

static void send_stats(tk_core_t *c, uint8_t seq)
{
    uint8_t b[TK_STATS_LEN];
    const tk_stats_t *s = &c->stats;
    put16(b + 0, s->frames_ok);
    put16(b + 2, s->crc_errors);
    put16(b + 4, s->cobs_errors);
    put16(b + 6, s->too_long);
    put16(b + 8, s->busy);
    put16(b + 10, s->watchdog_trips);
    put16(b + 12, s->led_writes);
    put16(b + 14, c->render.estimate_ma);
    put16(b + 16, c->render.request_ma);
    uint32_t up = hal_millis();
    put16(b + 18, (uint16_t)(up & 0xFFFFu));
    put16(b + 20, (uint16_t)(up >> 16));
    put16(b + 22, s->naks_sent);
    reply(c, TK_MSG_STATS, seq, b, sizeof b);
}

static void send_input(tk_core_t *c, uint8_t seq)
{
    uint8_t b[TK_INPUT_LEN];
    put16(b + 0, c->button.presses);
    b[2] = c->button.down ? 1u : 0u;
    b[3] = c->state;
    uint32_t up = hal_millis();
    put16(b + 4, (uint16_t)(up & 0xFFFFu));
    put16(b + 6, (uint16_t)(up >> 16));
    reply(c, TK_MSG_INPUT, seq, b, sizeof b);
}

/* Checks a SET_FRAME body completely before touching any state (a rejected request changes nothing). */
static uint8_t check_frame(const tk_core_t *c, const uint8_t *body, uint16_t len)
{
    if (len < 1 || len != 1u + (uint16_t)body[0] * TK_SQUARE_BYTES) {
        return TK_ERR_BAD_LENGTH;
    }
    uint8_t count = body[0];
    if (count > tk_config_squares(&c->cfg)) {
        return TK_ERR_BAD_VALUE;
    }
    for (uint8_t i = 0; i < count; i++) {
        const uint8_t *rec = body + 1 + (uint16_t)i * TK_SQUARE_BYTES;
        uint8_t effect = rec[3];
        if (effect > TK_FX_PULSE) {
            return TK_ERR_BAD_VALUE;
        }
        if ((effect == TK_FX_BLINK || effect == TK_FX_PULSE) && rec[4] == 0) {
            return TK_ERR_BAD_VALUE;
        }
    }
    return 0;
}

static void set_frame(tk_core_t *c, const uint8_t *body)
{
    uint8_t count = body[0];
    clear_squares(c);
    for (uint8_t i = 0; i < count; i++) {
        const uint8_t *rec = body + 1 + (uint16_t)i * TK_SQUARE_BYTES;
        tk_square_t *sq = &c->squares[i];
        sq->r = rec[0];
        sq->g = rec[1];
        sq->b = rec[2];
        sq->effect = rec[3];
        sq->period = rec[4];
    }
    c->state = TK_STATE_SHOWING;
}

static bool parse_config(const uint8_t *body, tk_config_t *cfg)
{
    cfg->board_size = body[0];
    cfg->leds_per_square = body[1];
    cfg->wiring = body[2];
    cfg->start_corner = body[3];
    cfg->axis = body[4];
    cfg->budget_ma = get16(body + 5);
    cfg->watchdog_ms = get16(body + 7);
    return body[9] == 0 && tk_config_valid(cfg);
}

static void handle_request(tk_core_t *c, const tk_frame_t *f)
{
    uint8_t type = f->type;
    uint8_t seq = f->seq;
    uint16_t len = f->body_len;
    switch (type) {
    case TK_MSG_HELLO:
        if (len != 0) {
            nak(c, type, seq, TK_ERR_BAD_LENGTH);
            return;
        }
        send_info(c, seq);
        return;
    case TK_MSG_PING:
        if (len > TK_PING_MAX) {
            nak(c, type, seq, TK_ERR_BAD_LENGTH);
            return;
        }
        reply(c, TK_MSG_PONG, seq, f->body, len);
        return;
    case TK_MSG_GET_STATS:
        if (len != 0) {
            nak(c, type, seq, TK_ERR_BAD_LENGTH);
            return;
        }
        send_stats(c, seq);
        return;
    case TK_MSG_GET_INPUT:
        if (len != 0) {
            nak(c, type, seq, TK_ERR_BAD_LENGTH);
            return;
        }
        send_input(c, seq);
        return;
    case TK_MSG_SET_FRAME: {
        uint8_t err = check_frame(c, f->body, len);
        if (err) {
            nak(c, type, seq, err);
            return;
        }
        set_frame(c, f->body);
        break;
    }
    case TK_MSG_SET_BRIGHTNESS:
        if (len != 1) {
            nak(c, type, seq, TK_ERR_BAD_LENGTH);
            return;
        }
        c->brightness = f->body[0];
        break;
    case TK_MSG_SET_CONFIG: {
        if (len != TK_CONFIG_LEN) {
            nak(c, type, seq, TK_ERR_BAD_LENGTH);
            return;
        }
        tk_config_t cfg;
        if (!parse_config(f->body, &cfg)) {
            nak(c, type, seq, TK_ERR_BAD_VALUE);
            return;
        }
        /* a shorter chain: blank the LEDs no longer addressed before forgetting them */
        uint16_t old_leds = tk_config_led_count(&c->cfg);
        if (tk_config_led_count(&cfg) < old_leds) {
            memset(c->grb, 0, (size_t)old_leds * 3u);
            if (hal_leds_show(c->grb, (uint16_t)(old_leds * 3u)) == TK_SHOW_RX_DURING_WRITE) {
                tk_parser_poison(&c->parser);
                inc(&c->stats.busy);
            }
        }
        c->cfg = cfg;
        clear_squares(c);
        c->state = TK_STATE_SHOWING;
        break;
    }
    default:
        nak(c, type, seq, TK_ERR_UNKNOWN_TYPE);
        return;
    }
    /* A state change: write the LEDs first, then acknowledge (stop-and-wait). */
    show(c, false);
    ack(c, type, seq);
}

static void handle_frame(tk_core_t *c, const tk_frame_t *f, uint32_t now)
{
    switch (f->error) {
    case 0:
        inc(&c->stats.frames_ok);
        c->last_valid_ms = now;
        handle_request(c, f);
        return;
    case TK_ERR_BAD_CRC:
        inc(&c->stats.crc_errors);
        break;
    case TK_ERR_TOO_LONG:
        inc(&c->stats.too_long);
        break;
    case TK_ERR_BUSY:
        break; /* counted when the write found the bytes */
    default:
        inc(&c->stats.cobs_errors);
        break;
    }
    nak(c, f->type, f->seq, f->error);
}

void tk_core_task(tk_core_t *c)
{
    uint8_t byte;
    tk_frame_t frame;
    uint32_t now = hal_millis();
    tk_button_update(&c->button, hal_button_down(), now);
    while (hal_uart_read(&byte)) {
        c->last_rx_ms = now;
        c->hold = true;
        if (tk_parser_feed(&c->parser, byte, &frame)) {
            handle_frame(c, &frame, now);
            now = hal_millis();
        }
    }

    if (c->state == TK_STATE_SHOWING && elapsed(now, c->last_valid_ms, c->cfg.watchdog_ms)) {
        /* Host lost: never leave a stale hint on the board. */
        c->state = TK_STATE_WAITING;
        clear_squares(c);
        inc(&c->stats.watchdog_trips);
        c->dirty = true;
    }
    if (c->hold && elapsed(now, c->last_rx_ms, TK_HOLD_MS)) {
        c->hold = false; /* a host that went quiet mid-frame must not freeze the animation */
    }
    if (c->hold) {
        return;
    }
    bool due = c->dirty || elapsed(now, c->last_show_ms, TK_REFRESH_MS) ||
               (tk_frame_animated(c->squares, tk_config_squares(&c->cfg), c->state == TK_STATE_WAITING) &&
                elapsed(now, c->last_show_ms, TK_FRAME_INTERVAL_MS));
    if (due) {
        show(c, true);
    }
}
