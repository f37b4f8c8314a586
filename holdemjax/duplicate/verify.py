"""Verify a closed match from its revealed seed (``holdemjax duplicate verify``).

* the revealed seed and salt hash to the commitment (the stored one, and the one published at
  creation when given);
* every stored hand of every line holds the hole cards and board of the deck recomputed from
  the seed;
* every stored hand replays through the engine: each reference-bot decision is decided again
  from the seed's bot keys (and a reference line's hero too: it is a tier), each participant
  decision is applied as stored, and the replayed actions and chips equal the stored ones;
* the versions the match was created under equal this process's (`spec.versions`); a replay
  under other versions is not a check of the match.

`kept` is the service's verify (anyone may ask for it): computed once per closed match and
kept in the store, computed again only when something it read changed (`store.Store.kept_verify`:
a closed match's record and its participants' lines never change, but its reference lines may
still be written after close, and the file may be edited) or under other versions.
"""

from __future__ import annotations

import json
import threading

from holdemjax.duplicate import match, spec
from holdemjax.host.loop import Waiting, next_step, play_hand
from holdemjax.poker.cards import BOARD_OFFSET, BOARD_SIZE, card_text

__all__ = ["verify", "replay_hand", "kept"]

_GUARD = threading.Lock()
_COMPUTING: dict[tuple[str, str], threading.Lock] = {}  # (store file, match): one at a time


def replay_hand(spec, seed: int, record: dict, hero_tier: str | None = None) -> str | None:
    """Replay one stored hand; None when it reproduces, else what differs. ``hero_tier``: the
    hero seat is that tier (a reference line) and is decided again too."""
    hand = match.Hand(spec, seed, record["hand"])
    actions = record["actions"]
    tiers = {s: hero_tier if s == spec.hero else spec.tier_at(s) for s in range(spec.seats)}
    players = {s: _bot(tier, match.bot_key(seed, s)) for s, tier in tiers.items()
               if tier is not None}
    turns = play_hand(hand, players)  # a participant's hero waits for its stored actions
    for i, stored in enumerate(actions):
        step = next_step(turns)
        if step is None:
            return f"the hand is over after {i} of {len(actions)} stored actions"
        if isinstance(step, Waiting):
            try:
                hand.check_replayed(stored, next_step(turns, hand.stored_action(stored)).played)
            except match.MatchError as exc:
                return str(exc)
            continue
        got = step.played
        if got[:5] != [int(x) for x in stored[:5]]:
            return (f"action {i}: seat {step.seat} ({tiers[step.seat]}) decides {got[:5]} from "
                    f"the seed, the stored line has {list(stored[:5])}")
    if not hand.over:
        return f"the stored actions end before the hand does ({len(actions)} actions)"
    net = hand.record()["net"]
    if net != record["net"]:
        return f"replayed chips {net} differ from the stored {record['net']}"
    return None


def _bot(tier: str, key):
    """The loop's player of a reference seat: ``tier`` decided again from the seed's key."""
    def player(hand):
        return (*match.bot_decide(tier, hand.view(), key), None)

    return player


def verify(m, lines: dict, commitment: str | None = None) -> dict:
    """The checks above on closed match record ``m`` and its ``lines`` (`store.Line` by name).
    Returns ``{"ok", "problems", "hands_checked", "hands_replayed", "decks", ...}``."""
    recomputed = match.commitment(m.seed, m.salt)
    problems = []
    for label, published in (("stored", m.commitment), ("given", commitment)):
        if published is not None and published.strip().lower() != recomputed:
            problems.append(f"the {label} commitment {published} is not SHA-256 of "
                            f"'{m.salt}:{m.seed}' = {recomputed}")
    now = match.versions()
    if m.versions and m.versions != now:
        differ = sorted(k for k in set(now) | set(m.versions) if now.get(k) != m.versions.get(k))
        problems.append(f"created under other versions of {', '.join(differ)}: the replay "
                        "below is of this process's bots and engine")
    n, decks, checked, replayed = m.spec.seats, {}, 0, 0
    for line in lines.values():
        hero_tier = line.name.split(":", 1)[1] if line.reference else None
        for h, rec in sorted(line.hands.items()):
            if h not in decks:
                d = [card_text(int(c)) for c in match.deck(m.seed, h)]
                decks[h] = ([d[2 * s:2 * s + 2] for s in range(n)],
                            d[BOARD_OFFSET:BOARD_OFFSET + BOARD_SIZE])
            hole, board = decks[h]
            checked += 1
            if rec["hole"] != hole or rec["board"] != board:
                problems.append(f"{line.name} hand {h + 1}: stored cards {rec['hole']} "
                                f"{rec['board']} differ from the deck of the seed: {hole} "
                                f"{board}")
                continue
            why = replay_hand(m.spec, m.seed, rec, hero_tier)
            if why is not None:
                problems.append(f"{line.name} hand {h + 1} does not replay: {why}")
            replayed += 1
    return {"match": m.id, "seed": m.seed, "salt": m.salt, "commitment": m.commitment,
            "recomputed": recomputed, "versions": m.versions, "hands_checked": checked,
            "hands_replayed": replayed, "decks": len(decks), "problems": problems,
            "ok": not problems}


def kept(store, match_id: str) -> dict:
    """`verify` of closed match ``match_id`` as the store keeps it (`store.Sealed` while open):
    computed here when nothing is kept for this process's versions, one computation per match
    at a time (a second caller waits for the first and reads what it kept); a result whose
    inputs changed while it was computed is returned but not kept."""
    with _GUARD:
        lock = _COMPUTING.setdefault((store.path, match_id), threading.Lock())
    with lock:
        versions = json.dumps(spec.versions(), sort_keys=True)
        stamp, result = store.kept_verify(match_id, versions)  # before the reads below
        if result is None:
            result = store.verify(match_id)
            store.keep_verify(match_id, stamp, versions, result)
        return result
