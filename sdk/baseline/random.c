/* The bundled random policy: a uniform choice among the action kinds `legal` offers.
 *
 * Kinds, in this order, those offered only: "fold" (not when checking is free: folding then is
 * never better, and the menu of the JAX envs masks it too), "check" (when free), "call" (when
 * there is something to call), "raise" (when `legal.raise` is not null). With k the decision
 * key of the reference bots (sdk/README.md, "Draws"):
 *
 *     k    = fold_in^4(fold_in(slot seed, tournament); hand, seat, street, decision)
 *     kind = the (bits(k) mod count)-th offered kind
 *     raise-to = min + bits(fold_in(k, 1)) mod (max - min + 1)
 *
 * so the same seat at the same coordinates always draws the same. This is not the JAX random
 * bot (that one is uniform over the discrete menu); it exercises the whole raise range.
 */
#include "holdem.h"

static uint32_t slot_seed[2]; /* from the start message */

static int64_t decide(const holdem_msg *m) {
    int kinds[4], count = 0;
    if (!m->legal.check) kinds[count++] = HOLDEM_FOLD;
    if (m->legal.check) kinds[count++] = HOLDEM_CHECK;
    else kinds[count++] = HOLDEM_CALL;
    if (m->legal.can_raise) kinds[count++] = HOLDEM_RAISE;
    uint32_t key[2], amount_key[2];
    holdem_decision_key(slot_seed, m->tournament, m->hand, m->seat, m->street, m->decision, key);
    int kind = kinds[holdem_draw_below(key, (uint32_t)count)];
    int32_t amount = 0;
    if (kind == HOLDEM_RAISE) {
        uint32_t span = (uint32_t)(m->legal.raise_max - m->legal.raise_min) + 1u;
        holdem_fold_in(key, 1, amount_key);
        amount = m->legal.raise_min + (int32_t)holdem_draw_below(amount_key, span);
    }
    return holdem_reply_decision(m, kind, amount);
}

int64_t holdem_on_message(const char *msg, int32_t len) {
    static holdem_msg m;
    if (!holdem_parse(&m, msg, len)) return 0;
    if (m.type == HOLDEM_START) {
        slot_seed[0] = m.seed[0];
        slot_seed[1] = m.seed[1];
        return 0;
    }
    if (m.type != HOLDEM_ACT) return 0;
    return decide(&m);
}
