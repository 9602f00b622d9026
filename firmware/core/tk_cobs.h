/* Consistent Overhead Byte Stuffing: a payload re-coded without 0x00 so that 0x00 can end a frame. */
#ifndef TK_COBS_H
#define TK_COBS_H

#include <stdbool.h>
#include <stdint.h>

/* Encoded size bound for a payload of n bytes (without the 0x00 delimiter). */
#define TK_COBS_MAX_ENCODED(n) ((n) + (n) / 254u + 1u)

/* Encodes `len` bytes into `dst` (capacity `cap`, no delimiter added). Returns the encoded length,
 * or 0 when `cap` is too small. `src` and `dst` must not overlap. */
uint16_t tk_cobs_encode(const uint8_t *src, uint16_t len, uint8_t *dst, uint16_t cap);

/* Decodes `len` encoded bytes (no delimiter) into `dst`; `dst` may equal `src` (in place).
 * Returns false on malformed input (a 0x00 inside, or a group running past the end). */
bool tk_cobs_decode(const uint8_t *src, uint16_t len, uint8_t *dst, uint16_t *out_len);

#endif
