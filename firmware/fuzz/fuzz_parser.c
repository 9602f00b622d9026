/* libFuzzer target: arbitrary serial input through the whole core (parser, COBS, CRC, requests,
 * rendering, current cap). Properties: no crash, no sanitizer report, and after any garbage plus a
 * delimiter, a valid PING is answered with its PONG. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hal.h"
#include "../core/tk_core.h"

static const uint8_t *in_data;
static size_t in_len, in_pos;
static uint32_t clock_ms;
static bool fuzz_button;
static uint8_t last_tx[64];
static uint16_t last_tx_len;
static bool garbage_phase; /* LED writes may report bytes during the write only then */

uint32_t hal_millis(void) { return clock_ms; }
bool hal_uart_read(uint8_t *byte)
{
    if (in_pos >= in_len) {
        return false;
    }
    *byte = in_data[in_pos++];
    fuzz_button = (*byte & 0x80u) != 0; /* the button bounces with the input: debounce gets fuzzed too */
    clock_ms += 1; /* time passes with the input, so timeouts and animation get exercised */
    return true;
}
bool hal_uart_pending(void) { return in_pos < in_len; }
void hal_uart_write(const uint8_t *data, uint16_t len)
{
    last_tx_len = len < sizeof last_tx ? len : (uint16_t)sizeof last_tx;
    memcpy(last_tx, data, last_tx_len);
}
tk_show_result_t hal_leds_show(const uint8_t *grb, uint16_t len)
{
    volatile uint8_t sink = 0;
    for (uint16_t i = 0; i < len; i++) {
        sink ^= grb[i];
    }
    (void)sink;
    return (garbage_phase && (len & 1u)) ? TK_SHOW_RX_DURING_WRITE : TK_SHOW_CLEAN;
}
uint8_t hal_reset_cause(void) { return 0; }
uint8_t hal_baud_code(void) { return 255; }
bool hal_button_down(void) { return fuzz_button; }

static tk_core_t core;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clock_ms = 0;
    tk_core_init(&core);
    in_data = data;
    in_len = size;
    in_pos = 0;
    garbage_phase = true;
    while (in_pos < in_len) {
        tk_core_task(&core);
        clock_ms += 7;
    }
    tk_core_task(&core);
    garbage_phase = false;
    /* Recovery: whatever came before, a delimiter and then a valid PING get their PONG. */
    static uint8_t scratch[32], wire[40];
    static const uint8_t body[2] = {'o', 'k'};
    uint16_t n = tk_frame_build(TK_MSG_PING, 0x5a, body, 2, scratch, sizeof scratch, wire + 1,
                                sizeof wire - 1);
    wire[0] = 0;
    in_data = wire;
    in_len = (size_t)n + 1u;
    in_pos = 0;
    last_tx_len = 0;
    clock_ms += 200; /* past the hold time */
    while (in_pos < in_len) {
        tk_core_task(&core);
    }
    /* the reply decodes to 82 5a 'o' 'k' crc: its COBS form starts 07 82 5a 6f 6b */
    if (!(last_tx_len == 8 && last_tx[1] == TK_MSG_PONG && last_tx[2] == 0x5a && last_tx[3] == 'o')) {
        abort();
    }
    return 0;
}
