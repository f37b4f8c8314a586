/* A PPO policy of holdemjax.training exported to WebAssembly (holdemjax export-wasm).
 *
 * The network's weights come from the generated header policy_weights.h (float32 arrays, hex
 * literals: exact). Per `act` message the module
 *   1. rebuilds the env observation from the message and the start message's format, as
 *      holdemjax/training/act_features.py specifies (the same float32 products);
 *   2. computes networks.features of it (squash, pre-flop table, category, counts);
 *   3. evaluates the actor MLP in float32: every dot product summed in input order from 0,
 *      then the bias; tanh as XLA's CPU tanh (a rational function with fused multiply-adds);
 *   4. masks the logits with the env's action menu (holdemjax/poker/actions.py), then takes
 *      the first largest logit (greedy) or jax.random.categorical's Gumbel draw addressed by
 *      the decision's coordinates (sampled), and replies with the menu entry.
 * Built with -ffp-contract=off: no operation is fused or reordered unless written here.
 * See docs/export.md for what is and is not bit-identical to JAX.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "holdem.h"
#include "preflop_v1.h"     /* PREFLOP_EQUITY_BP[169][5], PREFLOP_TOP_BP[169] */
#include "policy_weights.h" /* NET_*: layer sizes, weights, NET_GREEDY, NET_SEATS */

enum { M_FOLD = 0, M_CHECK_CALL = 1, M_ACTIONS = HOLDEM_MENU_ACTIONS }; /* holdem_menu (holdem.h) */

#define N_SEATS NET_SEATS
#define OBS_SIZE (104 + 10 * N_SEATS + 8 * N_SEATS + 4 + 10)
#define FEAT_SIZE (OBS_SIZE + 6 + 9 + 4)

static uint32_t slot_seed[2];
static holdem_format fmt;

static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

/* ------------------------------------------------------------ 1. the observation (sng_obs) */
static void observation(const holdem_msg *m, float *obs) {
    const int n = N_SEATS;
    const int seat = m->seat;
    const float per_bb = 1.0f / (float)m->blinds[1];
    int32_t chips[4][HOLDEM_MAX_SEATS], raises[4][HOLDEM_MAX_SEATS];
    int acted[4][HOLDEM_MAX_SEATS];
    memset(chips, 0, sizeof chips);
    memset(raises, 0, sizeof raises);
    memset(acted, 0, sizeof acted);
    int kept = m->num_history < HOLDEM_MAX_HISTORY ? m->num_history : HOLDEM_MAX_HISTORY;
    for (int i = 0; i < kept; i++) {
        const holdem_history *h = &m->history[i];
        if (h->street < 0 || h->street > 3 || h->seat < 0 || h->seat >= n) continue;
        chips[h->street][h->seat] = h->to;
        acted[h->street][h->seat] = 1;
        raises[h->street][h->seat] += h->code == HOLDEM_RAISE;
    }
    for (int s = 0; s < n; s++) {
        int32_t posted = (s == m->sb ? m->blinds[0] : 0) + (s == m->bb ? m->blinds[1] : 0);
        chips[0][s] = acted[0][s] ? chips[0][s] - posted : 0;
    }
    float *o = obs;
    memset(obs, 0, sizeof(float) * OBS_SIZE);
    if (m->hole[0] >= 0) o[m->hole[0]] = 1.0f;
    if (m->hole[1] >= 0) o[m->hole[1]] = 1.0f;
    o += 52;
    for (int i = 0; i < m->num_board; i++) o[m->board[i]] = 1.0f;
    o += 52;
    for (int i = 0; i < n; i++) {
        int s = (seat + i) % n;
        o[0 * n + i] = (float)m->stacks[s] * per_bb;
        o[1 * n + i] = (float)m->bets[s] * per_bb;
        o[2 * n + i] = (float)m->contrib[s] * per_bb;
        o[3 * n + i] = m->folded[s] ? 1.0f : 0.0f;
        o[4 * n + i] = m->allin[s] ? 1.0f : 0.0f;
        o[5 * n + i] = m->in_hand[s] ? 0.0f : 1.0f;
        o[6 * n + i] = s == seat ? 1.0f : 0.0f;
        o[7 * n + i] = s == m->button ? 1.0f : 0.0f;
        o[8 * n + i] = s == m->sb ? 1.0f : 0.0f;
        o[9 * n + i] = s == m->bb ? 1.0f : 0.0f;
        for (int st = 0; st < 4; st++) {
            o[10 * n + st * n + i] = (float)chips[st][s] * per_bb;
            o[14 * n + st * n + i] = (float)raises[st][s];
        }
    }
    o += 18 * n;
    o[imin(imax(m->street, 0), 3)] = 1.0f;
    o += 4;
    o[0] = (float)m->pot * per_bb;
    o[1] = (float)m->legal.call * per_bb;
    o[2] = m->legal.can_raise ? (float)m->legal.raise_min * per_bb : 0.0f;
    o[3] = m->legal.can_raise ? (float)m->legal.raise_max * per_bb : 0.0f;
    int32_t levels = imax(fmt.num_levels, 1), hpl = imax(fmt.hands_per_level, 1);
    int32_t cap = imax(fmt.hand_cap, 1);
    int32_t level = imin(m->hand / hpl, levels - 1);
    int32_t to_level = level >= levels - 1 ? 0 : hpl - (m->hand - level * hpl);
    int32_t alive = 0;
    for (int s = 0; s < n; s++) alive += m->alive[s] != 0;
    o[4] = (float)level * (float)(1.0 / (double)levels);
    o[5] = (float)m->blinds[1] * (1.0f / (float)fmt.starting_stack);
    o[6] = m->blinds[2] > 0 ? 1.0f : 0.0f;
    o[7] = (float)to_level * (1.0f / (float)hpl);
    o[8] = (float)(cap - m->hand) * (1.0f / (float)cap);
    o[9] = (float)alive * (float)(1.0 / (double)n);
}

/* ------------------------------------------------------------- 2. networks.features */
static int32_t hand_class(int c0, int c1) {
    int32_t r0 = c0 / 4, r1 = c1 / 4, hi = imax(r0, r1), lo = imin(r0, r1);
    return (c0 % 4 == c1 % 4) ? 13 * hi + lo : 13 * lo + hi;
}

static int straight_mask(int32_t ranks) {
    uint32_t r = (uint32_t)ranks;
    uint32_t ext = (r << 1) | ((r >> 12) & 1); /* the ace also plays low */
    uint32_t run = ext;
    for (int shift = 1; shift < 5; shift++) run &= ext >> shift;
    return run != 0;
}

/* The evaluator's category (0 high card .. 8 straight flush) of the best five of `cards`. */
static int category(const int *cards, int num) {
    int32_t ranks[13] = {0}, suits[4] = {0}, suit_masks[4] = {0}, rank_mask = 0;
    for (int i = 0; i < num; i++) {
        ranks[cards[i] / 4]++;
        suits[cards[i] % 4]++;
        suit_masks[cards[i] % 4] |= 1 << (cards[i] / 4);
        rank_mask |= 1 << (cards[i] / 4);
    }
    int32_t flush = 0, n4 = 0, n3 = 0, n2 = 0;
    for (int s = 0; s < 4; s++)
        if (suits[s] >= 5) flush |= suit_masks[s];
    for (int r = 0; r < 13; r++) {
        n4 += ranks[r] == 4;
        n3 += ranks[r] == 3;
        n2 += ranks[r] == 2;
    }
    if (flush && straight_mask(flush)) return 8;
    if (n4 > 0) return 7;
    if (n3 >= 2 || (n3 >= 1 && n2 >= 1)) return 6;
    if (flush != 0) return 5;
    if (straight_mask(rank_mask)) return 4;
    if (n3 >= 1) return 3;
    if (n2 >= 2) return 2;
    if (n2 == 1) return 1;
    return 0;
}

static void max_counts(const int *cards, int num, int32_t *max_rank, int32_t *max_suit) {
    int32_t ranks[13] = {0}, suits[4] = {0};
    *max_rank = *max_suit = 0;
    for (int i = 0; i < num; i++) {
        *max_rank = imax(*max_rank, ++ranks[cards[i] / 4]);
        *max_suit = imax(*max_suit, ++suits[cards[i] % 4]);
    }
}

static void features(const holdem_msg *m, const float *obs, float *x) {
    for (int i = 0; i < OBS_SIZE; i++) {
        float v = obs[i], a = fabsf(v);
        float sign = v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : 0.0f;
        x[i] = sign * (float)log1p((double)a);
    }
    x += OBS_SIZE;
    int c0 = m->hole[0] > m->hole[1] ? m->hole[0] : m->hole[1];
    int c1 = m->hole[0] > m->hole[1] ? m->hole[1] : m->hole[0];
    int32_t cls = (c0 >= 0 && c1 >= 0) ? hand_class(c0, c1) : 0;
    for (int k = 0; k < 5; k++) x[k] = (float)PREFLOP_EQUITY_BP[cls][k] * 1e-4f;
    x[5] = (float)PREFLOP_TOP_BP[cls] * 1e-4f;
    x += 6;
    for (int k = 0; k < 13; k++) x[k] = 0.0f;
    int shown = m->num_board;
    if (shown >= 3) {
        int seven[7] = {m->hole[0], m->hole[1]};
        for (int i = 0; i < shown; i++) seven[2 + i] = m->board[i];
        x[category(seven, 2 + shown)] = 1.0f;
        int32_t br, bs, ar, as;
        max_counts(m->board, shown, &br, &bs);
        max_counts(seven, 2 + shown, &ar, &as);
        x[9] = (float)br * 0.2f;
        x[10] = (float)bs * 0.2f;
        x[11] = (float)ar * 0.2f;
        x[12] = (float)as * 0.2f;
    }
}

/* ------------------------------------------------------------------ 3. the actor MLP */
/* XLA's CPU tanh for float32 (xla/codegen/intrinsic/tanh.cc, with_fma): a rational function
 * of the input clamped to +-7.99881172180175781, evaluated with fused multiply-adds; x itself
 * below 0.0004, +-1 from 20 on. fmaf is exact (wasi-libc computes it in software). */
static float xla_tanh(float x) {
    static const float num[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f,
                                 -8.60467152213735e-11f, 5.12229709037114e-08f,
                                 1.48572235717979e-05f, 6.37261928875436e-04f,
                                 4.89352455891786e-03f};
    static const float den[4] = {1.19825839466702e-06f, 1.18534705686654e-04f,
                                 2.26843463243900e-03f, 4.89352518554385e-03f};
    const float clamp = 7.99881172180175781f;
    float a = fabsf(x);
    if (a >= 20.0f) return x > 0 ? 1.0f : -1.0f;
    if (a < 0.0004f) return x;
    float c = x < -clamp ? -clamp : x > clamp ? clamp : x;
    float x2 = c * c;
    float p = num[0];
    for (int i = 1; i < 7; i++) p = fmaf(x2, p, num[i]);
    p = c * p;
    float q = den[0];
    for (int i = 1; i < 4; i++) q = fmaf(x2, q, den[i]);
    return p / q;
}

static void dense(const float *in, int n_in, const float *w, const float *b, int n_out,
                  float *out, int activate) {
    for (int j = 0; j < n_out; j++) {
        float acc = 0.0f;
        for (int i = 0; i < n_in; i++) acc += in[i] * w[i * n_out + j];
        acc = acc + b[j];
        out[j] = activate ? xla_tanh(acc) : acc;
    }
}

static float feat_buf[FEAT_SIZE], obs_buf[OBS_SIZE];

static void logits_of(const holdem_msg *m, float *logits) {
    static float h[2][NET_MAX_WIDTH];
    observation(m, obs_buf);
    features(m, obs_buf, feat_buf);
    const float *in = feat_buf;
    int n_in = FEAT_SIZE;
    for (int l = 0; l < NET_LAYERS; l++) {
        int last = l == NET_LAYERS - 1;
        float *out = last ? logits : h[l & 1];
        dense(in, n_in, NET_W[l], NET_B[l], NET_WIDTH[l], out, !last);
        in = out;
        n_in = NET_WIDTH[l];
    }
}

/* ------------------------------------------------------------------- 4. menu and draw */
static void menu(const holdem_msg *m, int mask[M_ACTIONS], int32_t amounts[M_ACTIONS]) {
    int32_t cur = m->street == 0 ? m->blinds[1] : 0;
    for (int s = 0; s < m->seats; s++) cur = imax(cur, m->bets[s]);
    holdem_menu(&m->legal, m->pot, cur, m->bets[m->seat] + m->stacks[m->seat], mask, amounts);
}

/* jax.random.categorical(key, logits): argmax(gumbel + logits), gumbel = -log(-log(u)), u the
 * uniform in [tiny, 1) of bits(key, (9,)): element i = the XOR of threefry2x32(key, (0, i)). */
static int sample(const uint32_t key[2], const float *masked) {
    int best = 0;
    float best_v = 0.0f;
    for (int i = 0; i < M_ACTIONS; i++) {
        const uint32_t in[2] = {0, (uint32_t)i};
        uint32_t out[2];
        holdem_threefry2x32(key, in, out);
        uint32_t bits = ((out[0] ^ out[1]) >> 9) | 0x3f800000u;
        float f;
        memcpy(&f, &bits, sizeof f);
        float u = (f - 1.0f) * 1.0f + 1.17549435e-38f;
        if (u < 1.17549435e-38f) u = 1.17549435e-38f;
        float g = -(float)log(-(double)(float)log((double)u));
        float v = g + masked[i];
        if (i == 0 || v > best_v) best = i, best_v = v;
    }
    return best;
}

static int choose(const holdem_msg *m, float *logits, int mask[M_ACTIONS],
                  int32_t amounts[M_ACTIONS]) {
    logits_of(m, logits);
    menu(m, mask, amounts);
    float masked[M_ACTIONS];
    for (int a = 0; a < M_ACTIONS; a++) masked[a] = mask[a] ? logits[a] : -1e9f;
    if (NET_GREEDY) {
        int best = 0;
        for (int a = 1; a < M_ACTIONS; a++)
            if (masked[a] > masked[best]) best = a;
        return best;
    }
    uint32_t key[2];
    holdem_decision_key(slot_seed, m->tournament, m->hand, m->seat, m->street, m->decision, key);
    return sample(key, masked);
}

/* A probe for the tests (never sent by the host): an `act` message with "probe": 1 is answered
 * with the observation, features and logits as hex words. */
static char probe_buf[HOLDEM_REPLY_BYTES * 4];

static char *put_hex(char *o, const float *v, int count) {
    static const char hex[] = "0123456789abcdef";
    *o++ = '"';
    for (int i = 0; i < count; i++) {
        uint32_t w;
        memcpy(&w, &v[i], sizeof w);
        for (int k = 7; k >= 0; k--) *o++ = hex[(w >> (4 * k)) & 15];
    }
    *o++ = '"';
    return o;
}

static int64_t probe(const holdem_msg *m) {
    float logits[M_ACTIONS];
    int mask[M_ACTIONS];
    int32_t amounts[M_ACTIONS];
    int action = choose(m, logits, mask, amounts);
    char *o = probe_buf;
    memcpy(o, "{\"obs\":", 7), o += 7;
    o = put_hex(o, obs_buf, OBS_SIZE);
    memcpy(o, ",\"feat\":", 8), o += 8;
    o = put_hex(o, feat_buf, FEAT_SIZE);
    memcpy(o, ",\"logits\":", 10), o += 10;
    o = put_hex(o, logits, M_ACTIONS);
    memcpy(o, ",\"action\":", 10), o += 10;
    *o++ = (char)('0' + action);
    *o++ = '}';
    return ((int64_t)(uintptr_t)probe_buf << 32) | (int64_t)(o - probe_buf);
}

static int64_t decide(const holdem_msg *m) {
    float logits[M_ACTIONS];
    int mask[M_ACTIONS];
    int32_t amounts[M_ACTIONS];
    int action = choose(m, logits, mask, amounts);
    if (action == M_FOLD) return holdem_reply_decision(m, HOLDEM_FOLD, 0);
    if (action == M_CHECK_CALL)
        return holdem_reply_decision(m, m->legal.check ? HOLDEM_CHECK : HOLDEM_CALL, 0);
    return holdem_reply_decision(m, HOLDEM_RAISE, amounts[action]);
}

/* The start message names a table of another seat count: the network's input is defined for
 * N_SEATS seats only, so the module refuses the series the protocol's way (PROTOCOL.md §4: a
 * trap on the start message fails the series), after logging why; the host reports that line
 * with the failure. */
static char *put_text(char *o, const char *text, size_t most) {
    for (size_t i = 0; i < most && text[i]; i++) *o++ = text[i];
    return o;
}

static void refuse_table(const holdem_format *f) {
    char line[256], *o = line;
    o = put_text(o, "export-wasm policy: plays ", 64);
    o += holdem_format_int(o, N_SEATS);
    o = put_text(o, "-seat tables only (its network's input is for that many seats); "
                    "the format ", 128);
    o = put_text(o, f->name, sizeof f->name);
    o = put_text(o, " has ", 8);
    o += holdem_format_int(o, f->seats);
    o = put_text(o, " seats", 8);
    *o = 0;
    holdem_log(line);
    __builtin_trap();
}

int64_t holdem_on_message(const char *msg, int32_t len) {
    static holdem_msg m;
    if (!holdem_parse(&m, msg, len)) return 0;
    if (m.type == HOLDEM_START) {
        if (m.format.seats != N_SEATS) refuse_table(&m.format);
        slot_seed[0] = m.seed[0];
        slot_seed[1] = m.seed[1];
        fmt = m.format;
        return 0;
    }
    if (m.type != HOLDEM_ACT || m.seats != N_SEATS || m.blinds[1] <= 0 || m.seat < 0 ||
        m.seat >= N_SEATS)
        return 0; /* not a decision this network can take (refused at start): the default */
    int64_t p;
    if (holdem_json_int(holdem_json_get(m.raw, "probe"), &p) && p == 1) return probe(&m);
    return decide(&m);
}
