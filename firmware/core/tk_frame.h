/* Frame parser: 0x00-delimited COBS frames carrying [type][seq][body][crc16 little-endian].
 *
 * COBS decoding and the CRC run as the bytes arrive (there is time between two bytes on the
 * line), so a frame is checked the moment its delimiter arrives.
 *
 * Bytes go in one at a time; at each delimiter the parser reports a checked frame or an error with
 * whatever type/seq it could read. After any error it has already resynchronised: the next byte
 * starts a new frame. The caller owns the buffer.
 */
#ifndef TK_FRAME_H
#define TK_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "tk_protocol.h"

typedef struct {
    uint8_t *buf;      /* decoded payload so far */
    uint16_t cap;
    uint16_t len;      /* decoded bytes in buf */
    uint16_t encoded;  /* encoded bytes since the last delimiter */
    uint16_t crc;      /* CRC of buf[0 .. len-3]: the last two bytes may be the frame's CRC */
    uint8_t group_left; /* data bytes still due in the current COBS group */
    bool zero_pending; /* the current group ends in an implied zero, if another group follows */
    bool overflow;     /* more than `cap` encoded bytes since the last delimiter */
    bool poisoned;     /* bytes arrived during an LED write: the frame in progress is unusable */
} tk_parser_t;

typedef struct {
    uint8_t error;       /* 0 for a good frame, else a TK_ERR_* code */
    uint8_t type;        /* received type byte, 0 if none */
    uint8_t seq;         /* received seq byte, 0 if none */
    uint16_t body_len;
    const uint8_t *body; /* points into the parser's buffer; valid until the next feed */
} tk_frame_t;

void tk_parser_init(tk_parser_t *p, uint8_t *buf, uint16_t cap);

/* Feeds one byte. Returns true when a (good or bad) frame ended and `out` is filled. Empty frames
 * (two delimiters in a row) return false. */
bool tk_parser_feed(tk_parser_t *p, uint8_t byte, tk_frame_t *out);

/* True while part of a frame has been received. */
bool tk_parser_busy(const tk_parser_t *p);

/* Marks the frame in progress (or the next one, if none) as hit by an LED write. */
void tk_parser_poison(tk_parser_t *p);

/* Builds a complete wire frame (COBS + 0x00) for [type][seq][body][crc] into `out` (capacity
 * `cap`). `scratch` needs body_len + 4 bytes. Returns the wire length, 0 if it does not fit. */
uint16_t tk_frame_build(uint8_t type, uint8_t seq, const uint8_t *body, uint16_t body_len,
                        uint8_t *scratch, uint16_t scratch_cap, uint8_t *out, uint16_t cap);

#endif
