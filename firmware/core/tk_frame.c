#include "tk_frame.h"

#include <string.h>

#include "tk_cobs.h"
#include "tk_crc.h"

void tk_parser_init(tk_parser_t *p, uint8_t *buf, uint16_t cap)
{
    p->buf = buf;
    p->cap = cap;
    p->len = 0;
    p->overflow = false;
    p->poisoned = false;
}

bool tk_parser_busy(const tk_parser_t *p)
{
    return p->len > 0 || p->overflow;
}

void tk_parser_poison(tk_parser_t *p)
{
    p->poisoned = true;
}

static bool finish(tk_parser_t *p, tk_frame_t *out)
{
    out->error = 0;
    out->type = 0;
    out->seq = 0;
    out->body_len = 0;
    out->body = p->buf;

    if (p->overflow) {
        out->error = TK_ERR_TOO_LONG;
        return true;
    }
    uint16_t n = 0;
    if (!tk_cobs_decode(p->buf, p->len, p->buf, &n)) {
        out->error = p->poisoned ? TK_ERR_BUSY : TK_ERR_BAD_COBS;
        return true;
    }
    if (n >= 1) {
        out->type = p->buf[0];
    }
    if (n >= 2) {
        out->seq = p->buf[1];
    }
    if (p->poisoned) {
        out->error = TK_ERR_BUSY;
        return true;
    }
    if (n < 4) {
        out->error = TK_ERR_BAD_COBS;
        return true;
    }
    uint16_t want = (uint16_t)(p->buf[n - 2] | ((uint16_t)p->buf[n - 1] << 8));
    if (tk_crc16(TK_CRC_INIT, p->buf, (uint16_t)(n - 2)) != want) {
        out->error = TK_ERR_BAD_CRC;
        return true;
    }
    out->body = p->buf + 2;
    out->body_len = (uint16_t)(n - 4);
    return true;
}

bool tk_parser_feed(tk_parser_t *p, uint8_t byte, tk_frame_t *out)
{
    if (byte != 0) {
        if (p->len < p->cap) {
            p->buf[p->len++] = byte;
        } else {
            p->overflow = true;
        }
        return false;
    }
    if (p->len == 0 && !p->overflow) {
        return false; /* empty frame: a wake byte or a flush; a pending poison waits for a frame */
    }
    bool produced = finish(p, out);
    p->len = 0;
    p->overflow = false;
    p->poisoned = false;
    return produced;
}

uint16_t tk_frame_build(uint8_t type, uint8_t seq, const uint8_t *body, uint16_t body_len,
                        uint8_t *scratch, uint16_t scratch_cap, uint8_t *out, uint16_t cap)
{
    if ((uint32_t)body_len + 4u > scratch_cap) {
        return 0;
    }
    scratch[0] = type;
    scratch[1] = seq;
    if (body_len > 0) {
        memcpy(scratch + 2, body, body_len);
    }
    uint16_t crc = tk_crc16(TK_CRC_INIT, scratch, (uint16_t)(body_len + 2));
    scratch[body_len + 2] = (uint8_t)(crc & 0xFF);
    scratch[body_len + 3] = (uint8_t)(crc >> 8);
    if (cap < 1) {
        return 0;
    }
    uint16_t n = tk_cobs_encode(scratch, (uint16_t)(body_len + 4), out, (uint16_t)(cap - 1));
    if (n == 0) {
        return 0;
    }
    out[n] = 0;
    return (uint16_t)(n + 1);
}
