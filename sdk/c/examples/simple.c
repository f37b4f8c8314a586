/* A tiny policy: check/call with a strong starting hand, otherwise check or fold; one chat line
 * at its first decision; a debug log line at the start.
 *
 * Build (from the repository root):
 *   python -m ziglang cc --target=wasm32-wasi -mexec-model=reactor -O2 \
 *     -Wl,-z,stack-size=1048576 -s -I sdk/c sdk/c/examples/simple.c -o simple.wasm
 */
#include "holdem.h"

/* Pairs of eights or better, and two cards ten or higher (ranks 0..12 = 2..A). */
static int strong(const holdem_msg *m) {
    int r0 = holdem_card_rank(m->hole[0]), r1 = holdem_card_rank(m->hole[1]);
    if (m->hole[0] < 0 || m->hole[1] < 0) return 0;
    if (r0 == r1) return r0 >= 6;
    return r0 >= 8 && r1 >= 8;
}

int64_t holdem_on_message(const char *msg, int32_t len) {
    static holdem_msg m;
    static int decisions;
    if (!holdem_parse(&m, msg, len)) return 0;
    if (m.type == HOLDEM_START) {
        holdem_log_int("simple policy in slot ", m.slot);
        return 0;
    }
    if (m.type != HOLDEM_ACT) return 0;
    holdem_reply_begin();
    if (decisions++ == 0) holdem_reply_chat("gl hf");
    if (m.legal.check) {
        holdem_reply_set_action(HOLDEM_CHECK, 0);
    } else if (strong(&m)) {
        holdem_reply_set_action(HOLDEM_CALL, 0);
    } else {
        holdem_reply_set_action(HOLDEM_FOLD, 0);
    }
    return holdem_reply_end();
}
