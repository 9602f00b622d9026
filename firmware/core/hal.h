/* The one seam between the portable core and a platform (avr/, host/, the fuzzer).
 *
 * Calls out only: the core never includes a platform header. A platform provides these functions,
 * owns the interrupt handlers (which only queue received bytes) and calls tk_core_task() from its
 * main loop.
 */
#ifndef TK_HAL_H
#define TK_HAL_H

#include <stdbool.h>
#include <stdint.h>

/* What happened on the serial line while the LEDs were being written (interrupts off). */
typedef enum {
    TK_SHOW_CLEAN = 0,         /* nothing, or only the single 0x00 wake byte the protocol allows */
    TK_SHOW_RX_DURING_WRITE,   /* more than that: on real hardware bytes were lost */
} tk_show_result_t;

/* Milliseconds since boot; wraps at 2^32. */
uint32_t hal_millis(void);

/* Takes one received byte from the platform's receive queue; false when the queue is empty. */
bool hal_uart_read(uint8_t *byte);

/* True when at least one received byte waits in the queue (checked just before an LED write). */
bool hal_uart_pending(void);

/* Sends bytes; may block until they are queued or sent. */
void hal_uart_write(const uint8_t *data, uint16_t len);

/* Writes `len` bytes (G, R, B per LED, chain order) to the LED chain and returns once the last bit
 * has left the data pin. Bytes received meanwhile are queued for hal_uart_read(). */
tk_show_result_t hal_leds_show(const uint8_t *grb, uint16_t len);

/* INFO fields the platform knows: reset cause (bit0 power-on, bit1 external, bit2 brown-out,
 * bit3 watchdog) and the serial speed code (0 115200, 1 250000, 2 500000, 255 other). */
uint8_t hal_reset_cause(void);
uint8_t hal_baud_code(void);

/* True while the button's contact is closed, read raw (bouncing included; the core debounces).
 * A platform without a button returns false. */
bool hal_button_down(void);

#endif
