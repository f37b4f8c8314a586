"""Replay files: every tournament of a series (seating, every hole card, every action with its
amounts and clock, every chat line, showdowns, places), their byte-for-byte verification and
PHH export. `holdemjax.series.output` writes them with the self-contained HTML viewer
(`holdemjax.series.viewer`).

Schema ``holdemjax.series.replay/1`` (docs/series.md). The file is canonical JSON (sorted keys,
no whitespace), so two runs of the same series write identical bytes: ``holdemjax replay FILE``
re-runs the series from the recorded seed, options (planned tournaments, clock, research-mode
block) and policy files, stops it where the original was stopped (the cut tournament is
compared too), stops a policy's call where the machine-time guard stopped it (a tournament's
``guard_trips``: slot, the slot's call index in the tournament, the fuel it had used) and
compares every byte.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

from holdemjax.series import protocol

__all__ = ["SCHEMA", "replay_document", "encode_replay", "load", "verify", "rerun_options",
           "to_phh", "VIEWER_NAME", "REPLAY_NAME"]

SCHEMA = "holdemjax.series.replay/1"
REPLAY_NAME = "replay.json"
VIEWER_NAME = "viewer.html"


def replay_document(series, results: dict) -> dict:
    """The replay of a `runner.Series` (``results``: its `results.summarize` document)."""
    return {
        "schema": SCHEMA,
        "variant": series.variant,
        "seed": series.seed,
        "protocol": protocol.PROTOCOL_VERSION,
        "versions": results["versions"],
        "slots": [{"slot": s["slot"], "alias": s["alias"], "avatar": s["avatar"],
                   "policy": s["policy"], "sha256": s["sha256"]} for s in results["slots"]],
        "options": dict(series.options),
        "tournaments_played": series.tournaments_played,
        "stopped_early": series.stopped_early,
        "tournaments": series.tournaments,
    }


def encode_replay(doc: dict) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def load(path) -> dict:
    """Read a replay file, checking its schema; a ValueError names the file."""
    try:
        doc = json.loads(pathlib.Path(path).read_bytes())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not a holdemjax replay (schema {SCHEMA!r} expected, got "
                         f"{doc.get('schema') if isinstance(doc, dict) else type(doc).__name__!r})")
    return doc


def _sha256(path) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def rerun_options(doc: dict) -> dict:
    """The `runner.run_series` keyword arguments that replay ``doc``'s series: its recorded
    options (``luck`` among them when the series ran with it), ``cut`` where the wall-time
    limit stopped it (after the cut tournament's recorded hands, or before the next
    tournament when it stopped between two), and the
    machine-time guard's trips (``guard_trips`` of each tournament: PROTOCOL §3). A file written
    before options were recorded replays with the variant's clock and its played count."""
    options = doc.get("options") or {"tournaments": doc["tournaments_played"]}
    kwargs = {"variant": doc["variant"], "seed": doc["seed"], "max_wall": None,
              "tournaments": options["tournaments"], "shot_ns": options.get("shot_ns"),
              "bank_ns": options.get("bank_ns"), "block": options.get("block"),
              "luck": bool(options.get("luck", False)),
              "guard_trips": [{"tournament": t["tournament"], **trip}
                              for t in doc["tournaments"] for trip in t.get("guard_trips", ())]}
    if doc["stopped_early"]:
        tours = doc["tournaments"]
        if tours and tours[-1]["stopped_early"]:
            kwargs["cut"] = (tours[-1]["tournament"], len(tours[-1]["hands"]))
        else:
            kwargs["cut"] = (len(tours), 0)
    return kwargs


def verify(path, policy_paths: list | None = None, *, loader=None) -> tuple[bool, str]:
    """Re-run the series of a replay file with its recorded options (`rerun_options`) and
    compare byte for byte, the cut tournament of a stopped series included.

    ``policy_paths`` replaces the recorded policy paths (same order); every file must have the
    recorded SHA-256. ``loader(path)`` loads one policy file (default: `wasm.load_policy`;
    `holdemjax play`'s replays also hold the person's recorded answers). Returns (identical, a
    one-line report).
    """
    from holdemjax.series import results as series_results
    from holdemjax.series import runner
    from holdemjax.series.wasm import load_policy

    path = pathlib.Path(path)
    original = path.read_bytes()
    doc = load(path)
    recorded = [s["policy"] for s in doc["slots"]]
    paths = list(policy_paths) if policy_paths else recorded
    if len(paths) != len(recorded):
        raise ValueError(f"the replay has {len(recorded)} slots, got {len(paths)} policy files")
    for slot, (p, s) in enumerate(zip(paths, doc["slots"])):
        if not pathlib.Path(p).is_file():
            raise ValueError(f"slot {slot}: policy file {p} not found (pass the files in order)")
        if _sha256(p) != s["sha256"]:
            raise ValueError(f"slot {slot}: {p} has SHA-256 {_sha256(p)}, the replay recorded "
                             f"{s['sha256']}")
    policies = [(loader or load_policy)(p) for p in paths]
    try:
        series = runner.run_series(policies, **rerun_options(doc))
    finally:
        for p in policies:
            p.close()
    again = replay_document(series, series_results.summarize(series))
    for s, p in zip(again["slots"], recorded):  # the recorded paths, not the local ones
        s["policy"] = p
    if "options" not in doc:  # written before options were recorded
        again.pop("options")
    rebuilt = encode_replay(again)
    if rebuilt == original:
        return True, f"identical: {len(original):,} bytes, {doc['tournaments_played']} tournaments"
    a, b = json.loads(original), json.loads(rebuilt)
    for t, (x, y) in enumerate(zip(a["tournaments"], b["tournaments"])):
        if x != y:
            return False, f"differs first in tournament {t}"
    return False, "differs outside the tournaments (slots, versions, options or counts)"


# ------------------------------------------------------------------------------------------ PHH
_PHH_CODES = {protocol.FOLD: "f", protocol.CHECK: "cc", protocol.CALL: "cc", protocol.RAISE: "cbr"}


def to_phh(doc: dict, tournament: int) -> str:
    """A tournament's hands as PHH text (the Poker Hand History format PokerKit reads), in the
    multi-hand ``.phhs`` layout (one ``[N]`` section per hand, N from 1). Players are the seats
    dealt in, in PHH order (from the small-blind side of the button), named by alias."""
    tour = doc["tournaments"][tournament]
    out = [f"# {doc['variant']} seed {doc['seed']} tournament {tournament}"]
    for h in tour["hands"]:
        n = len(h["stacks"])
        dealt = [s for s in range(n) if h["hole"][s] is not None]
        order = sorted(dealt, key=lambda s: (s - h["button"] - 1) % n)  # PHH index -> seat
        pid = {s: i + 1 for i, s in enumerate(order)}
        small, big, ante = h["blinds"]
        # PokerKit's conventions: blinds by index from the button's left, reversed by PokerKit
        # itself heads-up; a dead small blind leaves one blind; the big-blind ante is what our
        # engine took (blind first, TDA RP-11), placed where PokerKit expects it.
        dead_sb = h["sb"] not in pid or h["sb"] == h["bb"]
        posted_ante = max(0, min(ante, h["stacks"][h["bb"]] - big))
        blinds = [0] * len(order)
        antes = [0] * len(order)
        if dead_sb:
            blinds[0] = big
            antes[0] = posted_ante
        else:
            blinds[0], blinds[1] = small, big
            antes[1] = posted_ante
        actions = [f"d dh p{pid[s]} {''.join(h['hole'][s])}" for s in order]
        for e in h["events"]:
            if e["type"] == "action":
                code = _PHH_CODES[e["code"]]
                amount = f" {e['to']}" if code == "cbr" else ""
                actions.append(f"p{pid[e['seat']]} {code}{amount}")
            elif e["type"] == "board":
                actions.append(f"d db {''.join(e['cards'])}")
            elif e["type"] == "showdown":
                for seat, c1, c2 in e["cards"]:
                    actions.append(f"p{pid[seat]} sm {c1}{c2}")
        out += [
            "",
            f"[{h['hand'] + 1}]",
            'variant = "NT"',
            "ante_trimming_status = false",
            f"antes = {antes}",
            f"blinds_or_straddles = {blinds}",
            f"min_bet = {big}",
            f"starting_stacks = {[h['stacks'][s] for s in order]}",
            f"players = {json.dumps([tour['aliases'][s] for s in order])}",
            f"seats = {[s + 1 for s in order]}",
            f"actions = {json.dumps(actions)}",
        ]
    return "\n".join(out) + "\n"
