#include "ws2812.h"

#include <avr/io.h>

void ws2812_send(const uint8_t *data, uint16_t len)
{
    if (len == 0) {
        return;
    }
    uint8_t high = (uint8_t)(PORTD | _BV(PD6));
    uint8_t low = (uint8_t)(PORTD & ~_BV(PD6));
    uint8_t byte;
    uint8_t bits;
    /* Cycle numbers relative to the rising edge of each bit (the `out high`). */
    __asm__ volatile(
        "next_byte_%=:              \n\t"
        "  ld   %[byte], %a[ptr]+    \n\t" /* 2 */
        "  ldi  %[bits], 8           \n\t" /* 1 */
        "next_bit_%=:               \n\t"
        "  out  %[port], %[high]     \n\t" /* 0: rise */
        "  nop                       \n\t" /* 1 */
        "  nop                       \n\t" /* 2 */
        "  nop                       \n\t" /* 3 */
        "  nop                       \n\t" /* 4 */
        "  sbrs %[byte], 7           \n\t" /* 5 (skip: 5-6) */
        "  out  %[port], %[low]      \n\t" /* 6: fall for a 0 bit */
        "  nop                       \n\t" /* 7 */
        "  nop                       \n\t" /* 8 */
        "  nop                       \n\t" /* 9 */
        "  nop                       \n\t" /* 10 */
        "  nop                       \n\t" /* 11 */
        "  out  %[port], %[low]      \n\t" /* 12: fall for a 1 bit */
        "  lsl  %[byte]              \n\t" /* 13 */
        "  nop                       \n\t" /* 14 */
        "  nop                       \n\t" /* 15 */
        "  nop                       \n\t" /* 16 */
        "  dec  %[bits]              \n\t" /* 17 */
        "  brne next_bit_%=          \n\t" /* 18-19 -> next rise at 20 */
        "  sbiw %[len], 1            \n\t" /* 19-20 */
        "  brne next_byte_%=         \n\t" /* 21-22, then ld/ldi: next rise at 26 */
        : [byte] "=&d"(byte), [bits] "=&d"(bits), [ptr] "+e"(data), [len] "+w"(len)
        : [port] "I"(_SFR_IO_ADDR(PORTD)), [high] "r"(high), [low] "r"(low));
}
