#include "tk_button.h"

void tk_button_init(tk_button_t *b, bool raw_down, uint32_t now_ms)
{
    b->down = raw_down;
    b->candidate = raw_down;
    b->since_ms = now_ms;
    b->presses = 0;
}

bool tk_button_update(tk_button_t *b, bool raw_down, uint32_t now_ms)
{
    if (raw_down != b->candidate) {
        /* an edge: the stability clock starts again (this is what swallows the bounce) */
        b->candidate = raw_down;
        b->since_ms = now_ms;
        return false;
    }
    if (b->candidate == b->down || (uint32_t)(now_ms - b->since_ms) < TK_DEBOUNCE_MS) {
        return false;
    }
    b->down = b->candidate;
    if (b->down) {
        b->presses++; /* u16 arithmetic: wraps to 0 after 65535, as PROTOCOL.md says */
        return true;
    }
    return false;
}
