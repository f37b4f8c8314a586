"""Regenerate the parts of docs/ that are derived from code: docs/sng.md (observation layout).

    python benchmarks/make_docs.py
"""

import pathlib

from holdemjax.envs import sng_obs
from holdemjax.poker.structure import LADDER, SNG_PAYOUTS

ROOT = pathlib.Path(__file__).resolve().parents[1]

HEAD = """# Tournament envs: `sng-6`, `sng-6-turbo`, `certify`, `ring-9`

One tournament (or chip-count game) is one pgx-style episode. All hands run on the one rules
engine, `holdemjax/poker/table.py`, and every tournament rule on the tournament engine,
`holdemjax/poker/tournament.py` (see docs/rules.md). The env, `holdemjax.envs.sng`, is the RL
adapter on top: observation, action menu, legal mask, player to act, rewards.

## Formats

| id | seats | chips | blinds | rise every | hand cap | score |
|---|---|---|---|---|---|---|
| `sng-6` | 6 | 1,000 | ladder from 10/20 | 4 hands | 60 | places |
| `sng-6-turbo` | 6 | 1,500 | ladder from 10/20 | 6 hands | 72 | places |
| `certify` | 6 | 200 | ladder from 10/20 | 1 hand | 8 | places |
| `ring-9` | 9 | 1,500 | 15/30 fixed | never | 50 | chips at the end / chips in play |

Ladder (small blind / big blind / big-blind ante), the last level repeats: {ladder}.

Payouts by place: {payouts}.

## Reading the tournament

The state keeps the tournament as one private field; read it with `env.tournament(state)`, a
`holdemjax.poker.tournament.Tournament` whose fields are public (shapes and dtypes in its
source): `table` (the current hand's `Table`: stacks, bets, cards, button and blinds, ...),
`hand`, `player_at[seat]`, `seat_of[player]`, `alive`, `place`, `score`, `street_chips`,
`street_raises`, `decisions`, `format`. `env.decision(state)` is the view of the decision
waiting (`tournament.Decision`: table, legal, hand, alive, counters), what the reference bots
and the series' `act` message read. Raw chips: `env.tournament(state).table.stacks`.

## Flow and scoring

- `init`: player ids are seated at random (`player_at[seat]`, `seat_of[player]`); hand 0
  is dealt with the button on seat N−1. Hand h deals from `hand_deck(fold_in(key, h))`.
- `step` applies one decision and then everything that needs none: streets, run-outs,
  showdowns, eliminations, the dead-button move, the next level's blinds, the next hand. It
  returns at a decision of a live player or at the end.
- Places: busting earlier places lower; several busting in one hand are ordered by stacks at
  the start of that hand (larger places higher); equal stacks share the payouts of the places
  they span (`place` holds the best place of the span). The last player left is 1st. At the
  hand cap the players still in settle by Malmuth-Harville ICM over the open places
  (`place` stays 0 for them; `tournament.final_places` ranks them by chips).
- Rewards: zero until the terminal step, then each player's score (sum 1). Option
  `zero_sum=True` subtracts 1/num_players. ring-9: score = chips / chips in play.
- Illegal action (masked): the episode ends, actor −1, each other player +1/(n−1) (pgx rule).
- At the terminal state `current_player` is the player who made the last decision.
- Exact amounts (the series host, duplicate tools): `env.act_exact(state, kind, amount)` then
  `env.advance(state)` equals `env.step` of the matching menu action; `env.stop(state)` ends
  the game at the start of the current hand (the wall-time cut: ICM, as at the hand cap).

## Chance, made explicit (`step_deterministic`, `chance_outcomes`, `chance_step`)

Every card of a hand is drawn at its deal from the tournament's key (`cards.hand_deck`) and
stays hidden until shown, so `step` takes no key. For planners the env splits a step as
`holdemjax.api` describes, at the chance event the players see:

- the outcome (`num_chance_outcomes` = 52, a card id) is the **first board card the step shows
  in the hand being played**: the flop's first card, the turn, the river, or the first card of
  an all-in run-out (a step may show several; the others follow from the deck);
- `chance_outcomes`: uniform over the cards no seat position holds (every seat's two, dealt in
  or not: by the fixed indices they are never on the board) and not shown yet
  (`holdemjax.poker.cards.unseen`, the one statement of the rule, also used by
  `holdemjax.luck`); a step that shows no board card (a bet, a call or fold inside a round, a
  hand ended by folds, the showdown of a river, the next hand's deal) has outcome 0 with
  probability 1;
- `step_deterministic` returns the state before the step with the action recorded (its
  observation, player to act and mask are still the decision's, its step count and rewards
  those of the step under way; an illegal action's end is already there);
- `chance_step` puts the outcome card at that board position (`cards.put_on_board`: swapped
  with the later board position that held it, else in place of the card there, which keeps the
  rest of the hidden board a uniform draw) and plays the step on that board: the run-out, the
  showdown and payout, busts and places, the hands dealt after it, the rewards if the game
  ends.

With the card the deck holds at that position `chance_step` gives the step itself, leaf by
leaf; over hidden decks that card is drawn with exactly the `chance_outcomes` probabilities
(tests/envs/test_sng_invariants.py: every kind of step, every outcome of a run-out, a
chi-square over fresh decks; tests/test_chance.py: the uniformity of `put_on_board` by
enumeration, games through the split under jit/vmap/scan). Not split: the hole cards of a
hand a step deals, and the board cards after the first one a step shows (both come from the
hidden deck, as `step` deals them).

## Actions (default menu, option `raise_sizes`)

| id | name | meaning |
|---|---|---|
| 0 | `FOLD` | fold (masked when checking is free) |
| 1 | `CHECK_CALL` | check, or call (all-in when short) |
| 2 | `MIN_RAISE` | bet the big blind / raise by the last full raise |
| 3..7 | `RAISE_x_POT` | raise to current bet + floor(x × (pot + call)), x = 0.5, 0.75, 1, 1.5, 2 |
| 8 | `ALL_IN` | all-in |

A raise entry is masked when raising is closed, when it is below the minimum raise-to, when it
reaches the all-in amount (ALL_IN covers it) or duplicates an earlier entry. See
`holdemjax/poker/actions.py`.

## Observation

float32, from the observer's seat; seat blocks are rotated so index 0 is the observer and
index i the i-th seat clockwise. Chips are in big blinds of the current level.
"""


def render() -> str:
    ladder = ", ".join(f"{s}/{b}" + (f" a{a}" if a else "") for s, b, a in LADDER)
    out = [HEAD.format(ladder=ladder, payouts=", ".join(f"{p:g}" for p in SNG_PAYOUTS))]
    for n, what in ((6, "sng-6, sng-6-turbo, certify"), (9, "ring-9")):
        lay = sng_obs.layout(n)
        out += [f"## {n} seats ({what}): size {lay.size}", "",
                "| block | indices | content |", "|---|---|---|"]
        out += [f"| `{name}` | {lay[name].start}..{lay[name].stop - 1} | {desc} |"
                for name, _, desc in sng_obs.BLOCKS]
        out.append("")
    out += ["Regenerate this file with `python benchmarks/make_docs.py`; a test checks it "
            "against", "`holdemjax/envs/sng_obs.py`."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    (ROOT / "docs" / "sng.md").write_text(render())
