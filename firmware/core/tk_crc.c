#include "tk_crc.h"

uint16_t tk_crc16(uint16_t crc, const uint8_t *data, uint16_t len)
{
    /* Byte at a time without a table (a 512-byte table would cost a quarter of the AVR's RAM):
     * the polynomial x^16 + x^12 + x^5 + 1 folds one byte in with three shifts. */
    for (uint16_t i = 0; i < len; i++) {
        crc = tk_crc16_byte(crc, data[i]);
    }
    return crc;
}
