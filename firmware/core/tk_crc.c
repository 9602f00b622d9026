#include "tk_crc.h"

uint16_t tk_crc16(uint16_t crc, const uint8_t *data, uint16_t len)
{
    /* Bitwise on purpose: a 512-byte table would cost a quarter of the AVR's RAM budget for a few
     * hundred bytes per second of traffic. */
    for (uint16_t i = 0; i < len; i++) {
        crc ^= (uint16_t)((uint16_t)data[i] << 8);
        for (uint8_t bit = 0; bit < 8; bit++) {
            if (crc & 0x8000u) {
                crc = (uint16_t)((crc << 1) ^ 0x1021u);
            } else {
                crc = (uint16_t)(crc << 1);
            }
        }
    }
    return crc;
}
