/* The push button on the board's edge: debounced from raw pin reads, presses counted.
 *
 * Pure logic on the core's millisecond clock; the platform only says whether the contact is closed
 * (hal_button_down). A level counts once it has read the same for TK_DEBOUNCE_MS: a tactile switch
 * bounces for a few ms on make and on break, and a press lasts 80 ms or more, so 20 ms rejects the
 * bounce without making a quick tap disappear.
 */
#ifndef TK_BUTTON_H
#define TK_BUTTON_H

#include <stdbool.h>
#include <stdint.h>

#define TK_DEBOUNCE_MS 20u

typedef struct {
    bool down;         /* the debounced level */
    bool candidate;    /* the level read last */
    uint32_t since_ms; /* when `candidate` was first read */
    uint16_t presses;  /* debounced released -> down transitions since boot; wraps at 65536 */
} tk_button_t;

/* A button held while the board boots is down but not a press (a reset must not invent one). */
void tk_button_init(tk_button_t *button, bool raw_down, uint32_t now_ms);

/* Feeds one raw read; returns true when it completes a press (the press counter went up). */
bool tk_button_update(tk_button_t *button, bool raw_down, uint32_t now_ms);

#endif
