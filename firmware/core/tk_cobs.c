#include "tk_cobs.h"

uint16_t tk_cobs_encode(const uint8_t *src, uint16_t len, uint8_t *dst, uint16_t cap)
{
    if (cap == 0) {
        return 0;
    }
    uint16_t code_at = 0; /* where the current group's code byte goes */
    uint16_t out = 1;
    uint8_t code = 1;     /* 1 + number of data bytes in the current group */
    for (uint16_t i = 0; i < len; i++) {
        if (src[i] == 0) {
            dst[code_at] = code;
            if (out >= cap) {
                return 0;
            }
            code_at = out++;
            code = 1;
            continue;
        }
        if (out >= cap) {
            return 0;
        }
        dst[out++] = src[i];
        code++;
        if (code == 0xFF) { /* a full group of 254 data bytes carries no implied zero */
            dst[code_at] = code;
            if (out >= cap) {
                return 0;
            }
            code_at = out++;
            code = 1;
        }
    }
    dst[code_at] = code;
    return out;
}

bool tk_cobs_decode(const uint8_t *src, uint16_t len, uint8_t *dst, uint16_t *out_len)
{
    uint16_t in = 0;
    uint16_t out = 0; /* never overtakes `in`, so decoding in place is safe */
    while (in < len) {
        uint8_t code = src[in++];
        if (code == 0) {
            return false;
        }
        uint8_t data = (uint8_t)(code - 1);
        if (data > len - in) {
            return false;
        }
        for (uint8_t k = 0; k < data; k++) {
            uint8_t byte = src[in++];
            if (byte == 0) {
                return false;
            }
            dst[out++] = byte;
        }
        if (code != 0xFF && in < len) {
            dst[out++] = 0;
        }
    }
    *out_len = out;
    return true;
}
