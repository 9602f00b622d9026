/* WS2812B bit-banging on PD6 at 16 MHz. */
#ifndef TK_WS2812_H
#define TK_WS2812_H

#include <stdint.h>

/* Sends `len` bytes MSB first. Call with interrupts off: the timing is counted in cycles.
 * Per bit 20 cycles (1.25 us): high 6 cycles (0.375 us) for a 0, 12 cycles (0.75 us) for a 1.
 * Between bytes the low phase is 6 cycles longer (loading the next byte), which the LEDs accept. */
void ws2812_send(const uint8_t *data, uint16_t len);

#endif
