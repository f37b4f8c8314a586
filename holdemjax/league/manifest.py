"""The league folder's manifest: every file the league wrote, with its SHA-256.

Each file is written whole (a temporary name beside it, then `os.replace`; a series folder is
renamed into place whole) and then recorded in ``manifest.json``. On resume a file is trusted
only when its bytes hash to what the manifest recorded: a file missing, truncated, edited or
never recorded (a kill between the rename and the record) is found, and its job is done again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import secrets
import shutil

__all__ = ["MANIFEST_NAME", "Manifest", "sha256", "remove_folder"]

MANIFEST_NAME = "manifest.json"
SCHEMA = "holdemjax.league.manifest/1"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def remove_folder(folder: pathlib.Path) -> None:
    """Remove ``folder`` so that a kill midway leaves no half folder under its name: it is
    renamed to a hidden ``.NAME.*.tmp`` first (the league removes those when it opens)."""
    aside = folder.with_name(f".{folder.name}.{secrets.token_hex(4)}.tmp")
    os.replace(folder, aside)
    shutil.rmtree(aside, ignore_errors=True)


class Manifest:
    """``files``: each recorded file's path (relative to the league folder, ``/``-separated)
    and SHA-256. ``warn(line)`` hears of a damaged manifest (then nothing is trusted)."""

    def __init__(self, out: pathlib.Path, warn):
        self.out = out
        self.files: dict[str, str] = {}
        path = out / MANIFEST_NAME
        if not path.exists():
            return
        try:
            doc = json.loads(path.read_bytes())
            files = doc["files"]
            if doc["schema"] != SCHEMA or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
                raise ValueError
            self.files = dict(files)
        except (ValueError, KeyError, TypeError, AttributeError):
            warn(f"holdemjax league: {MANIFEST_NAME} is damaged, every file is checked again "
                 f"({path})")

    def write(self, rel: str, data: bytes) -> None:
        """Write ``data`` to ``rel`` whole and record it."""
        from holdemjax.series.output import write_file

        write_file(self.out / rel, data)
        self.files[rel] = sha256(data)
        self.save()

    def record(self, files: dict[str, bytes]) -> None:
        """Record files already in place (``{rel: bytes}``)."""
        self.files.update({rel: sha256(data) for rel, data in files.items()})
        self.save()

    def forget(self, folder: str) -> None:
        """Drop every record under ``folder`` (relative)."""
        self.files = {k: v for k, v in self.files.items() if not k.startswith(folder + "/")}

    def save(self) -> None:
        from holdemjax.series.output import write_file

        text = json.dumps({"schema": SCHEMA, "files": self.files}, indent=1, sort_keys=True)
        write_file(self.out / MANIFEST_NAME, text.encode() + b"\n")

    def problem(self, rel: str) -> str | None:
        """Why the file ``rel`` cannot be trusted (``"PATH: missing"``, ``"PATH: sha256 X,
        recorded Y"``, ``"PATH: not in manifest.json"``), or None."""
        want = self.files.get(rel)
        path = self.out / rel
        if not path.is_file():
            return f"{rel}: missing"
        if want is None:
            return f"{rel}: not in {MANIFEST_NAME}"
        got = sha256(path.read_bytes())
        return None if got == want else f"{rel}: sha256 {got[:12]}, recorded {want[:12]}"

    def folder_problem(self, folder: str) -> str | None:
        """The first reason (`problem`) a file of ``folder`` cannot be trusted: every file
        recorded under it is there and whole, and no file there is unrecorded; or None."""
        here = {p.relative_to(self.out).as_posix()
                for p in (self.out / folder).rglob("*") if p.is_file()}
        recorded = {k for k in self.files if k.startswith(folder + "/")}
        if not recorded:
            return f"{folder}/: not in {MANIFEST_NAME}"
        for rel in sorted(recorded | here):
            why = self.problem(rel)
            if why is not None:
                return why
        return None
