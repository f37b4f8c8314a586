"""One league, from its pool to its leaderboard, kept as files and resumable.

`run_league` certifies the pool, plans the qualifying series (`matchmaking.lineups`, each
series' seed from `matchmaking.series_seed`), plays the series not yet in the league folder on
an executor of `holdemjax.league.play`, then the final of the top ``final`` bots, and rewrites
``leaderboard.json`` / ``leaderboard.html`` as series finish (at most every `BOARD_EVERY_S`
seconds) and at the end. The folder:

    league.json           what the league is (format, seed, games, stages, bots and SHA-256s)
    certification.json    each module's certification, by SHA-256
    series/NNNN/          results.json, replay.json, viewer.html, logs/, summary.json
    leaderboard.json      `leaderboard.build`, canonical bytes
    leaderboard.html      `page.render`

A series folder is written under a temporary name and renamed into place whole, every other
file under a temporary name and replaced, and each is then recorded with its SHA-256 in
``manifest.json`` (`manifest`). So after an interruption (Ctrl-C, a kill) a series is either
there or not at all; running the same command again plays only the series missing or damaged
(a file of it missing, changed or unrecorded: named on stderr, the folder removed), and the
leaderboard, a pure function of the files, comes out byte for byte as from one uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import secrets
import shutil
import sys
import time

from holdemjax.league import leaderboard, matchmaking, page
from holdemjax.league import manifest as league_manifest
from holdemjax.league.pool import CERTIFY_VARIANT
from holdemjax.validate import require_int

__all__ = ["FORMATS", "LeagueSpec", "LeagueError", "run_league", "variant_of", "SPEC_NAME",
           "LEADERBOARD_JSON", "LEADERBOARD_HTML"]

#: format -> (seats, the series variant of its default length)
FORMATS = {"sng-6": (6, "series-10"), "ring-9": (9, "ring-9-series")}
SPEC_NAME, CERT_NAME = "league.json", "certification.json"
LEADERBOARD_JSON, LEADERBOARD_HTML = "leaderboard.json", "leaderboard.html"
SPEC_SCHEMA = "holdemjax.league/1"
BOARD_EVERY_S = 5.0  # while series finish, the leaderboard files are rewritten at most this often


class LeagueError(ValueError):
    """The league cannot run as asked; the message names the bad value."""


@dataclasses.dataclass(frozen=True)
class LeagueSpec:
    """What a league is: ``format`` (``sng-6`` or ``ring-9``), the league ``seed``, ``games``
    per bot at least, ``tournaments`` per series, the final (``final`` bots, None for none,
    ``final_games`` games), each series' wall-time limit ``max_wall`` (seconds) and ``luck``:
    the series run with luck (`holdemjax.series.runner.run_series`'s), so that the leaderboard
    shows each bot's score with the luck of the cards taken out too."""

    format: str = "sng-6"
    seed: int = 0
    games: int = 30
    tournaments: int = 10
    final: int | None = None
    final_games: int = 200
    max_wall: float | None = 600.0
    luck: bool = False

    def check(self) -> None:
        if self.format not in FORMATS:
            raise LeagueError(f"unknown format {self.format!r}; known: {', '.join(FORMATS)}")
        for name, lo in (("seed", 0), ("games", 1), ("tournaments", 1), ("final_games", 1)):
            try:
                require_int(name, getattr(self, name), lo, what=f"an integer >= {lo}")
            except (TypeError, ValueError) as exc:
                raise LeagueError(str(exc)) from None
        seats = FORMATS[self.format][0]
        if self.final is not None and self.final != seats:
            raise LeagueError(f"final {self.final}: a {self.format} final seats exactly "
                              f"{seats} bots (a fixed line-up at one table)")
        if not isinstance(self.luck, bool):
            raise LeagueError(f"luck must be true or false, got {self.luck!r}")
        if self.max_wall is not None and not self.max_wall > 0:
            raise LeagueError(f"max_wall must be > 0 seconds, got {self.max_wall}")

    @property
    def seats(self) -> int:
        return FORMATS[self.format][0]


def variant_of(fmt: str, tournaments: int) -> str:
    """The series variant a league of ``fmt`` plays (its count set to ``tournaments``)."""
    if fmt == "sng-6" and tournaments in (100, 1000):
        return f"series-{tournaments}"
    return FORMATS[fmt][1]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_league(spec: LeagueSpec, bots, out, executor, progress=None, warn=_stderr) -> dict:
    """Play (or continue) the league ``spec`` of ``bots`` (`pool.Bot`) in the folder ``out``
    on ``executor``; returns the leaderboard document. ``progress(stage, done, total)`` after
    every job; ``warn(line)`` for each damaged file found (its job is done again) and each bot
    the certification leaves out, with its reason. Raises `LeagueError` (a pool smaller than
    the table before anything runs); KeyboardInterrupt when interrupted (what finished is
    kept)."""
    spec.check()
    if len(bots) < spec.seats:  # before any certification: it could not help
        raise LeagueError(f"a {spec.format} table needs {spec.seats} bots, the pool has "
                          f"{len(bots)} ({', '.join(b.name for b in bots)})")
    out, manifest = _open_folder(pathlib.Path(out), spec, bots, warn)
    modules = {b.sha256: b.wasm for b in bots}
    certification = _certify(manifest, spec, bots, modules, executor, progress, warn)
    passed = [b for b in bots if certification[b.sha256]["passed"]]
    cert_rows = [{"bot": b.name, "sha256": b.sha256, **certification[b.sha256]} for b in bots]
    for row in cert_rows:
        if not row["passed"]:
            warn(f"holdemjax league: {row['bot']} left out: {row['problem']}")
    if len(passed) < spec.seats:
        raise LeagueError(f"{len(passed)} of {len(bots)} bots passed the certification; a "
                          f"{spec.format} table needs {spec.seats}")
    count = matchmaking.series_count(len(passed), spec.seats, spec.games, spec.tournaments)
    final_count = 0 if spec.final is None else -(-spec.final_games // spec.tournaments)
    planned = {"qualifying": count, "final": final_count}
    league = {**_spec_doc(spec), "bots": [b.entry() for b in bots]}
    state = {"summaries": _done(manifest, warn), "final_lineup": None, "written": 0.0,
             "manifest": manifest}

    def write_board(every: float = 0.0) -> dict | None:
        """Rebuild and write the leaderboard (at most once in ``every`` seconds: the rating
        is rebuilt from every game, so a long league's page is rewritten now and then, and
        whole at the end of each stage)."""
        if time.monotonic() - state["written"] < every:
            return None
        doc = leaderboard.build(league, cert_rows, list(state["summaries"].values()), planned,
                                state["final_lineup"])
        manifest.write(LEADERBOARD_JSON, leaderboard.encode(doc))
        manifest.write(LEADERBOARD_HTML, page.render(doc).encode("utf-8"))
        state["written"] = time.monotonic()
        return doc

    lineups = matchmaking.lineups(len(passed), spec.seats, count, spec.seed)
    jobs = [_series_job(spec, i, "qualifying", [passed[k] for k in lineup])
            for i, lineup in enumerate(lineups)]
    _play(out, jobs, state, modules, executor, progress, write_board, "qualifying")
    if final_count:
        ranked = [r["bot"] for r in write_board()["stages"][0]["rows"]][:spec.final]
        state["final_lineup"] = ranked
        by_name = {b.name: b for b in passed}
        jobs = [_series_job(spec, count + j, "final", [by_name[n] for n in ranked])
                for j in range(final_count)]
        _play(out, jobs, state, modules, executor, progress, write_board, "final")
    return write_board()


def _spec_doc(spec: LeagueSpec) -> dict:
    doc = {**dataclasses.asdict(spec), "seats": spec.seats,
           "variant": variant_of(spec.format, spec.tournaments)}
    if not spec.luck:  # recorded only when on: a league without luck is the league it was
        del doc["luck"]
    return doc


def _open_folder(out: pathlib.Path, spec: LeagueSpec, bots, warn) -> tuple:
    """Create the league folder, or check that it holds this very league: (the folder, its
    `manifest.Manifest`)."""
    from holdemjax.series.output import check_writable

    try:
        out, _ = check_writable(out)
    except OSError as exc:
        raise LeagueError(f"--out: {exc.strerror or exc}") from None
    mine = {"schema": SPEC_SCHEMA, **_spec_doc(spec), "bots": [b.entry() for b in bots]}
    path, manifest = out / SPEC_NAME, league_manifest.Manifest(out, warn)
    if path.exists():
        try:
            theirs = json.loads(path.read_bytes())
        except ValueError:
            raise LeagueError(f"{path} is not a league file") from None
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                raise LeagueError(f"{out} holds another league: its {key} is "
                                  f"{_short(theirs.get(key))}, this command's "
                                  f"{_short(mine.get(key))} (use another --out)")
    if manifest.problem(SPEC_NAME) is not None:  # new, or the same league unrecorded
        manifest.write(SPEC_NAME, leaderboard.encode(mine))
    for stale in (out / "series").glob(".*.tmp"):  # a series cut while being written
        shutil.rmtree(stale, ignore_errors=True)
    return out, manifest


def _short(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 200 else text[:200] + "..."


def _certify(manifest, spec, bots, modules, executor, progress, warn) -> dict:
    """Each module's certification (by SHA-256), run for those not yet in the folder (all of
    them when ``certification.json`` is damaged)."""
    variant = CERTIFY_VARIANT[spec.format]
    kept, why = {}, manifest.problem(CERT_NAME)
    if why is None:
        kept = json.loads((manifest.out / CERT_NAME).read_bytes())
    elif CERT_NAME in manifest.files or (manifest.out / CERT_NAME).exists():
        warn(f"holdemjax league: the certifications are damaged, run again ({why})")
    done = kept.get("modules", {}) if kept.get("variant") == variant else {}
    first = {}
    for b in bots:
        first.setdefault(b.sha256, b)
    jobs = [{"kind": "certify", "index": i, "sha256": sha, "path": b.path,
             "format": spec.format, "max_wall": spec.max_wall}
            for i, (sha, b) in enumerate(first.items()) if sha not in done]
    total, finished = len(first), len(first) - len(jobs)
    if progress:
        progress("certification", finished, total)

    def got(job, result):
        nonlocal finished
        if result.get("interrupted"):
            return
        done[job["sha256"]] = result["certify"]
        manifest.write(CERT_NAME, leaderboard.encode({"variant": variant, "modules": done}))
        finished += 1
        if progress:
            progress("certification", finished, total)

    if jobs:
        executor.run(jobs, modules, got)
    if finished < total:
        raise KeyboardInterrupt
    return done


def _series_job(spec, index, stage, lineup) -> dict:
    return {"kind": "series", "index": index, "stage": stage,
            "seed": matchmaking.series_seed(spec.seed, index),
            "variant": variant_of(spec.format, spec.tournaments),
            "tournaments": spec.tournaments, "max_wall": spec.max_wall,
            "bots": [b.entry() for b in lineup], **({"luck": True} if spec.luck else {})}


def _folder(out, index: int) -> pathlib.Path:
    return out / "series" / f"{index:04d}"


def _done(manifest, warn) -> dict:
    """The summaries of the series in the folder whose files are all whole and recorded; a
    series damaged (or recorded but gone) is named to ``warn`` and its folder removed."""
    found, out = {}, manifest.out
    folders = {p.name for p in (out / "series").glob("[0-9][0-9][0-9][0-9]") if p.is_dir()}
    recorded = {k.split("/")[1] for k in manifest.files if k.startswith("series/")}
    for name in sorted(folders | recorded):
        rel = f"series/{name}"
        why = manifest.folder_problem(rel) if name in folders else f"{rel}/: missing"
        if why is None:
            summary = _summary(out / rel / "summary.json")
            if summary is not None and summary.get("index") == int(name):
                found[summary["index"]] = summary
                continue
            why = f"{rel}/summary.json: not the summary of series {int(name)}"
        warn(f"holdemjax league: series {int(name)} is damaged, played again ({why})")
        if name in folders:
            league_manifest.remove_folder(out / rel)
        manifest.forget(rel)
    return found


def _summary(path: pathlib.Path) -> dict | None:
    try:
        doc = json.loads(path.read_bytes())
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _play(out, jobs, state, modules, executor, progress, write_board, stage) -> None:
    summaries = state["summaries"]
    for job in jobs:
        have = summaries.get(job["index"])
        if have is not None and (have["seed"], [s["bot"] for s in have["slots"]]) != (
                job["seed"], [b["name"] for b in job["bots"]]):
            raise LeagueError(f"{_folder(out, job['index'])} holds another series (seed "
                              f"{have['seed']}, not {job['seed']}, or other bots)")
    todo = [j for j in jobs if j["index"] not in summaries]
    total = len(jobs)
    if progress:
        progress(stage, total - len(todo), total)

    def got(job, result):
        if result.get("interrupted"):
            return
        if "error" in result:
            raise LeagueError(result["error"])
        _keep(state["manifest"], job["index"], result)
        summaries[job["index"]] = result["summary"]
        write_board(every=BOARD_EVERY_S)
        if progress:
            progress(stage, sum(j["index"] in summaries for j in jobs), total)

    if todo:
        executor.run(todo, modules, got)
    if any(j["index"] not in summaries for j in jobs):
        raise KeyboardInterrupt


def _keep(manifest, index: int, result: dict) -> None:
    """The series' files into ``series/NNNN`` whole (written under a temporary name, renamed;
    a folder already there is removed first), then recorded in the manifest."""
    final = _folder(manifest.out, index)
    tmp = final.with_name(f".{final.name}.{secrets.token_hex(4)}.tmp")
    files = {**result["files"], "summary.json": leaderboard.encode(result["summary"])}
    try:
        for rel, data in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_bytes(data)
        if final.exists():
            league_manifest.remove_folder(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    manifest.forget(f"series/{final.name}")
    manifest.record({f"series/{final.name}/{rel}": data for rel, data in files.items()})
