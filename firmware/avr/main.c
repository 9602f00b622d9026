/* ATmega328P @ 16 MHz: the platform layer under the portable core.
 *
 * UART0 receive interrupt -> ring buffer; Timer1 -> millisecond clock; WS2812B data on PD6
 * (Arduino pin D6), bit-banged with interrupts off; push button from PD2 (D2) to GND with the
 * internal pull-up; hardware watchdog 0.5 s.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/hal.h"
#include "../core/tk_core.h"
#include "ws2812.h"

/* The emulator reads the MCU model and clock from this section; it is not part of the flash image. */
#include "avr_mcu_section.h"
AVR_MCU(F_CPU, "atmega328p");

#ifndef BAUD
#define BAUD 500000UL
#endif

/* ---- reset cause, read before anything can clear it ---- */
static uint8_t reset_flags __attribute__((section(".noinit")));

void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void)
{
    reset_flags = MCUSR;
    MCUSR = 0;
    wdt_disable(); /* after a watchdog reset it is still running with the shortest timeout */
}

uint8_t hal_reset_cause(void)
{
    uint8_t cause = 0;
    if (reset_flags & _BV(PORF)) {
        cause |= 1u;
    }
    if (reset_flags & _BV(EXTRF)) {
        cause |= 2u;
    }
    if (reset_flags & _BV(BORF)) {
        cause |= 4u;
    }
    if (reset_flags & _BV(WDRF)) {
        cause |= 8u;
    }
    return cause;
}

uint8_t hal_baud_code(void)
{
    switch (BAUD) {
    case 115200UL:
        return 0;
    case 250000UL:
        return 1;
    case 500000UL:
        return 2;
    default:
        return 255;
    }
}

/* ---- UART ---- */
#define RX_RING 64u /* power of two; a 64-square frame needs the main loop every ~2.5 ms at 250k */
static volatile uint8_t rx_ring[RX_RING];
static volatile uint8_t rx_head;
static uint8_t rx_tail;

#ifdef TK_TEST_HOOKS
/* Test builds only (make test-elf): the raw bytes "HANG" on the line stop the main loop, so a test
 * can watch the hardware watchdog reset the chip. Never in the flashed image. */
static volatile bool hang_requested;
static uint8_t hang_match;

static void watch_for_hang(uint8_t byte)
{
    static const char magic[4] = {'H', 'A', 'N', 'G'};
    hang_match = byte == (uint8_t)magic[hang_match] ? (uint8_t)(hang_match + 1u) : (byte == 'H');
    if (hang_match == sizeof magic) {
        hang_requested = true;
    }
}
#endif

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0;
#ifdef TK_TEST_HOOKS
    watch_for_hang(byte);
#endif
    uint8_t next = (uint8_t)((rx_head + 1u) & (RX_RING - 1u));
    if (next != rx_tail) { /* full: drop; the CRC then rejects the frame */
        rx_ring[rx_head] = byte;
        rx_head = next;
    }
}

static void rx_push(uint8_t byte)
{
    uint8_t next = (uint8_t)((rx_head + 1u) & (RX_RING - 1u));
    if (next != rx_tail) {
        rx_ring[rx_head] = byte;
        rx_head = next;
    }
}

bool hal_uart_read(uint8_t *byte)
{
    if (rx_tail == rx_head) {
        return false;
    }
    *byte = rx_ring[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1u) & (RX_RING - 1u));
    return true;
}

bool hal_uart_pending(void)
{
    return rx_tail != rx_head;
}

void hal_uart_write(const uint8_t *data, uint16_t len)
{
    for (uint16_t i = 0; i < len; i++) {
        while (!(UCSR0A & _BV(UDRE0))) {
        }
        UDR0 = data[i];
    }
}

static void uart_init(void)
{
    /* double speed: 250000 and 500000 are exact at 16 MHz, 115200 is 2.1 % fast */
    const uint16_t ubrr = (uint16_t)((F_CPU + 4UL * BAUD) / (8UL * BAUD) - 1UL);
    UCSR0A = _BV(U2X0); /* before UBRR0: simavr derives its byte time when UBRR0L is written */
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    PORTD |= _BV(PD0); /* pull-up on RX: a floating line reads as noise, not as a start bit */
}

/* ---- clock: Timer1 free-running at 4 us per tick, extended by the overflow interrupt ---- */
static volatile uint16_t t1_overflows;

ISR(TIMER1_OVF_vect)
{
    t1_overflows++;
}

static void clock_init(void)
{
    TCCR1A = 0;
    TCCR1B = _BV(CS11) | _BV(CS10); /* clk/64 */
    TIMSK1 = _BV(TOIE1);
}

/* 4 us ticks since boot; a pending overflow (interrupts were off) is counted here too, so an LED
 * write never loses time. */
static uint32_t ticks(void)
{
    uint8_t sreg = SREG;
    cli();
    uint16_t low = TCNT1;
    uint16_t high = t1_overflows;
    if ((TIFR1 & _BV(TOV1)) && low < 0x8000u) {
        high++;
    }
    SREG = sreg;
    return ((uint32_t)high << 16) | low;
}

uint32_t hal_millis(void)
{
    static uint32_t ms;
    static uint32_t last_ticks;
    uint32_t now = ticks();
    uint32_t delta = now - last_ticks;
    /* Called every main-loop pass: usually 0 or 1 whole milliseconds have passed, and a 32-bit
     * division (~700 cycles) per pass would let a fast serial line overrun the receive ring. */
    if (delta >= 25000u) {
        uint32_t whole = delta / 250u;
        ms += whole;
        last_ticks += whole * 250u;
        delta = now - last_ticks;
    }
    while (delta >= 250u) {
        ms++;
        last_ticks += 250u;
        delta -= 250u;
    }
    return ms;
}

/* ---- button: PD2 (Arduino D2) to GND, internal pull-up (hardware/README.md says why D2) ---- */
static void button_init(void)
{
    DDRD &= (uint8_t)~_BV(PD2);
    PORTD |= _BV(PD2);
}

bool hal_button_down(void)
{
    return !(PIND & _BV(PD2)); /* the contact pulls the pin to GND */
}

/* ---- LEDs ---- */
static uint32_t last_show_end;

tk_show_result_t hal_leds_show(const uint8_t *grb, uint16_t len)
{
    /* WS2812B latches after >= 280 us low: keep consecutive frames apart */
    while ((uint32_t)(ticks() - last_show_end) < 80u) {
    }
    uint8_t sreg = SREG;
    cli();
    ws2812_send(grb, len);
    /* Interrupts were off: whatever the UART holds arrived during the write. The protocol allows
     * one 0x00 (the wake byte); more, anything else, or an overrun means lost bytes. */
    bool violated = false;
    uint8_t count = 0;
    while (UCSR0A & _BV(RXC0)) {
        uint8_t status = UCSR0A;
        uint8_t byte = UDR0;
        if ((status & (_BV(DOR0) | _BV(FE0))) || byte != 0 || ++count > 1) {
            violated = true;
        }
        rx_push(byte);
    }
    SREG = sreg;
    last_show_end = ticks();
    return violated ? TK_SHOW_RX_DURING_WRITE : TK_SHOW_CLEAN;
}

static tk_core_t core;

int main(void)
{
    DDRD |= _BV(PD6);
    PORTD &= (uint8_t)~_BV(PD6);
    button_init(); /* first: the pull-up settles while the rest starts, before the core reads it */
    uart_init();
    clock_init();
    sei();
    wdt_enable(WDTO_500MS);
    tk_core_init(&core);
    for (;;) {
        wdt_reset();
        tk_core_task(&core);
#ifdef TK_TEST_HOOKS
        while (hang_requested) {
        }
#endif
    }
}
