"""PokerKit as an oracle for holdemjax's rules engine (holdemjax/poker/table.py).

Random hands are played in our engine (batched: one jitted ``vmap`` of ``act`` per seat count),
with random legal actions biased toward raises and all-ins; every decision is recorded with what
``legal`` offered. Each hand is then replayed in PokerKit 0.7.7 (``NoLimitTexasHoldem``,
``Mode.TOURNAMENT``, the same hole cards and board, the same actions) and compared at every
decision: who acts, can fold / can check, call amount, can raise, min and max raise-to; and at the
end every final stack.

Where PokerKit differs from our rules by design (docs/rules.md, "Differences from PokerKit"):

1. **Ante order.** PokerKit posts antes before blinds; TDA's big-blind ante posts the blind
   first. Emulated: PokerKit is given, as the big blind's ante, exactly the ante our engine took
   (``min(ante, stack - big_blind)``), so both post the full blind and the same ante.
2. **Short big blind.** PokerKit lets callers match a big blind all-in for less than the blind
   (call = the largest posted amount); we make callers match the full big blind. Hands whose big
   blind cannot post the full blind are not compared (counted as ``skipped_short_bb``).
3. **Sub-minimum all-in raises that PokerKit counts as full.** PokerKit measures a "full" raise
   against the largest raise so far on the street, starting from 0 (the blinds do not count), so
   an all-in raise of less than a big blind (pre-flop before any raise, or an opening all-in bet
   below the big blind) reopens the betting there; under TDA Rules 43/47 a full raise is at least
   the big blind. After such an action (PokerKit's raise size ends up between 0 and the big blind)
   the hand is "relaxed": where PokerKit allows a raise and we do not, that is counted as
   ``relaxed_reopen`` and not as a mismatch; everything else is still compared.
4. **Pointless checks.** PokerKit sometimes asks a seat to act when its only legal action is to
   check (everyone else went all-in for no more than its bet). Our engine skips such seats;
   the replay checks for PokerKit (counted as ``pk_forced_checks``).
5. **Fold when checking is free.** Our engine allows it; PokerKit's tournament mode does not.
   The random policy here never folds when it could check (it is tested in test_table.py).
6. **Dead small blind.** PokerKit has no dead blind; it is emulated by giving PokerKit one blind
   (the big blind) at index 0, the first seat after the (possibly dead) button.
7. **Merged pots at showdown.** PokerKit kills the losing hands before it builds the pots, so
   side pots whose remaining contenders coincide are merged and split once; TDA Rule 21 splits
   each side pot separately, which can move an odd chip. The replay takes PokerKit's pots as they
   stand when the showdown begins (before hand killing), splits each one with PokerKit's hand
   ranking and the odd chip to the first winner left of the button, and compares our stacks with
   that; hands where this changed PokerKit's own result are counted as ``pk_merged_pots``.

Run ``python benchmarks/pokerkit_oracle.py --hands 100000`` for the big check (the CI test runs
a few thousand through ``run_oracle``).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import table as T
from holdemjax.poker.cards import card_text

# Blind pairs (small, big): the sng ladder plus a few odd ones.
BLINDS = ((1, 2), (5, 10), (10, 20), (15, 30), (25, 50), (40, 80), (60, 120), (100, 200), (7, 20))

# ----------------------------------------------------------------------------------------------
# Hand generation (host side, numpy)
# ----------------------------------------------------------------------------------------------


def _first_after(mask: np.ndarray, seat: int) -> int:
    n = len(mask)
    for k in range(1, n + 1):
        s = (seat + k) % n
        if mask[s]:
            return s
    return -1


def random_hands(rng: np.random.Generator, num_seats: int, count: int) -> dict[str, np.ndarray]:
    """``count`` random hands for ``num_seats`` seats: who is in, stacks (very short to deep),
    blinds, sometimes a big-blind ante, positions (fresh, or after eliminations so that dead
    buttons and dead small blinds occur) and a shuffled deck."""
    n = num_seats
    out = {k: [] for k in ("stacks", "in_hand", "prev_alive", "prev_button", "fresh", "small_blind",
                           "big_blind", "ante", "deck")}
    for _ in range(count):
        k = int(rng.choice(np.arange(2, n + 1))) if n > 2 else 2
        in_hand = np.zeros(n, bool)
        in_hand[rng.choice(n, size=k, replace=False)] = True
        sbl, bbl = BLINDS[rng.integers(len(BLINDS))]
        kind = rng.random(n)
        stacks = np.where(
            kind < 0.3,
            rng.integers(1, 3 * bbl + 1, size=n),  # 0-3 big blinds, some below one
            np.where(kind < 0.65, rng.integers(3 * bbl, 40 * bbl, size=n),
                     rng.integers(40 * bbl, 300 * bbl, size=n)),
        )
        stacks = np.where(in_hand, stacks, 0).astype(np.int32)
        fresh = rng.random() < 0.5 or k == n
        prev_alive = in_hand.copy()
        if not fresh:  # some seats busted on the previous hand
            empty = np.flatnonzero(~in_hand)
            gone = rng.choice(empty, size=rng.integers(1, min(3, len(empty)) + 1), replace=False)
            prev_alive[gone] = True
        out["stacks"].append(stacks)
        out["in_hand"].append(in_hand)
        out["prev_alive"].append(prev_alive)
        out["prev_button"].append(int(rng.integers(n)))
        out["fresh"].append(fresh)
        out["small_blind"].append(sbl)
        out["big_blind"].append(bbl)
        out["ante"].append(bbl if rng.random() < 0.4 else 0)
        out["deck"].append(rng.permutation(52).astype(np.int32))
    hands = {k: np.asarray(v) for k, v in out.items()}
    # Positions: first_positions on the previous alive set, then (if seats busted) next_positions.
    fp = jax.jit(jax.vmap(T.first_positions))
    np_ = jax.jit(jax.vmap(T.next_positions))
    b0, s0, bb0, _ = fp(hands["prev_alive"], hands["prev_button"])
    b1, s1, bb1, p1 = np_(hands["in_hand"], b0, s0, bb0)
    b2, s2, bb2, p2 = fp(hands["in_hand"], hands["prev_button"])
    fresh = hands["fresh"]
    hands["button"] = np.where(fresh, b2, b1).astype(np.int32)
    hands["sb"] = np.where(fresh, s2, s1).astype(np.int32)
    hands["bb"] = np.where(fresh, bb2, bb1).astype(np.int32)
    hands["sb_posts"] = np.where(fresh, p2, p1).astype(bool)
    return hands


# ----------------------------------------------------------------------------------------------
# Our engine: batched random play with recorded decisions
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Decision:
    seat: int
    can_fold: bool
    can_check: bool
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    kind: int
    amount: int  # raise-to for RAISE


@dataclasses.dataclass
class PlayedHand:
    stacks: list[int]
    in_hand: list[bool]
    button: int
    sb: int
    bb: int
    sb_posts: bool
    small_blind: int
    big_blind: int
    ante: int
    hole: list[list[int]]
    board: list[int]
    decisions: list[Decision]
    final_stacks: list[int]


_START = jax.jit(jax.vmap(T.start_hand))


@jax.jit
def _step(tables, kinds, amounts):
    tables = jax.vmap(T.act)(tables, kinds, amounts)
    return tables, jax.vmap(T.legal)(tables)


_LEGAL = jax.jit(jax.vmap(T.legal))


def choose_actions(rng: np.random.Generator, lg: dict[str, np.ndarray]):
    """Random legal actions, biased toward raises and all-ins; never a fold when checking is
    free (PokerKit's tournament mode forbids it)."""
    b = lg["can_raise"].shape[0]
    u = rng.random(b)
    raise_ = lg["can_raise"] & (u < 0.4)
    fold = ~raise_ & ~lg["can_check"] & (u > 0.7)
    kind = np.where(raise_, T.RAISE, np.where(fold, T.FOLD, T.CHECK_CALL))
    lo, hi = lg["min_raise_to"].astype(np.int64), lg["max_raise_to"].astype(np.int64)
    v = rng.random(b)
    between = lo + np.floor(rng.random(b) * (hi - lo + 1)).astype(np.int64)
    amount = np.where(v < 0.35, lo, np.where(v < 0.6, hi, np.minimum(between, hi)))
    return kind.astype(np.int32), np.where(raise_, amount, 0).astype(np.int32)


def play_engine(hands: dict[str, np.ndarray], rng: np.random.Generator, max_steps: int = 400):
    """Play every hand of one seat count to the end in our engine; return ``PlayedHand``s.
    Asserts chip conservation at every step."""
    args = [hands[k] for k in ("stacks", "in_hand", "button", "sb", "bb", "sb_posts",
                               "small_blind", "big_blind", "ante", "deck")]
    tables = _START(*[jnp.asarray(a) for a in args])
    lg = _LEGAL(tables)
    total0 = np.asarray(T.total_chips(tables))
    b = total0.shape[0]
    decisions: list[list[Decision]] = [[] for _ in range(b)]
    hole, board = np.asarray(tables.hole), np.asarray(tables.board)
    for _ in range(max_steps):
        over = np.asarray(tables.hand_over)
        if over.all():
            break
        lgn = {k: np.asarray(v) for k, v in dataclasses.asdict(lg).items()}
        to_act = np.asarray(tables.to_act)
        kinds, amounts = choose_actions(rng, lgn)
        for i in np.flatnonzero(~over):
            decisions[i].append(Decision(
                int(to_act[i]), bool(lgn["can_fold"][i]), bool(lgn["can_check"][i]),
                int(lgn["call_amount"][i]), bool(lgn["can_raise"][i]),
                int(lgn["min_raise_to"][i]), int(lgn["max_raise_to"][i]),
                int(kinds[i]), int(amounts[i])))
        tables, lg = _step(tables, jnp.asarray(kinds), jnp.asarray(amounts))
        total = np.asarray(T.total_chips(tables))
        assert (total == total0).all(), "chips not conserved"
    else:
        raise AssertionError("hands did not finish")
    final = np.asarray(tables.stacks)
    played = []
    for i in range(b):
        played.append(PlayedHand(
            hands["stacks"][i].tolist(), hands["in_hand"][i].tolist(), int(hands["button"][i]),
            int(hands["sb"][i]), int(hands["bb"][i]), bool(hands["sb_posts"][i]),
            int(hands["small_blind"][i]), int(hands["big_blind"][i]), int(hands["ante"][i]),
            hole[i].tolist(), board[i].tolist(), decisions[i], final[i].tolist()))
    return played


# ----------------------------------------------------------------------------------------------
# PokerKit replay
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Replay:
    mismatches: list[str]
    skipped: str | None = None  # reason the hand was not compared
    pk_forced_checks: int = 0
    relaxed_reopen: int = 0
    pk_merged_pots: int = 0
    decisions: int = 0


def _cards(ids) -> str:
    return "".join(card_text(c) for c in ids)


def _split_each_pot(state) -> list[int]:
    """TDA Rules 20/21 on PokerKit's pots as they stand when the showdown begins: each pot split
    among its best eligible hands, the odd chips to the first of them in PokerKit's index order
    (the first seat left of the button)."""
    hands = list(state.get_up_hands(0, 0))
    payout = [0] * state.player_count
    for pot in state.pots:
        eligible = [i for i in pot.player_indices if hands[i] is not None]
        best = max(hands[i] for i in eligible)
        winners = [i for i in eligible if hands[i] == best]
        share, odd = divmod(pot.amount, len(winners))
        for i in winners:
            payout[i] += share
        payout[winners[0]] += odd
    return payout


def replay_pokerkit(h: PlayedHand) -> Replay:
    """Replay one of our hands in PokerKit and compare every decision and the final stacks."""
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    n = len(h.stacks)
    seats = [s for s in range(n) if h.in_hand[s] and h.stacks[s] > 0]
    order = sorted(seats, key=lambda s: (s - h.button - 1) % n)  # PokerKit index -> our seat
    k = len(order)
    bb_stack = h.stacks[h.bb]
    if bb_stack < h.big_blind:
        return Replay([], skipped="short_bb")
    ante = min(h.ante, bb_stack - h.big_blind)  # what our engine took: blind first, then ante
    dead_sb = not (h.sb_posts and h.in_hand[h.sb])
    if k == 2:
        if dead_sb or order != [h.bb, h.sb]:
            return Replay([], skipped="layout")
        blinds, antes = (h.small_blind, h.big_blind), {1: ante}  # PokerKit reverses heads-up
    elif dead_sb:
        if order[0] != h.bb:
            return Replay([], skipped="layout")
        blinds, antes = (h.big_blind,), {0: ante}
    else:
        if order[0] != h.sb or order[1] != h.bb:
            return Replay([], skipped="layout")
        blinds, antes = (h.small_blind, h.big_blind), {1: ante}

    a = Automation
    state = NoLimitTexasHoldem.create_state(
        (a.ANTE_POSTING, a.BET_COLLECTION, a.BLIND_OR_STRADDLE_POSTING,
         a.HOLE_CARDS_SHOWING_OR_MUCKING, a.CHIPS_PUSHING, a.CHIPS_PULLING,
         a.RUNOUT_COUNT_SELECTION),
        False,  # antes are dead money in the main pot
        antes,
        blinds,
        h.big_blind,
        tuple(h.stacks[s] for s in order),
        k,
        mode=Mode.TOURNAMENT,
    )
    for s in order:
        state.deal_hole(_cards(h.hole[s]))
    rep = Replay([])
    dealt = 0
    relaxed = False
    tda_payout = None  # per-pot split of the pots as they stand at showdown
    i = 0
    while state.status:
        if state.can_kill_hand():
            if tda_payout is None:
                tda_payout = _split_each_pot(state)
            state.kill_hand()
            continue
        if state.can_burn_card():
            state.burn_card("??")
            continue
        if state.can_deal_board():
            take = 3 if dealt == 0 else 1
            state.deal_board(_cards(h.board[dealt:dealt + take]))
            dealt += take
            continue
        actor = state.actor_index
        if actor is None:
            rep.mismatches.append(f"PokerKit stuck (no actor) at decision {i}")
            return rep
        pk_call = state.checking_or_calling_amount
        pk_raise = state.can_complete_bet_or_raise_to()
        ours = h.decisions[i] if i < len(h.decisions) else None
        if ours is None or ours.seat != order[actor]:
            if pk_call == 0 and not pk_raise:  # a check-only decision our engine skips
                state.check_or_call()
                rep.pk_forced_checks += 1
                continue
            who = None if ours is None else ours.seat
            rep.mismatches.append(f"decision {i}: PokerKit seat {order[actor]} acts, ours {who}")
            return rep
        where = f"decision {i} (seat {ours.seat})"
        pk = dict(can_fold=state.can_fold(), can_check=pk_call == 0, call_amount=pk_call)
        mine = dict(can_fold=not ours.can_check, can_check=ours.can_check,
                    call_amount=ours.call_amount)
        for key in pk:
            if pk[key] != mine[key]:
                rep.mismatches.append(f"{where}: {key} PokerKit {pk[key]} ours {mine[key]}")
        if pk_raise != ours.can_raise:
            if relaxed and pk_raise and not ours.can_raise:
                rep.relaxed_reopen += 1
            else:
                rep.mismatches.append(f"{where}: can_raise PokerKit {pk_raise} ours {ours.can_raise}")
        elif pk_raise:
            lo = state.min_completion_betting_or_raising_to_amount
            hi = state.max_completion_betting_or_raising_to_amount
            if (lo, hi) != (ours.min_raise_to, ours.max_raise_to):
                rep.mismatches.append(f"{where}: raise-to range PokerKit {lo}..{hi} ours "
                                      f"{ours.min_raise_to}..{ours.max_raise_to}")
        if rep.mismatches:
            return rep
        if ours.kind == T.FOLD:
            state.fold()
        elif ours.kind == T.CHECK_CALL:
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(ours.amount)
            if 0 < state.completion_betting_or_raising_amount < h.big_blind:
                relaxed = True
        i += 1
        rep.decisions += 1
    if i != len(h.decisions):
        rep.mismatches.append(f"PokerKit ended after {i} decisions, ours took {len(h.decisions)}")
    final = {s: h.final_stacks[s] for s in order}
    pk_final = {s: state.stacks[j] for j, s in enumerate(order)}
    if tda_payout is not None:
        pushed = [0] * k
        for op in state.operations:
            if type(op).__name__ == "ChipsPushing":
                pushed = [x + y for x, y in zip(pushed, op.amounts)]
        tda_final = {s: pk_final[s] - pushed[j] + tda_payout[j] for j, s in enumerate(order)}
        if tda_final != pk_final:
            rep.pk_merged_pots += 1  # PokerKit split merged pots: odd chips land elsewhere
        pk_final = tda_final
    if final != pk_final:
        rep.mismatches.append(f"final stacks PokerKit {pk_final} ours {final}")
    return rep


def _memoize_pokerkit_hands() -> None:
    """Cache PokerKit's own hand ranking (``Lookup.get_entry`` and ``from_game``): the same
    results, several times faster, since a showdown compares the same hands again and again."""
    from pokerkit import StandardHighHand
    from pokerkit.lookups import Lookup

    if getattr(Lookup, "_oracle_memo", False):
        return
    get_entry, from_game = Lookup.get_entry, StandardHighHand.from_game.__func__
    entries: dict = {}
    games: dict = {}

    def cached_entry(self, cards):
        cards = tuple(cards)
        key = (type(self), cards)
        if key not in entries:
            entries[key] = get_entry(self, cards)
        return entries[key]

    def cached_game(cls, hole_cards, board_cards=()):
        hole = tuple(hole_cards) if not isinstance(hole_cards, str) else hole_cards
        board = tuple(board_cards) if not isinstance(board_cards, str) else board_cards
        key = (cls, hole, board)
        if key not in games:
            games[key] = from_game(cls, hole, board)
        return games[key]

    Lookup.get_entry = cached_entry
    StandardHighHand.from_game = classmethod(cached_game)
    Lookup._oracle_memo = True


def _replay_many(hands: list[PlayedHand]) -> list[Replay]:
    import warnings

    warnings.filterwarnings("ignore")  # PokerKit warns when dealt cards repeat its own deck
    _memoize_pokerkit_hands()
    return [replay_pokerkit(h) for h in hands]


@dataclasses.dataclass
class OracleResult:
    hands: int
    compared: int
    decisions: int
    mismatched_hands: int
    counts: Counter
    examples: list[str]


def run_oracle(num_hands: int, seed: int = 0, seat_counts=(2, 3, 6, 9), batch: int = 1024,
               workers: int = 1, progress=None) -> OracleResult:
    """Play ``num_hands`` random hands split over ``seat_counts`` and replay them in PokerKit."""
    rng = np.random.default_rng(seed)
    counts: Counter = Counter()
    examples: list[str] = []
    done = compared = decisions = bad = 0
    per = [num_hands // len(seat_counts)] * len(seat_counts)
    per[-1] += num_hands - sum(per)
    # spawn, not fork: the parent runs JAX's threads, and the workers only need PokerKit.
    pool = (ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
            if workers > 1 else None)
    try:
        for n, total in zip(seat_counts, per):
            left = total
            while left > 0:
                size = min(batch, left)
                played = play_engine(random_hands(rng, n, size), rng)
                if pool is None:
                    reps = _replay_many(played)
                else:
                    chunks = [played[j::workers] for j in range(workers)]
                    parts = list(pool.map(_replay_many, chunks))
                    reps = [r for part in parts for r in part]
                for h, r in zip(played, reps):
                    if r.skipped:
                        counts["skipped_" + r.skipped] += 1
                        continue
                    compared += 1
                    decisions += r.decisions
                    counts["pk_forced_checks"] += r.pk_forced_checks
                    counts["relaxed_reopen"] += r.relaxed_reopen
                    counts["pk_merged_pots"] += r.pk_merged_pots
                    if r.mismatches:
                        bad += 1
                        if len(examples) < 10:
                            examples.append(f"{r.mismatches[0]} | {h}")
                done += size
                left -= size
                if progress is not None:
                    progress(size)
    finally:
        if pool is not None:
            pool.shutdown()
    return OracleResult(done, compared, decisions, bad, counts, examples)


def main(argv=None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    console = Console()
    start = time.perf_counter()
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("hands", total=args.hands)

        def advance(k: int) -> None:
            bar.advance(task, k)
            if not console.is_terminal:  # a log file: one plain line per batch
                done = int(bar.tasks[0].completed)
                print(f"{done}/{args.hands} hands, {time.perf_counter() - start:.0f} s", flush=True)

        res = run_oracle(args.hands, args.seed, batch=args.batch, workers=args.workers,
                         progress=advance)
    secs = time.perf_counter() - start
    console.print(f"hands played: {res.hands}, compared with PokerKit: {res.compared}, "
                  f"decisions compared: {res.decisions}, time {secs:.0f} s")
    for key, value in sorted(res.counts.items()):
        console.print(f"  {key}: {value}")
    style = "green" if res.mismatched_hands == 0 else "red"
    console.print(f"[{style}]mismatched hands: {res.mismatched_hands}[/{style}]")
    for line in res.examples:
        console.print(line, markup=False)
    return 0 if res.mismatched_hands == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
