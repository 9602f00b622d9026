#include "tk_frame.h"

#include <string.h>

#include "tk_cobs.h"
#include "tk_crc.h"

static void restart(tk_parser_t *p)
{
    p->len = 0;
    p->encoded = 0;
    p->crc = TK_CRC_INIT;
    p->group_left = 0;
    p->zero_pending = false;
    p->overflow = false;
    p->poisoned = false;
}

void tk_parser_init(tk_parser_t *p, uint8_t *buf, uint16_t cap)
{
    p->buf = buf;
    p->cap = cap;
    restart(p);
}

bool tk_parser_busy(const tk_parser_t *p)
{
    return p->encoded > 0;
}

void tk_parser_poison(tk_parser_t *p)
{
    p->poisoned = true;
}

static void append(tk_parser_t *p, uint8_t byte)
{
    if (p->len >= p->cap) {
        p->overflow = true;
        return;
    }
    if (p->len >= 2) {
        p->crc = tk_crc16_byte(p->crc, p->buf[p->len - 2]);
    }
    p->buf[p->len++] = byte;
}

static void finish(tk_parser_t *p, tk_frame_t *out)
{
    out->error = 0;
    out->type = p->len >= 1 ? p->buf[0] : 0;
    out->seq = p->len >= 2 ? p->buf[1] : 0;
    out->body_len = 0;
    out->body = p->buf;

    if (p->overflow) {
        out->error = TK_ERR_TOO_LONG;
    } else if (p->poisoned) {
        out->error = TK_ERR_BUSY;
    } else if (p->group_left != 0 || p->len < 4) {
        out->error = TK_ERR_BAD_COBS; /* a group cut short, or no room for type, seq and CRC */
    } else if (p->crc != (uint16_t)(p->buf[p->len - 2] | ((uint16_t)p->buf[p->len - 1] << 8))) {
        out->error = TK_ERR_BAD_CRC;
    } else {
        out->body = p->buf + 2;
        out->body_len = (uint16_t)(p->len - 4);
    }
}

bool tk_parser_feed(tk_parser_t *p, uint8_t byte, tk_frame_t *out)
{
    if (byte != 0) {
        if (p->encoded >= p->cap) {
            p->overflow = true;
            return false;
        }
        p->encoded++;
        if (p->group_left > 0) {
            append(p, byte);
            p->group_left--;
        } else {
            /* a code byte: the previous group's implied zero is real, since more data follows */
            if (p->zero_pending) {
                append(p, 0);
            }
            p->group_left = (uint8_t)(byte - 1);
            p->zero_pending = byte != 0xFF;
        }
        return false;
    }
    if (p->encoded == 0 && !p->overflow) {
        return false; /* empty frame: a wake byte or a flush; a pending poison waits for a frame */
    }
    finish(p, out);
    restart(p);
    return true;
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
