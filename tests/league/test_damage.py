"""A finished league folder damaged, then the same command run again (holdemjax/league/run.py,
manifest.py): each damage is named on stderr in one line, the series it touched is played
again from its seed, and the folder ends byte for byte as the uninterrupted run's (the
results' and viewers' timing aside). Never a traceback."""

from __future__ import annotations

import json
import shutil

import pytest

from holdemjax.league import manifest, play, run
from holdemjax.league.pool import load_pool
from tests.league.conftest import SPEC

DAMAGED = "series/0001"


def _truncate(folder):
    path = folder / "summary.json"
    path.write_bytes(path.read_bytes()[:40])


def _delete(folder):
    (folder / "summary.json").unlink()


def _bump_score(folder):
    path = folder / "summary.json"
    doc = json.loads(path.read_bytes())
    doc["slots"][0]["scores"][0] += 1  # valid JSON, a better score
    path.write_text(json.dumps(doc))


def _garbage(folder):
    (folder / "results.json").write_bytes(b"\x00garbage{")


def _unrecorded(folder):
    """Killed after the series folder was renamed into place, before the manifest said so."""
    path = folder.parents[1] / manifest.MANIFEST_NAME
    doc = json.loads(path.read_bytes())
    doc["files"] = {k: v for k, v in doc["files"].items() if not k.startswith(DAMAGED + "/")}
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("damage,named", [
    (_truncate, "series/0001/summary.json: sha256 "),
    (_delete, "series/0001/summary.json: missing"),
    (_bump_score, "series/0001/summary.json: sha256 "),
    (_garbage, "series/0001/results.json: sha256 "),
    (_unrecorded, "series/0001/"),
])
def test_a_damaged_series_is_named_and_played_again(damage, named, reference, pool_dir,
                                                    tmp_path, capsys):
    from holdemjax.cli import main

    ref_out, _ = reference
    out = tmp_path / "league"
    shutil.copytree(ref_out, out)
    damage(out / DAMAGED)
    code = main(["league", str(pool_dir), "--seed", str(SPEC.seed), "--games", str(SPEC.games),
                 "--tournaments", str(SPEC.tournaments), "--final", str(SPEC.final),
                 "--final-games", str(SPEC.final_games), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err, err
    (line,) = _damage_lines(err)
    assert line.startswith("holdemjax league: series 1 is damaged, played again (") and \
        named in line, line
    assert _contents(out) == _contents(ref_out)


def test_a_damaged_manifest_trusts_nothing(reference, pool_dir, tmp_path, capsys):
    """manifest.json itself garbled: it is named, then every certification and series (none is
    recorded now) is named and done again, to the same bytes."""
    ref_out, _ = reference
    out = tmp_path / "league"
    shutil.copytree(ref_out, out)
    (out / manifest.MANIFEST_NAME).write_bytes(b'{"schema": "holdemjax.league.manifest/1", "fi')
    run.run_league(SPEC, load_pool([pool_dir]), out, play.Inline())
    lines = _damage_lines(capsys.readouterr().err)
    assert lines == [
        f"holdemjax league: manifest.json is damaged, every file is checked again "
        f"({out / manifest.MANIFEST_NAME})",
        "holdemjax league: the certifications are damaged, run again (certification.json: "
        "not in manifest.json)",
        *(f"holdemjax league: series {k} is damaged, played again (series/{k:04d}/: not in "
          "manifest.json)" for k in range(4))]
    assert _contents(out) == _contents(ref_out)


def _damage_lines(err: str) -> list[str]:
    """The lines of stderr but for the bots the certification leaves out (every run names
    them: trap_nth and wrong_abi)."""
    lines = err.strip().splitlines()
    left_out = [line for line in lines if " left out: " in line]
    assert [line.split(" left out: ")[0] for line in left_out] == \
        ["holdemjax league: trap_nth", "holdemjax league: wrong_abi"], err
    return [line for line in lines if line not in left_out]


def _contents(folder) -> dict:
    """Every file of a league folder by its path: the bytes, but for the manifest (it records
    the results' hashes) and the files that hold the timing (results.json less it; viewer.html
    left out)."""
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel == manifest.MANIFEST_NAME or path.name == "viewer.html":
            files[rel] = None
        elif path.name == "results.json":
            files[rel] = {k: v for k, v in json.loads(path.read_bytes()).items() if k != "timing"}
        else:
            files[rel] = path.read_bytes()
    return files
