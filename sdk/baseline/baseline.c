/* The bundled baseline policy: holdemjax/bots/baseline.py, decision for decision, as wasm.
 *
 * docs/baseline.md states the strategy; this file ports baseline.py's arithmetic line by line
 * (int32, floor divisions of non-negative numbers, the same tie-breaks), reads every input from
 * the `act` message, and draws u exactly as the JAX bot does:
 *
 *     game key = fold_in(slot seed, tournament)        (the slot seed of the `start` message)
 *     u = bits(fold_in^4(game key; hand, seat, street, decision)) mod 10000
 *
 * The chosen menu action (holdemjax/poker/actions.py Menu, DEFAULT_SIZES) becomes the reply:
 * FOLD -> "fold", CHECK_CALL -> "check" when checking is free else "call", a raise entry ->
 * "raise" to its exact amount. tests/series/test_baseline_wasm.py checks thousands of decisions
 * against the JAX bot.
 *
 * Build with sdk/build.py: it generates preflop_v1.h from holdemjax/bots/data/preflop_v1.json
 * (checking its SHA-256 against baseline.PREFLOP_SHA256).
 */
#include "holdem.h"
#include "preflop_v1.h" /* PREFLOP_EQUITY_BP[169][5], PREFLOP_TOP_BP[169] */

/* ------------------------------------------------------------------- constants (baseline.py) */
static const int32_t OPEN_TOP[6] = {1500, 4000, 4000, 2700, 2000, 1500};
#define HEADS_UP_BONUS 2500
#define STEAL_EXTRA 1500
#define STEAL_U 3000
#define LIMP_TOP 2500
#define SB_COMPLETE_TOP 5000
#define OPEN_SIZE_BB 3
#define THREE_BET_TOP 350
#define THREE_BET_JAM_BB 25
#define CALL_TOP 1300
#define CALL_ODDS_PENALTY 1500
#define CALL_ODDS_MAX_SHARE 5
#define FOUR_BET_TOP 150
#define FOUR_BET_JAM_BB 40
#define CALL_3BET_TOP 400
#define CALL_3BET_PENALTY 2500
#define SHORT_BB 12
static const int32_t PUSH_TOP[6] = {2500, 5500, 4500, 3500, 2800, 2200};
#define VERY_SHORT_BB 6
#define VERY_SHORT_BONUS 1500
#define JAM_OVER_TOP 1200
#define SHORT_CALL_PENALTY 800
static const int32_t VALUE_BET[2] = {3, 4};
static const int32_t PAIR_BET[2] = {1, 2};
#define SEMI_BLUFF_U 4000
#define CBET_U 6000
#define BLUFF_U 1500
static const int32_t PAIR_PRICE[2] = {4500, 3000};
static const int32_t WEAK_PAIR_PRICE[3] = {2600, 2200, 1800};
static const int32_t DRAW_PRICE[2][3] = {{3500, 3100, 4500}, {1950, 1700, 3000}};
#define RAISE_LIMIT 3

enum { NOTHING = 0, WEAK = 1, GOOD = 2, STRONG = 3 };          /* post-flop tiers */
enum { I_FOLD = 0, I_CALL = 1, I_RAISE = 2 };                  /* intents */
enum { HIGH_CARD = 0, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE,
       FOUR_OF_A_KIND, STRAIGHT_FLUSH };                       /* evaluator categories */
enum { PREFLOP = 0, FLOP = 1, TURN = 2, RIVER = 3 };

/* The menu (holdemjax/poker/actions.py; holdem_menu of holdem.h computes it). */
enum { M_FOLD = 0, M_CHECK_CALL = 1, M_MIN_RAISE = 2, M_ALL_IN = 8, M_ACTIONS = 9 };

static uint32_t slot_seed[2]; /* from the start message */

static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t iclip(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }
static int32_t imod(int32_t a, int32_t n) { int32_t r = a % n; return r < 0 ? r + n : r; }
/* Python's // (floor), though every division here has a non-negative numerator. */
static int32_t ifloordiv(int32_t a, int32_t b) {
    int32_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* ----------------------------------------------------------------------------- the features */
typedef struct {
    int32_t seat, street, dealt, opponents, after, limpers, raises, we_raised_preflop;
    int32_t reach, stack, eff_bb, pot, to_call, current_bet, big_blind, is_sb;
} features;

/* baseline.features, from the act message. current_bet is not in the message: it is the
 * largest street bet, and pre-flop at least the big blind (a short big blind all-in still
 * sets it to the full blind; bets only grow within a street). */
static void compute_features(const holdem_msg *m, features *f) {
    int32_t n = m->seats > 0 ? m->seats : 1;
    int32_t seat = imax(m->seat, 0);
    int32_t bb = imax(m->blinds[1], 1);
    int32_t street = iclip(m->street, 0, 3);
    int32_t cur = street == PREFLOP ? m->blinds[1] : 0;
    for (int s = 0; s < n; s++) cur = imax(cur, m->bets[s]);
    int32_t dealt = 0, opponents = 0, after = 0, limpers = 0, opp_reach = 0, raises = 0;
    int32_t to_bb = imod(m->bb - seat, n);
    for (int s = 0; s < n; s++) {
        int live = m->in_hand[s] && !m->folded[s];
        int other = live && s != seat;
        dealt += m->in_hand[s] != 0;
        raises += m->street_raises[street][s];
        if (!other) continue;
        opponents++;
        if (imod(s - seat, n) <= to_bb) after++;
        if (s != m->bb && m->bets[s] >= cur) limpers++;
        opp_reach = imax(opp_reach, m->bets[s] + m->stacks[s]);
    }
    f->seat = seat;
    f->street = street;
    f->dealt = dealt;
    f->opponents = opponents;
    f->after = imin(after, 5);
    f->limpers = limpers;
    f->raises = raises;
    f->we_raised_preflop = m->street_raises[0][seat] > 0;
    f->reach = m->bets[seat] + m->stacks[seat];
    f->stack = m->stacks[seat];
    f->eff_bb = ifloordiv(imin(f->reach, opp_reach), bb);
    f->pot = m->pot;
    f->to_call = m->legal.call;
    f->current_bet = cur;
    f->big_blind = bb;
    f->is_sb = seat == m->sb && m->bets[seat] < bb;
}

/* ---------------------------------------------------------------------------------- pre-flop */
static int32_t hand_class(int c0, int c1) {
    int32_t r0 = c0 / 4, r1 = c1 / 4, hi = imax(r0, r1), lo = imin(r0, r1);
    return (c0 % 4 == c1 % 4) ? 13 * hi + lo : 13 * lo + hi;
}

/* odds(e): e * (pot + call) >= 10000 * call (int32: chips stay below 2^31 / 10000). */
static int odds_ok(int32_t equity, int32_t pot_after, int32_t to_call) {
    return equity * pot_after >= 10000 * to_call;
}

static void preflop(const features *f, int32_t u, const int16_t *equity, int32_t top,
                    int *intent, int32_t *target) {
    int32_t eq = equity[iclip(f->opponents, 1, 5) - 1];
    int32_t bb = f->big_blind, to_call = f->to_call, cur = f->current_bet, reach = f->reach;
    int32_t pot_after = f->pot + to_call;
    int32_t raises = f->raises, after = f->after, eff = f->eff_bb;
    int32_t hu = f->dealt == 2 ? HEADS_UP_BONUS : 0;
    int32_t open_top = OPEN_TOP[after] + hu;

    if (eff <= SHORT_BB) { /* push/fold */
        if (raises == 0) {
            int32_t push_top = PUSH_TOP[after] + hu + (eff <= VERY_SHORT_BB ? VERY_SHORT_BONUS : 0);
            *intent = top <= push_top ? I_RAISE : I_FOLD;
        } else {
            int short_call = odds_ok(eq - SHORT_CALL_PENALTY * raises, pot_after, to_call);
            *intent = top <= JAM_OVER_TOP ? I_RAISE : short_call ? I_CALL : I_FOLD;
        }
        *target = reach;
        return;
    }
    if (raises == 0) {
        int steal = after >= 1 && after <= 2 && top <= open_top + STEAL_EXTRA && u < STEAL_U;
        int limp = (f->limpers >= 1 && top <= LIMP_TOP) || (f->is_sb && top <= SB_COMPLETE_TOP);
        *intent = (top <= open_top || steal) ? I_RAISE : limp ? I_CALL : I_FOLD;
        *target = (OPEN_SIZE_BB + f->limpers) * bb;
    } else if (raises == 1) {
        int odds1 = odds_ok(eq - CALL_ODDS_PENALTY, pot_after, to_call) &&
                    to_call * CALL_ODDS_MAX_SHARE <= reach;
        *intent = top <= THREE_BET_TOP ? I_RAISE : (top <= CALL_TOP || odds1) ? I_CALL : I_FOLD;
        *target = eff <= THREE_BET_JAM_BB ? reach : 3 * cur;
    } else {
        int odds2 = odds_ok(eq - CALL_3BET_PENALTY, pot_after, to_call);
        int call2 = (top <= CALL_3BET_TOP && 3 * to_call <= reach) || odds2;
        *intent = top <= FOUR_BET_TOP ? I_RAISE : call2 ? I_CALL : I_FOLD;
        *target = eff <= FOUR_BET_JAM_BB ? reach : ifloordiv(5 * cur, 2);
    }
}

/* --------------------------------------------------------------------------------- post-flop */
typedef struct {
    int32_t ranks[13], suits[4], rank_mask, suit_masks[4];
} counts;

static int straight_mask(int32_t ranks) {
    uint32_t r = (uint32_t)ranks;
    uint32_t ext = (r << 1) | ((r >> 12) & 1); /* the ace also plays low */
    uint32_t run = ext;
    for (int shift = 1; shift < 5; shift++) run &= ext >> shift;
    return run != 0;
}

/* Ranks that would complete a straight not already there (0 if there is one). */
static int32_t straight_outs(int32_t ranks) {
    if (straight_mask(ranks)) return 0;
    int32_t outs = 0;
    for (int r = 0; r < 13; r++)
        if (!(ranks & (1 << r)) && straight_mask(ranks | (1 << r))) outs++;
    return outs;
}

static void count_cards(const int *cards, int num, counts *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < num; i++) {
        int card = cards[i];
        if (card < 0 || card > 51) continue;
        c->ranks[card / 4]++;
        c->suits[card % 4]++;
        c->suit_masks[card % 4] |= 1 << (card / 4);
    }
    for (int r = 0; r < 13; r++)
        if (c->ranks[r] > 0) c->rank_mask |= 1 << r;
}

/* baseline._category: the best five of the counted cards, from counts alone. */
static int32_t category(const counts *c) {
    int32_t flush = 0, n4 = 0, n3 = 0, n2 = 0;
    for (int s = 0; s < 4; s++)
        if (c->suits[s] >= 5) flush += c->suit_masks[s];
    for (int r = 0; r < 13; r++) {
        n4 += c->ranks[r] == 4;
        n3 += c->ranks[r] == 3;
        n2 += c->ranks[r] == 2;
    }
    if (straight_mask(flush)) return STRAIGHT_FLUSH;
    if (n4 > 0) return FOUR_OF_A_KIND;
    if (n3 >= 2 || (n3 >= 1 && n2 >= 1)) return FULL_HOUSE;
    if (flush != 0) return FLUSH;
    if (straight_mask(c->rank_mask)) return STRAIGHT;
    if (n3 >= 1) return THREE_OF_A_KIND;
    if (n2 >= 2) return TWO_PAIR;
    if (n2 == 1) return ONE_PAIR;
    return HIGH_CARD;
}

typedef struct {
    int32_t tier;
    int flush_draw, straight_draw, pair;
} postflop_hand;

/* baseline._postflop: hole + the board seen at this street. */
static void postflop_hand_of(const holdem_msg *m, int32_t street, postflop_hand *h) {
    static const int visible[5] = {0, 3, 4, 5, 5};
    int shown = visible[iclip(street, 0, 4)];
    int board[5], cards[7];
    int nb = 0;
    for (int i = 0; i < shown && i < m->num_board; i++) board[nb++] = m->board[i];
    cards[0] = m->hole[0];
    cards[1] = m->hole[1];
    for (int i = 0; i < nb; i++) cards[2 + i] = board[i];
    counts all, b;
    count_cards(board, nb, &b);
    count_cards(cards, 2 + nb, &all);
    int32_t cat_all = category(&all), cat_board = category(&b);
    int32_t eff = cat_all > cat_board ? cat_all : HIGH_CARD;
    if (cat_board >= ONE_PAIR && eff == TWO_PAIR) eff = ONE_PAIR;
    int32_t pair_rank = -1;
    for (int i = 0; i < 2; i++) {
        if (m->hole[i] < 0) continue;
        int32_t r = m->hole[i] / 4;
        if (all.ranks[r] >= 2) pair_rank = imax(pair_rank, r);
    }
    int32_t top_board = -1; /* 31 - clz(board mask): -1 before the flop */
    for (int r = 0; r < 13; r++)
        if (b.rank_mask & (1 << r)) top_board = r;
    int good_pair = eff == ONE_PAIR && pair_rank >= top_board;
    int flush_draw = 0;
    for (int s = 0; s < 4; s++) {
        int hole_suit = (m->hole[0] >= 0 && m->hole[0] % 4 == s) ||
                        (m->hole[1] >= 0 && m->hole[1] % 4 == s);
        if (hole_suit && all.suits[s] == 4) flush_draw = 1;
    }
    flush_draw = flush_draw && cat_all < FLUSH;
    int straight_draw = straight_outs(all.rank_mask) >= 2 && straight_outs(b.rank_mask) < 2 &&
                        cat_all < STRAIGHT;
    int early = street < RIVER;
    h->flush_draw = flush_draw && early;
    h->straight_draw = straight_draw && early;
    h->tier = eff >= TWO_PAIR ? STRONG : good_pair ? GOOD
              : (eff == ONE_PAIR || h->flush_draw || h->straight_draw) ? WEAK : NOTHING;
    h->pair = eff == ONE_PAIR;
}

static void postflop(const holdem_msg *m, const features *f, int32_t u, int *intent,
                     int32_t *target) {
    postflop_hand h;
    postflop_hand_of(m, f->street, &h);
    int32_t street = f->street, raises = f->raises;
    int32_t pot = f->pot, to_call = f->to_call, cur = f->current_bet, reach = f->reach;
    int32_t pot_after = pot + to_call;
    int fd = h.flush_draw, sd = h.straight_draw;
    int32_t tier = h.tier;

    if (tier >= GOOD && f->stack <= pot) { /* committed: all-in */
        *intent = I_RAISE;
        *target = reach;
        return;
    }
    if (to_call == 0) {
        int cbet = street == FLOP && f->we_raised_preflop && f->opponents <= 2 && u < CBET_U;
        int bluff = f->opponents == 1 && u < BLUFF_U;
        int semi = (fd || sd) && u < SEMI_BLUFF_U;
        int bet_small = tier == GOOD || (tier == WEAK && semi) || (tier == NOTHING && (cbet || bluff));
        *intent = (tier == STRONG || bet_small) ? I_RAISE : I_CALL;
        *target = tier == STRONG ? cur + ifloordiv(VALUE_BET[0] * pot, VALUE_BET[1])
                                 : cur + ifloordiv(PAIR_BET[0] * pot, PAIR_BET[1]);
        return;
    }
    const int32_t *draw_t = DRAW_PRICE[iclip(street - 1, 0, 1)];
    int32_t draw_price = (fd && sd) ? draw_t[2] : fd ? draw_t[0] : sd ? draw_t[1] : 0;
    int32_t weak_price = h.pair ? WEAK_PAIR_PRICE[iclip(street - 1, 0, 2)] : 0;
    int32_t good_price = raises <= 1 ? PAIR_PRICE[0] : PAIR_PRICE[1];
    int32_t call_t = tier == GOOD ? good_price : tier == WEAK ? imax(draw_price, weak_price) : 0;
    int price_ok = to_call * 10000 <= call_t * pot_after;
    *intent = (tier == STRONG && raises < RAISE_LIMIT) ? I_RAISE
              : (tier == STRONG || price_ok) ? I_CALL : I_FOLD;
    int32_t raise_to = cur + pot_after; /* a pot-sized raise */
    *target = 3 * raise_to >= 2 * reach ? reach : raise_to;
}

/* ---------------------------------------------------------------------------------- the menu */
/* Menu.mask_and_amounts: which entries are legal and each raise entry's raise-to. */
static void menu(const holdem_msg *m, const features *f, int mask[M_ACTIONS],
                 int32_t amounts[M_ACTIONS]) {
    holdem_menu(&m->legal, f->pot, f->current_bet, m->bets[f->seat] + m->stacks[f->seat], mask,
                amounts);
}

/* baseline.to_menu: FOLD, CHECK_CALL, or the legal raise nearest the target (ties: the lower
 * action id; CHECK_CALL if no raise is legal); a masked pick becomes CHECK_CALL. */
static int to_menu(int intent, int32_t target, const int mask[M_ACTIONS],
                   const int32_t amounts[M_ACTIONS]) {
    int action = M_CHECK_CALL;
    if (intent == I_FOLD) {
        action = M_FOLD;
    } else if (intent == I_RAISE) {
        int32_t best = INT32_MAX;
        for (int a = M_MIN_RAISE; a < M_ACTIONS; a++) {
            if (!mask[a]) continue;
            int32_t d = amounts[a] - target;
            d = d < 0 ? -d : d;
            if (d < best) best = d, action = a;
        }
    }
    return mask[action] ? action : M_CHECK_CALL;
}

static int64_t decide(const holdem_msg *m) {
    features f;
    compute_features(m, &f);
    uint32_t key[2];
    holdem_decision_key(slot_seed, m->tournament, m->hand, f.seat, m->street, m->decision, key);
    int32_t u = (int32_t)holdem_draw_below(key, 10000);
    int intent;
    int32_t target;
    if (f.street == PREFLOP) {
        int32_t cls = (m->hole[0] >= 0 && m->hole[1] >= 0) ? hand_class(m->hole[0], m->hole[1]) : 0;
        preflop(&f, u, PREFLOP_EQUITY_BP[cls], PREFLOP_TOP_BP[cls], &intent, &target);
    } else {
        postflop(m, &f, u, &intent, &target);
    }
    int mask[M_ACTIONS];
    int32_t amounts[M_ACTIONS];
    menu(m, &f, mask, amounts);
    int action = to_menu(intent, target, mask, amounts);
    holdem_reply_begin();
    if (action == M_FOLD) holdem_reply_set_action(HOLDEM_FOLD, 0);
    else if (action == M_CHECK_CALL) holdem_reply_set_action(m->legal.check ? HOLDEM_CHECK : HOLDEM_CALL, 0);
    else holdem_reply_set_action(HOLDEM_RAISE, amounts[action]);
    if (m->away) holdem_reply_sit_in(); /* never expected: the baseline answers in microseconds */
    return holdem_reply_end();
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
