"""The series host: WebAssembly policies play series of tournaments on the one rules engine.

Modules (imported on use): `wasm` (load, check and call a policy on its fuel budget; the engine
and module checks in `wasm_module`, the machine-time guard in `guard`), `protocol` (the
messages, the clock, the reply rules, the wire codes and engine kinds), `hand` (the one host
hand driver of every host table: a hand played through the engine, its history and events,
exact actions, a call's outcome), `engine` (the series' compiled tournament steps; `xla_cache`
keeps them between processes), `game` (the tournaments of a block, decision by decision),
`runner` (one series), `variants`, `results`, `hud` (VPIP, PFR, 3-bet, c-bet, WTSD, W$SD,
AF from hand records: the series results, the league leaderboard and the duplicate style table
count with it), `replay`, `viewer` (+ ``static/``), `output` (files, the certification
verdict), `html`, `meter` (the fuel of runtime calls).

The contract with policy authors is ``PROTOCOL.md`` in this folder. Nothing here is imported by
``holdemjax`` itself, so the library works without wasmtime installed.
"""
