"""What a finished series leaves on disk, and the certification's verdict.

`check_writable` makes sure, before a series runs, that its output folder can be written.
`write_results` writes ``results.json``; `write_all` writes the replay file
(`replay.replay_document`, canonical JSON), the viewer page (`viewer.render`) and each slot's
``holdem.log`` lines into the output folder next to it. Every file is written whole or not at
all (`write_file`: a temporary name in the same folder, then moved into place), so an
interrupted write leaves no partial file and an earlier file of that name untouched.
`certify_verdict` judges one policy's line of a
certification series (PROTOCOL.md §4): it passes only a complete run (every game of the variant
played, not stopped early by the wall-time limit) in which it never faulted, never timed out and
every reply was an admitted action; a cut run is "incomplete", never passed.
"""

from __future__ import annotations

import json
import os
import pathlib
import secrets

from holdemjax.series import replay, viewer
from holdemjax.series import results as results_doc
from holdemjax.series.variants import VARIANTS

__all__ = ["RESULTS_NAME", "check_writable", "discard_created", "write_file", "write_results",
           "write_all", "write_logs", "certify_verdict"]

RESULTS_NAME = "results.json"


def check_writable(out_dir) -> tuple[pathlib.Path, pathlib.Path | None]:
    """Create the output folder ``out_dir`` (and its parents) if needed and write and remove a
    probe file in it, before a series runs; raises OSError naming the folder and why it cannot
    be written (a file in the way, no permission, a read-only file system). Returns the folder
    and the outermost folder this call created (None if it existed): give both to
    `discard_created` when the series then fails, so no empty folder is left behind."""
    out = pathlib.Path(out_dir)
    created = None
    for folder in (out, *out.parents):
        if folder.exists():
            break
        created = folder
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_file(out / ".holdemjax-write-check", b"").unlink()
    except OSError as exc:
        discard_created(out, created)
        why = exc.strerror or str(exc)
        raise OSError(exc.errno, f"cannot write the outputs to {out}: {why}") from None
    return out, created


def discard_created(out, created) -> None:
    """Remove the folders `check_writable` created, from ``out`` up to ``created``, as long as
    they are empty (nothing that was written is ever removed)."""
    if created is None:
        return
    folder, created = pathlib.Path(out), pathlib.Path(created)
    while True:
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone): keep it and what is above it
            return
        if folder == created or folder == folder.parent:
            return
        folder = folder.parent


def write_file(path, data: bytes) -> pathlib.Path:
    """Write ``data`` to ``path`` whole or not at all: into a new temporary file next to it,
    then moved into place (`os.replace`). Whatever interrupts it (an error, Ctrl-C) removes the
    temporary file and leaves ``path`` as it was."""
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_results(doc: dict, out_dir) -> pathlib.Path:
    """Write ``results.json`` (canonical key order, indented) into ``out_dir``."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    return write_file(out / RESULTS_NAME, text.encode())


def write_all(series, results: dict, out_dir, policies=()) -> list[pathlib.Path]:
    """Write ``replay.json``, ``viewer.html`` and the logs of ``policies`` (`write_logs`) into
    ``out_dir``; returns the paths written, in that order."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    doc = replay.replay_document(series, results)
    replay_path = write_file(out / replay.REPLAY_NAME, replay.encode_replay(doc))
    viewer_path = write_file(out / replay.VIEWER_NAME,
                             viewer.render(results, doc).encode("utf-8"))
    logs = getattr(series, "logs", None)
    if logs is not None:  # every block's lines (research mode: not only block 0's instances)
        policies = [_Lines(lines) for lines in logs]
    return [replay_path, viewer_path, *write_logs(policies, out)]


class _Lines:
    def __init__(self, logs):
        self.logs = logs


def write_logs(policies, out_dir) -> list[pathlib.Path]:
    """``logs/slot<i>.log`` for every slot whose policy wrote ``holdem.log`` lines (its
    ``logs``: ``(tournament, text)`` pairs), one ``[t<tournament>] <text>`` line each."""
    written = []
    for slot, policy in enumerate(policies):
        lines = getattr(policy, "logs", None)
        if lines:
            log = pathlib.Path(out_dir) / "logs" / f"slot{slot}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            text = "".join(f"[t{t}] {text}\n" for t, text in lines)
            written.append(write_file(log, text.encode("utf-8")))
    return written


def certify_verdict(results: dict, slot: int = 0, name: str | None = None) -> tuple[bool, str]:
    """(passed, the one-line verdict) of the policy in ``slot`` of a certification series'
    results document (``name``: how to call it, default its recorded policy path). A fault, a
    timeout or a reply not admitted in the games played is ``FAILED``; otherwise a run with
    fewer games than the variant's, or stopped early, is ``INCOMPLETE`` (not passed)."""
    mine = results["slots"][slot]
    name = mine["policy"] if name is None else name
    problems = []
    if mine["faults"]:
        problems.append(f"fault in game {mine['faulted_at']}: "
                        f"{results_doc.fault_text(mine['faults'][0])}")
    if mine["timeouts"]:
        problems.append(f"{mine['timeouts']} timeouts")
    bad = {k: v for k, v in mine["replies"].items() if k not in ("ok", "timeout")}
    if bad:
        problems.append("replies not admitted: " + ", ".join(f"{k} x{v}" for k, v in bad.items()))
    if problems:  # a failure in the games played fails it, complete or not
        return False, f"FAILED: {name}: " + "; ".join(problems)
    required = VARIANTS[results["variant"]].tournaments
    played = results["tournaments_played"]
    if results["stopped_early"] or played < required:
        why = ("stopped early by the wall-time limit (--max-wall)" if results["stopped_early"]
               else "fewer games than the certification's")
        return False, (f"INCOMPLETE: {name}: {played} of {required} games played, {why}; "
                       "a certification passes only a complete run")
    return True, (f"PASSED: {name}: {results['tournaments_played']} games, "
                  f"{sum(mine['replies'].values())} decisions, no fault, no timeout, every "
                  "action admitted")
