/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0 ("123456789" -> 0x29B1). */
#ifndef TK_CRC_H
#define TK_CRC_H

#include <stdint.h>

#define TK_CRC_INIT 0xFFFFu

/* Continues a CRC over `len` more bytes; start with TK_CRC_INIT. */
uint16_t tk_crc16(uint16_t crc, const uint8_t *data, uint16_t len);

#endif
