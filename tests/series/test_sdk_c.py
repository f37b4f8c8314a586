"""Tests of the C SDK (sdk/c/holdem.h), its example and the reproducible build (sdk/build.py).

* The shipped baseline.wasm / random.wasm are what the sources build, byte for byte, and
  SHA256SUMS lists them; every module built imports nothing outside `holdem`.
* A test-only harness policy (compiled here from HARNESS, never shipped) exposes the SDK's
  pieces: its `holdem_on_message` re-serialises what `holdem_parse` read, so hundreds of random
  messages (canonical and pretty-printed, with unknown keys, escapes and junk) are compared with
  Python's own reading; `t_reply` drives the reply builder; `t_fold_in` / `t_bits` / `t_draw`
  are compared with JAX's threefry on thousands of keys and data values.
* The example policy (sdk/c/examples/simple.c) answers through the series host
  (`holdemjax.series.wasm.load_policy`) with legal actions, and survives garbage.

Needs the `ziglang` package (skipped without it); the first build of a fresh zig cache takes
about 30 s (zig builds wasi-libc once), later builds about a second each.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import pathlib
import random

import numpy as np
import pytest

pytest.importorskip("ziglang")
wasmtime = pytest.importorskip("wasmtime")

from holdemjax.series import protocol
from holdemjax.series.wasm import load_policy

ROOT = pathlib.Path(__file__).resolve().parents[2]
POLICIES = ROOT / "holdemjax" / "series" / "policies"
RANKS, SUITS = "23456789TJQKA", "cdhs"
MASK32, MASK64 = 0xFFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF
BUDGET = 200_000_000  # a decision's largest budget (fuel = virtual ns)


def _load_build():
    spec = importlib.util.spec_from_file_location("holdem_sdk_build", ROOT / "sdk" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, pathlib.Path]:
    """baseline.wasm, random.wasm and simple.wasm (the example) built into a temp dir."""
    return build.build_all(tmp_path_factory.mktemp("sdk-build"))


# -------------------------------------------------------------------------- reproducible build
def test_rebuild_gives_the_shipped_modules():
    problems = build.check()
    assert problems == [], "\n".join(problems) + "\n(run: python sdk/build.py)"


def test_sha256sums_lists_the_shipped_files():
    lines = (POLICIES / "SHA256SUMS").read_text().splitlines()
    listed = dict(reversed(line.split("  ")) for line in lines)
    assert sorted(listed) == ["baseline.wasm", "random.wasm"]
    for name, digest in listed.items():
        assert hashlib.sha256((POLICIES / name).read_bytes()).hexdigest() == digest, name


def test_build_refuses_a_preflop_table_with_the_wrong_checksum(tmp_path):
    table = tmp_path / "preflop_v1.json"
    table.write_bytes(build.PREFLOP_JSON.read_bytes().replace(b"5031", b"5032", 1))
    with pytest.raises(build.BuildError, match="PREFLOP_SHA256"):
        build.preflop_header(table)
    header = build.preflop_header()  # the shipped table: AA's equity row and top, first class 22
    assert "{5031, 3076, 2197, 1779, 1555}" in header.splitlines()[5]


def test_build_refuses_a_policy_that_imports_wasi(tmp_path):
    source = tmp_path / "stdio.c"
    source.write_text('#include <stdio.h>\n#include "holdem.h"\n'
                      "int64_t holdem_on_message(const char *m, int32_t n) {\n"
                      '    printf("%.*s", (int)n, m);\n    return 0;\n}\n')
    with pytest.raises(build.BuildError,
                       match=r"stdio\.c \(built\) imports .*wasi_snapshot_preview1\.fd_write"):
        build.compile_policy(source, tmp_path / "stdio.wasm")
    assert not (tmp_path / "stdio.wasm").exists()


@pytest.mark.parametrize("name", ["baseline.wasm", "random.wasm", "simple.wasm"])
def test_modules_import_nothing_outside_holdem(built, name):
    module = wasmtime.Module(wasmtime.Engine(), built[name].read_bytes())
    imports = {(i.module, i.name) for i in module.imports}
    # The example logs at start; the bundled policies need nothing from the host.
    assert imports == ({("holdem", "log")} if name == "simple.wasm" else set())
    exports = {e.name: e.type for e in module.exports}
    assert {"memory", "holdem_abi_version", "holdem_alloc", "holdem_on_message"} <= set(exports)
    assert exports["memory"].limits.min <= 32  # pages: the 1 MiB stack flag is in effect
    with load_policy(built[name], cache=False) as policy:  # the host's own checks pass too
        assert policy.start(b'{"type":"start","seed":[1,2]}').outcome == "no_reply"


# ------------------------------------------------------------------- the harness (test only)
HARNESS = r"""
#include "holdem.h"

static char out[1 << 17];
static int n;
static void put(const char *s) { while (*s && n < (int)sizeof out - 16) out[n++] = *s++; }
static void put_int(int64_t v) { char t[24]; holdem_format_int(t, v); put(t); }
static void put_str(const char *s) {
    static const char hex[] = "0123456789abcdef";
    out[n++] = '"';
    for (; *s && n < (int)sizeof out - 16; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { out[n++] = '\\'; out[n++] = (char)c; }
        else if (c < 0x20) { put("\\u00"); out[n++] = hex[c >> 4]; out[n++] = hex[c & 15]; }
        else out[n++] = (char)c;
    }
    out[n++] = '"';
}
static void put_ints(const int32_t *v, int k) {
    put("[");
    for (int i = 0; i < k; i++) { if (i) put(","); put_int(v[i]); }
    put("]");
}
static void put_bools(const int *v, int k) {
    put("[");
    for (int i = 0; i < k; i++) { if (i) put(","); put_int(v[i]); }
    put("]");
}
static int64_t packed(void) { return (int64_t)(((uint64_t)(uintptr_t)out << 32) | (uint32_t)n); }

/* Everything holdem_parse read, as JSON (the test compares it with Python's reading). */
int64_t holdem_on_message(const char *msg, int32_t len) {
    static holdem_msg m;
    int ok = holdem_parse(&m, msg, len);
    n = 0;
    put("{\"ok\":"); put_int(ok);
    put(",\"type\":"); put_int(m.type);
    put(",\"tournament\":"); put_int(m.tournament);
    if (m.type == HOLDEM_START) {
        put(",\"protocol\":"); put_int(m.protocol);
        put(",\"slot\":"); put_int(m.slot);
        put(",\"tournaments\":"); put_int(m.tournaments);
        put(",\"seed\":["); put_int(m.seed[0]); put(","); put_int(m.seed[1]); put("]");
        put(",\"alias\":"); put_str(m.alias);
        put(",\"variant\":"); put_str(m.variant);
        put(",\"format\":{\"name\":"); put_str(m.format.name);
        put(",\"seats\":"); put_int(m.format.seats);
        put(",\"starting_stack\":"); put_int(m.format.starting_stack);
        put(",\"hands_per_level\":"); put_int(m.format.hands_per_level);
        put(",\"hand_cap\":"); put_int(m.format.hand_cap);
        put(",\"levels\":[");
        for (int i = 0; i < m.format.num_levels; i++) {
            if (i) put(",");
            put_ints(m.format.levels[i], 3);
        }
        put("],\"payouts_ppm\":"); put_ints(m.format.payouts_ppm, m.format.seats);
        put("},\"clock\":[");
        put_int(m.shot_ns); put(","); put_int(m.bank_start_ns); put(",");
        put_int(m.decision_max_ns); put(","); put_int(m.notify_ns); put(","); put_int(m.start_ns);
        put("],\"limits\":[");
        put_int(m.memory_bytes); put(","); put_int(m.reply_bytes); put(",");
        put_int(m.chat_chars); put(","); put_int(m.chat_lines_per_hand); put("]");
    }
    if (m.type == HOLDEM_ACT) {
        int32_t ints[8] = {m.hand, m.street, m.seat, m.decision, m.button, m.sb, m.bb, m.pot};
        put(",\"ints\":"); put_ints(ints, 8);
        put(",\"blinds\":"); put_ints(m.blinds, 3);
        put(",\"stacks\":"); put_ints(m.stacks, m.seats);
        put(",\"bets\":"); put_ints(m.bets, m.seats);
        put(",\"contrib\":"); put_ints(m.contrib, m.seats);
        put(",\"in_hand\":"); put_bools(m.in_hand, m.seats);
        put(",\"folded\":"); put_bools(m.folded, m.seats);
        put(",\"allin\":"); put_bools(m.allin, m.seats);
        put(",\"alive\":"); put_bools(m.alive, m.seats);
        put(",\"hole\":"); put_bools(m.hole, 2);
        put(",\"board\":"); put_bools(m.board, m.num_board);
        put(",\"history\":[");
        int kept = m.num_history < HOLDEM_MAX_HISTORY ? m.num_history : HOLDEM_MAX_HISTORY;
        for (int i = 0; i < kept; i++) {
            if (i) put(",");
            int32_t e[4] = {m.history[i].street, m.history[i].seat, m.history[i].code,
                            m.history[i].to};
            put_ints(e, 4);
        }
        put("],\"num_history\":"); put_int(m.num_history);
        put(",\"street_raises\":[");
        for (int s = 0; s < 4; s++) { if (s) put(","); put_ints(m.street_raises[s], m.seats); }
        put("],\"legal\":[");
        put_int(m.legal.fold); put(","); put_int(m.legal.check); put(","); put_int(m.legal.call);
        put(","); put_int(m.legal.can_raise); put(","); put_int(m.legal.raise_min);
        put(","); put_int(m.legal.raise_max);
        put("],\"clock\":["); put_int(m.budget_ns); put(","); put_int(m.bank_ns);
        put("],\"away\":"); put_int(m.away);
    }
    if (m.type == HOLDEM_HAND_END) { put(",\"hand\":"); put_int(m.hand); }
    if (m.type == HOLDEM_TOURNAMENT_END) {
        put(",\"places\":"); put_ints(m.places, m.seats);
        put(",\"scores_ppm\":"); put_ints(m.scores_ppm, m.seats);
    }
    put(",\"events\":[");
    holdem_iter it = holdem_iter_begin(m.events);
    holdem_event ev;
    for (int i = 0; holdem_event_next(&it, &ev); i++) {
        if (i) put(",");
        put("["); put_int(ev.type); put(",");
        put_int(holdem_json_int_or(holdem_json_get(ev.raw, "seat"), -1));
        char text[200];
        if (holdem_json_string(holdem_json_get(ev.raw, "text"), text, sizeof text) < 0) text[0] = 0;
        put(","); put_str(text); put("]");
    }
    put("]}");
    return packed();
}

/* The reply builder, driven by a JSON spec {"action", "amount", "say", "chat", "emote",
 * "sit_in"} (strings decoded by holdem_json_string, raw bytes passed through). */
HOLDEM_EXPORT(t_reply) int64_t t_reply(const char *msg, int32_t len) {
    static char text[4096];
    holdem_json spec = holdem_json_parse(msg, len);
    holdem_reply_begin();
    int64_t action;
    if (holdem_json_int(holdem_json_get(spec, "action"), &action))
        holdem_reply_set_action((int)action,
                                (int32_t)holdem_json_int_or(holdem_json_get(spec, "amount"), 0));
    if (holdem_json_string(holdem_json_get(spec, "say"), text, sizeof text) >= 0)
        holdem_reply_say(text);
    holdem_iter it = holdem_iter_begin(holdem_json_get(spec, "chat"));
    holdem_json line;
    while (holdem_iter_next(&it, 0, &line))
        if (holdem_json_string(line, text, sizeof text) >= 0) holdem_reply_chat(text);
    if (holdem_json_string(holdem_json_get(spec, "emote"), text, sizeof text) >= 0)
        holdem_reply_emote(text);
    int sit = 0;
    if (holdem_json_bool(holdem_json_get(spec, "sit_in"), &sit) && sit) holdem_reply_sit_in();
    return holdem_reply_end();
}

HOLDEM_EXPORT(t_fold_in) int64_t t_fold_in(uint32_t k0, uint32_t k1, uint32_t data) {
    uint32_t key[2] = {k0, k1}, o[2];
    holdem_fold_in(key, data, o);
    return (int64_t)(((uint64_t)o[0] << 32) | o[1]);
}

HOLDEM_EXPORT(t_bits) uint32_t t_bits(uint32_t k0, uint32_t k1) {
    uint32_t key[2] = {k0, k1};
    return holdem_bits(key);
}

HOLDEM_EXPORT(t_draw) uint32_t t_draw(uint32_t k0, uint32_t k1, int32_t t, int32_t h, int32_t seat,
                                      int32_t street, int32_t rank, uint32_t below) {
    uint32_t seed[2] = {k0, k1}, key[2];
    holdem_decision_key(seed, t, h, seat, street, rank, key);
    return holdem_draw_below(key, below);
}
"""


class Harness:
    """The harness module on a plain wasmtime instance (no fuel, no host imports)."""

    def __init__(self, path: pathlib.Path):
        self.store = wasmtime.Store(wasmtime.Engine())
        module = wasmtime.Module(self.store.engine, path.read_bytes())
        assert not module.imports  # it uses no host import: nothing to define
        instance = wasmtime.Instance(self.store, module, [])
        self.ex = instance.exports(self.store)
        self.ex["_initialize"](self.store)
        self.memory = self.ex["memory"]

    def send(self, export: str, message: bytes) -> bytes | None:
        ptr = self.ex["holdem_alloc"](self.store, len(message)) & MASK32
        assert ptr != 0, f"holdem_alloc({len(message)}) refused"
        self.memory.write(self.store, message, ptr)
        r = self.ex[export](self.store, ptr, len(message)) & MASK64
        if r == 0:
            return None
        p, n = r >> 32, r & MASK32
        return bytes(self.memory.read(self.store, p, p + n))

    def parsed(self, message: bytes) -> dict:
        return json.loads(self.send("holdem_on_message", message).decode("utf-8"))

    def u32(self, name: str, *args) -> int:
        return self.ex[name](self.store, *[a if a < 2**31 else a - 2**32 for a in args]) & MASK32


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Harness:
    tmp = tmp_path_factory.mktemp("harness")
    (tmp / "harness.c").write_text(HARNESS)
    build.compile_policy(tmp / "harness.c", tmp / "harness.wasm")
    return Harness(tmp / "harness.wasm")


# ------------------------------------------------------------------------- what Python reads
TYPES = {"start": 1, "act": 2, "hand_end": 3, "tournament_end": 4}
EVENT_TYPES = ["tournament_start", "hand_start", "action", "board", "showdown", "result",
               "eliminated", "chat", "emote", "away", "back", "faulted"]


def card_id(text: str) -> int:
    return 4 * RANKS.index(text[0]) + SUITS.index(text[1])


def expected(msg: dict) -> dict:
    """What the harness must report for a well-formed message (mirrors holdem_msg)."""
    exp = {"ok": 1, "type": TYPES.get(msg["type"], 0), "tournament": msg.get("tournament", 0)}
    if msg["type"] == "start":
        f = msg["format"]
        exp.update(protocol=msg["protocol"], slot=msg["slot"], tournaments=msg["tournaments"],
                   seed=msg["seed"], alias=msg["alias"], variant=msg["variant"],
                   format={k: f[k] for k in ("name", "seats", "starting_stack",
                                             "hands_per_level", "hand_cap", "levels",
                                             "payouts_ppm")},
                   clock=[msg["clock"][k] for k in ("shot_ns", "bank_ns", "decision_max_ns",
                                                    "notify_ns", "start_ns")],
                   limits=[msg["limits"][k] for k in ("memory_bytes", "reply_bytes",
                                                      "chat_chars", "chat_lines_per_hand")])
    if msg["type"] == "act":
        seats = len(msg["stacks"])
        raises = [[0] * seats for _ in range(4)]
        for street, seat, code, _ in msg["history"]:
            if code == 3:
                raises[street][seat] += 1
        legal = msg["legal"]
        lo, hi = legal["raise"] or (0, 0)
        exp.update(
            ints=[msg[k] for k in ("hand", "street", "seat", "decision", "button", "sb", "bb",
                                   "pot")],
            blinds=msg["blinds"], **{k: msg[k] for k in ("stacks", "bets", "contrib")},
            **{k: [int(b) for b in msg[k]] for k in ("in_hand", "folded", "allin", "alive")},
            hole=[card_id(c) for c in msg["hole"]], board=[card_id(c) for c in msg["board"]],
            history=msg["history"][:256], num_history=len(msg["history"]),
            street_raises=raises,
            legal=[int(legal["fold"]), int(legal["check"]), legal["call"],
                   int(legal["raise"] is not None), lo, hi],
            clock=[msg["clock"]["budget_ns"], msg["clock"]["bank_ns"]], away=int(msg["away"]))
    if msg["type"] == "hand_end":
        exp["hand"] = msg["hand"]
    if msg["type"] == "tournament_end":
        exp.update(places=msg["places"], scores_ppm=msg["scores_ppm"])
    exp["events"] = [[EVENT_TYPES.index(e["type"]) + 1 if e["type"] in EVENT_TYPES else 0,
                      e.get("seat", -1), e.get("text", "")] for e in msg.get("events", [])]
    return exp


def random_events(rng: random.Random) -> list[dict]:
    events = []
    for _ in range(rng.randrange(6)):
        kind = rng.choice(EVENT_TYPES + ["future_event"])
        ev = {"type": kind, "seat": rng.randrange(9)}
        if kind == "chat":
            ev.update(text=rng.choice(['gl "all"', "tab\there", "caf\u00e9 \U0001F600", "a\\b"]),
                      say=rng.random() < 0.5)
        if kind == "action":
            ev.update(street=1, code=3, to=120, added=100, auto=None)
        if kind == "board":
            del ev["seat"]
            ev["cards"] = ["As", "Kd"]
        events.append(ev)
    return events


def junk(rng: random.Random, depth: int = 0):
    """An arbitrary JSON value for an unknown key (the reader must skip it)."""
    pick = rng.randrange(8 if depth < 3 else 5)
    return [None, True, rng.uniform(-1e9, 1e9), 'x"\\}]{[\u1234\n', -12345678901234][pick] \
        if pick < 5 else ([junk(rng, depth + 1) for _ in range(rng.randrange(4))] if pick == 5
                          else {f"k{i}": junk(rng, depth + 1) for i in range(rng.randrange(4))})


def random_act(rng: random.Random) -> dict:
    seats = rng.randrange(2, 10)
    cards = [r + s for r in RANKS for s in SUITS]
    rng.shuffle(cards)
    history = [[rng.randrange(4), rng.randrange(seats), rng.randrange(4), rng.randrange(10**4)]
               for _ in range(rng.choice([0, 1, 5, 40, 300]))]  # 300 > the 256 entries kept

    def ints(hi):
        return [rng.randrange(hi) for _ in range(seats)]

    def bools():
        return [rng.random() < 0.5 for _ in range(seats)]

    lo = rng.randrange(1, 5000)
    return {
        "type": "act", "events": random_events(rng), "tournament": rng.randrange(1000),
        "hand": rng.randrange(100), "street": rng.randrange(4), "seat": rng.randrange(seats),
        "decision": rng.randrange(5), "button": rng.randrange(seats), "sb": rng.randrange(seats),
        "bb": rng.randrange(seats), "blinds": [rng.randrange(1, 4000) for _ in range(3)],
        "stacks": ints(10**5), "bets": ints(5000), "contrib": ints(5000), "in_hand": bools(),
        "folded": bools(), "allin": bools(), "alive": bools(), "hole": cards[:2],
        "board": cards[2:2 + rng.choice([0, 3, 4, 5])], "pot": rng.randrange(10**5),
        "history": history,
        "legal": {"fold": True, "check": rng.random() < 0.5, "call": rng.randrange(2000),
                  "raise": rng.choice([None, [lo, lo + rng.randrange(10**4)]])},
        "clock": {"budget_ns": rng.randrange(2**40), "bank_ns": rng.randrange(2**40)},
        "away": rng.random() < 0.2,
    }


def encodings(msg: dict, rng: random.Random) -> list[bytes]:
    """The canonical bytes, and a pretty, shuffled, non-ASCII copy with unknown keys."""
    noisy = dict(msg)
    for i in range(rng.randrange(1, 4)):
        noisy[f"zz_future_{i}"] = junk(rng)
    noisy["legal"] = {**msg["legal"], "future": [1, {"x": None}]} if "legal" in msg else None
    if noisy["legal"] is None:
        del noisy["legal"]
    keys = list(noisy)
    rng.shuffle(keys)
    pretty = json.dumps({k: noisy[k] for k in keys}, indent=rng.choice([None, 1, "\t"]),
                        ensure_ascii=False, separators=(" , ", " : ")).encode()
    return [protocol.encode(msg), b" \r\n" + pretty + b"\n"]


START = protocol.encode({
    "type": "start", "protocol": 1, "slot": 2, "alias": 'Love"lace\\ \u00e9\U0001F600\u0007',
    "variant": "series-100", "tournaments": 100,
    "format": {"name": "sng-6", "seats": 6, "starting_stack": 1000, "hands_per_level": 4,
               "hand_cap": 60, "kind": "tournament",
               "levels": [[10, 20, 0], [15, 30, 0], [60, 120, 120], [4000, 8000, 8000]],
               "payouts_ppm": [333000, 267000, 200000, 133000, 67000, 0]},
    "clock": {"shot_ns": 20000000, "bank_ns": 1000000000, "decision_max_ns": 200000000,
              "notify_ns": 5000000, "start_ns": 1000000000},
    "limits": {"memory_bytes": 67108864, "reply_bytes": 4096, "chat_chars": 140,
               "chat_lines_per_hand": 2},
    "emotes": list(protocol.EMOTES), "seed": [2718281828, 4294967295]})


# ------------------------------------------------------------------------------ the reader
def test_parse_start_message(harness):
    assert harness.parsed(START) == expected(json.loads(START))


def test_parse_random_act_messages(harness):
    rng = random.Random(5)
    for i in range(300):
        msg = random_act(rng)
        for raw in encodings(msg, rng):
            got = harness.parsed(raw)
            assert got == expected(msg), f"message {i}: {raw[:300]!r}"


def test_parse_notifications(harness):
    rng = random.Random(6)
    for msg in ({"type": "hand_end", "events": random_events(rng), "tournament": 7, "hand": 31},
                {"type": "tournament_end", "events": random_events(rng), "tournament": 99,
                 "places": [3, 6, 1, 2, 5, 4],
                 "scores_ppm": [200000, 0, 333000, 267000, 67000, 133000]},
                {"type": "future_kind", "events": [], "tournament": 3, "hand": 4}):
        for raw in encodings(msg, rng):
            assert harness.parsed(raw) == expected(msg), raw


@pytest.mark.parametrize("raw", [
    b"", b" ", b"{", b"}", b"[]", b"[1,2]", b'"act"', b"null", b"12",
    b'{"type":5}', b'{"type":null}', b'{"tipe":"act"}', b'{"type":"act"', b'{"type":"act",}',
    b'{"type":"act"} x', b'{"type" "act"}', b'{"type":"act","hand":01x}', b'{"type":"a\\',
    b"\xff\xfe\x00", b"{" * 5000 + b"}" * 5000, b"[" * 100000,
    b'{"type":"act","x":' + b"[" * 70 + b"]" * 70 + b"}",  # deeper than the 64 levels read
])
def test_parse_refuses_malformed_messages(harness, raw):
    got = harness.parsed(raw)
    assert (got["ok"], got["type"], got["events"]) == (0, 0, [])


def test_parse_accepts_nesting_within_the_limit(harness):
    raw = b'{"type":"hand_end","hand":3,"x":' + b"[" * 60 + b"]" * 60 + b"}"
    assert harness.parsed(raw)["hand"] == 3


# ---------------------------------------------------------------------- the reply builder
def clean(text: str) -> str:
    """The builder's line: control characters dropped, at most 140 code points."""
    kept = "".join(ch for ch in text if not (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0))
    return kept[:protocol.CHAT_CHARS]


def test_reply_fields_and_escaping(harness):
    say = 'say "hi" \\ back\n\u007f~\u00e9\U0001F600' + "x" * 200
    spec = {"action": 3, "amount": 1234, "say": say,
            "chat": ["gl hf", "", "\u0001\u0002", 'q"uote', "\u0085line", "fifth", "sixth"],
            "emote": "thumbs_up", "sit_in": True}
    reply = harness.send("t_reply", json.dumps(spec).encode())
    got = json.loads(reply.decode("utf-8"))
    # empty lines are dropped; at most 4 chat lines are kept
    assert got == {"action": "raise", "amount": 1234, "say": clean(say),
                   "chat": ["gl hf", 'q"uote', "line", "fifth"], "emote": "thumbs_up",
                   "sit_in": True}
    parsed = protocol.parse_reply(reply, {"fold": True, "check": False, "call": 20,
                                          "raise": [40, 2000]})
    assert (parsed.outcome, parsed.amount, parsed.say) == ("ok", 1234, protocol.clean_line(say))


@pytest.mark.parametrize("action, name", [(0, "fold"), (1, "check"), (2, "call")])
def test_reply_actions_without_amount(harness, action, name):
    reply = harness.send("t_reply", json.dumps({"action": action, "amount": 99}).encode())
    assert reply == f'{{"action":"{name}"}}'.encode()


def test_reply_with_nothing_is_no_reply(harness):
    assert harness.send("t_reply", b'{"say":"","chat":[""],"action":-1}') is None


def test_reply_replaces_invalid_utf8(harness):
    # raw bytes inside the JSON string: a stray continuation byte, an overlong '/', a cut
    # sequence and a surrogate; each byte that starts no valid sequence becomes one '?'
    spec = b'{"action":0,"say":"a\x80b\xc0\xafc\xe2\x82d\xed\xa0\x80e\xe2\x82\xacf"}'
    got = json.loads(harness.send("t_reply", spec).decode("utf-8"))
    assert got == {"action": "fold", "say": "a?b??c??d???e\u20acf"}


def test_longest_reply_fits_the_limit(harness):
    worst = ('"\\' * 70, "\U0001F600" * 200, "\u00e9" * 300, '"' * 500)
    spec = {"action": 3, "amount": -2**31, "say": worst[1], "chat": list(worst),
            "emote": "x" * 31, "sit_in": True}
    reply = harness.send("t_reply", json.dumps(spec).encode())
    assert len(reply) <= protocol.REPLY_MAX_BYTES
    got = json.loads(reply.decode("utf-8"))
    assert got["chat"] == [clean(w) for w in worst] and got["say"] == clean(worst[1])
    assert all(len(line) == 140 for line in got["chat"]) and got["emote"] == "x" * 31


# ------------------------------------------------------------------ threefry against JAX
def test_threefry_fold_in_and_bits_match_jax(harness):
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(11)
    edges = np.array([0, 1, 2**31 - 1, 2**31, 2**32 - 1], np.uint32)
    keys = rng.integers(0, 2**32, size=(3000, 2), dtype=np.uint32)
    data = rng.integers(0, 2**32, size=3000, dtype=np.uint32)
    keys[:25] = np.stack(np.meshgrid(edges, edges), -1).reshape(-1, 2)
    data[:5] = edges
    folded = np.asarray(jax.jit(jax.vmap(lambda k, d: jax.random.key_data(
        jax.random.fold_in(jax.random.wrap_key_data(k), d))))(keys, data))
    bits = np.asarray(jax.jit(jax.vmap(lambda k: jax.random.bits(
        jax.random.wrap_key_data(k), (), jnp.uint32)))(keys))
    for i in range(len(keys)):
        k0, k1, d = int(keys[i, 0]), int(keys[i, 1]), int(data[i])
        r = harness.ex["t_fold_in"](harness.store, *[x - 2**32 if x >= 2**31 else x
                                                     for x in (k0, k1, d)]) & MASK64
        assert (r >> 32, r & MASK32) == tuple(map(int, folded[i])), (k0, k1, d)
        assert harness.u32("t_bits", k0, k1) == int(bits[i]), (k0, k1)


def test_coordinate_draws_match_the_reference_bots(harness):
    import jax
    import jax.numpy as jnp

    from holdemjax.bots.random_bot import coordinate_key, draw_below

    rng = np.random.default_rng(12)
    seeds = rng.integers(0, 2**32, size=(1000, 2), dtype=np.uint32)
    coords = np.stack([rng.integers(0, 1000, 1000), rng.integers(0, 80, 1000),
                       rng.integers(0, 9, 1000), rng.integers(0, 4, 1000),
                       rng.integers(0, 6, 1000)], axis=1).astype(np.int32)
    below = rng.choice([1, 2, 3, 7, 10000, 2**31 - 1], 1000).astype(np.int32)

    def draw(seed, c, n):
        game = jax.random.fold_in(jax.random.wrap_key_data(seed), c[0].astype(jnp.uint32))
        return draw_below(coordinate_key(game, c[1], c[2], c[3], c[4]), n)

    want = np.asarray(jax.jit(jax.vmap(draw))(seeds, coords, below))
    for i in range(1000):
        got = harness.u32("t_draw", int(seeds[i, 0]), int(seeds[i, 1]),
                          *map(int, coords[i]), int(below[i]))
        assert got == int(want[i]), (seeds[i], coords[i], below[i])


# -------------------------------------------------------------------------- the example
ACT = {  # the PROTOCOL.md §5 example, complete
    "type": "act", "events": [], "tournament": 0, "hand": 3, "street": 1, "seat": 4,
    "decision": 1, "button": 2, "sb": 3, "bb": 4, "blinds": [10, 20, 0],
    "stacks": [980, 0, 940, 1010, 960, 1070], "bets": [0, 0, 0, 0, 20, 0],
    "contrib": [20, 0, 20, 0, 40, 20],
    "in_hand": [True, False, True, False, True, True],
    "folded": [False, False, False, True, False, False], "allin": [False] * 6,
    "alive": [True, False, True, True, True, True], "hole": ["Ah", "Kd"],
    "board": ["2c", "7d", "Ks"], "pot": 120, "history": [[0, 5, 3, 60], [0, 2, 2, 60]],
    "legal": {"fold": True, "check": False, "call": 20, "raise": [80, 1000]},
    "clock": {"budget_ns": 200000000, "bank_ns": 1000000000}, "away": False}


@pytest.fixture
def simple(built):
    with load_policy(built["simple.wasm"], cache=False) as policy:
        start = protocol.encode({**json.loads(START), "slot": 5})
        assert policy.start(start).outcome == "no_reply"
        assert policy.logs == [(-1, "simple policy in slot 5")]
        yield policy


def act(policy, **changes) -> tuple[protocol.Reply, int]:
    msg = {**ACT, **changes}
    result = policy.call(protocol.encode(msg), BUDGET)
    assert result.outcome == "ok", result
    return protocol.parse_reply(result.reply, msg["legal"]), result.used_ns


def test_example_plays_legal_actions_and_chats_once(simple):
    first, used = act(simple)  # AK: two cards ten or higher, facing a bet -> call
    assert (first.outcome, first.kind, first.chat) == ("ok", 1, ("gl hf",))
    assert 0 < used < 1_000_000  # well under 1 ms of the 20 ms shot clock
    folds, _ = act(simple, hole=["7h", "2d"])
    assert (folds.outcome, folds.kind, folds.chat) == ("ok", 0, ())
    checks, _ = act(simple, hole=["7h", "2d"],
                    legal={"fold": True, "check": True, "call": 0, "raise": [20, 1000]})
    assert (checks.outcome, checks.kind) == ("ok", 1)
    pair, _ = act(simple, hole=["8h", "8d"], street=0, board=[])
    assert (pair.outcome, pair.kind) == ("ok", 1)


def test_example_survives_garbage_and_big_messages(simple):
    for junk_message in (b"", b"\x00" * 100, b"{]", b'{"type":"act"', b"[" * 100000):
        result = simple.call(junk_message, BUDGET)
        assert (result.outcome, simple.fault) == ("no_reply", None)
    # 300 KB (past the 64 KiB static buffer: a malloc'd one), then 20 MB (refused: bad_alloc)
    big = {**ACT, "zz_padding": "p" * 300_000}
    reply, _ = act(simple, zz_padding="p" * 300_000)
    assert reply.outcome == "ok" and simple.memory_bytes <= 8 * 2**20
    assert simple.call(protocol.encode(big)[:-1] + b',"x":' + b"0" * 20_000_000 + b"}",
                       BUDGET).outcome == "bad_alloc"
    again, _ = act(simple)
    assert again.outcome == "ok" and simple.fault is None


@pytest.mark.parametrize("doc, heading", [("holdemjax/series/PROTOCOL.md", "## 6. Writing"),
                                          ("sdk/README.md", "## The C SDK")])
def test_documented_c_examples_build_and_play(tmp_path, doc, heading):
    """The first C block under ``heading`` (PROTOCOL.md §6's sketch, the README's example) is
    real code for this SDK: it builds and checks when free, else folds."""
    text = (ROOT / doc).read_text()
    section = text[text.index(heading):]
    begin = section.index("```c\n") + len("```c\n")
    (tmp_path / "doc.c").write_text(section[begin:section.index("```", begin)])
    build.compile_policy(tmp_path / "doc.c", tmp_path / "doc.wasm")
    with load_policy(tmp_path / "doc.wasm", cache=False) as policy:
        assert policy.start(START).outcome == "no_reply"
        facing, _ = act(policy)
        free, _ = act(policy, legal={"fold": True, "check": True, "call": 0, "raise": None})
        assert (facing.outcome, facing.kind, free.outcome, free.kind) == ("ok", 0, "ok", 1)
