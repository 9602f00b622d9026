/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0 ("123456789" -> 0x29B1). */
#ifndef TK_CRC_H
#define TK_CRC_H

#include <stdint.h>

#define TK_CRC_INIT 0xFFFFu

/* Folds one byte into a running CRC. */
static inline uint16_t tk_crc16_byte(uint16_t crc, uint8_t byte)
{
    uint8_t x = (uint8_t)((crc >> 8) ^ byte);
    x ^= (uint8_t)(x >> 4);
    return (uint16_t)((crc << 8) ^ ((uint16_t)x << 12) ^ ((uint16_t)x << 5) ^ x);
}

/* Continues a CRC over `len` more bytes; start with TK_CRC_INIT. */
uint16_t tk_crc16(uint16_t crc, const uint8_t *data, uint16_t len);

#endif
