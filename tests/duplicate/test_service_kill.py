"""Recovery of the service from SIGKILL (issue 50, finding 3 and the SIGKILL suite): a real
``holdemjax duplicate serve`` is killed while the operator's bot entrant and the reference lines
are being played; restarted on the same store, it resumes both from their stored actions, the
hands stored before the kill are kept as they were, and the field closes ``complete``."""

from __future__ import annotations

import threading
import urllib.error

from tests.duplicate.process import serving, stored, until

HANDS = 80
SPEC = {"seats": 3, "hands": HANDS, "participants": 1, "seed": 50,
        "bots": ["advanced", "beginner"]}


def _enter(server, mid: str, seen: list) -> None:
    try:
        seen.append(server.call("POST", f"/api/matches/{mid}/entrants?name=robot&bot=advanced",
                                timeout=120))
    except (urllib.error.URLError, ConnectionError, OSError) as exc:  # killed under it
        seen.append(exc)


def test_a_killed_servers_bot_entrant_and_references_resume_and_the_field_closes(tmp_path):
    store = tmp_path / "club.sqlite"
    with serving(store) as first:
        mid = first.call("POST", "/api/matches", SPEC)["match"]
        seen: list = []
        threading.Thread(target=_enter, args=(first, mid, seen), daemon=True).start()
        until(lambda: len(stored(store, mid, "robot")[0]) >= 5, 60, "the entrant's hands")
        first.kill()
    hands, actions = stored(store, mid, "robot")
    assert 5 <= len(hands) < HANDS, "the kill must land inside the line"
    refs_before = sum(len(stored(store, mid, f"ref:{t}")[0])
                      for t in ("beginner", "intermediate", "advanced"))

    with serving(store) as second:
        assert second.get(f"/api/matches/{mid}")["references"][0] >= refs_before  # not null
        status = until(lambda: (s := second.get(f"/api/matches/{mid}"))["state"] == "closed"
                       and s, 120, "the match closing")
        assert status["close_reason"] == "complete", status
        until(lambda: not second.get(f"/api/matches/{mid}")["preparing"], 120, "references")
        board = second.get(f"/api/matches/{mid}/leaderboard")
        assert second.stop() == 0

    after, actions_after = stored(store, mid, "robot")
    assert len(after) == HANDS
    assert {h: after[h] for h in hands} == hands  # nothing acknowledged is lost or changed
    assert actions_after[:len(actions)] == actions
    assert "robot" in [row["name"] for row in board["participants"]] and not board["unfinished"]
    for tier in ("beginner", "intermediate", "advanced"):
        assert len(stored(store, mid, f"ref:{tier}")[0]) == HANDS
