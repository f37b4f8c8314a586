"""The one door into a match: share links and invitations (`store.Store` inherits `Doors`).

Both kinds are tokens whose SHA-256 only is stored; both go through `Doors.door`, which
refuses when nobody can join any more (closed match, closed field, full), so a closed field
refuses an invitation and a share link alike. An invitation is used up by its first join; a
share link admits at most its ``cap`` of joins (issue 36: one client cannot fill a match through
it; the service adds one line per browser on top, `routes`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from holdemjax.duplicate.names import fold, normal, require_participant
from holdemjax.duplicate.spec import MatchError
from holdemjax.validate import require_int

__all__ = ["Doors", "key_hash", "Unknown", "WrongKey", "Refused"]


class Refused(MatchError):
    """The match refuses the request: closed, full, field closed, a name taken, a door used
    (the service: 409)."""


class Unknown(MatchError):
    """No match by that id (the service: 404). The message names the id asked for and nothing
    else: not the store's path, not the other matches."""


class WrongKey(MatchError):
    """A line's key check failed (the service: 403). One message for every failure, whatever
    the line's state (playing, paused, never opened, finished), whatever the name and whether
    it exists, so that nobody learns who is playing by trying keys: `WrongKey.of`."""

    @classmethod
    def of(cls, match_id: str, name: str) -> WrongKey:
        del name  # never in the message: the answer must not depend on the line asked for
        return cls(f"no line of that name opens with that key in match {match_id} (the key is "
                   "the one joining returned: header X-Line-Key)")


def key_hash(key: str) -> str:
    """SHA-256 (hex) of a key or token: what the store keeps of it."""
    return hashlib.sha256(key.encode()).hexdigest()


_key_hash = key_hash


class Doors:
    """Share links and invitations of the store's matches, and who may join (methods of
    `store.Store`; their rows through its `insert_door`, `find_door`, `use_door`)."""

    def add_door(self, match_id: str, kind: str = "share", name: str | None = None, *,
                 cap: int | None = None, token: str | None = None) -> str:
        """A new way in: a ``"share"`` link anyone may use, up to ``cap`` joins (None: no cap
        but the match's), or an ``"invite"`` for one person (``name``, if given, is the name it
        joins under). ``token``: the link's token (None: 128 random bits; the service derives
        its share tokens from its secret, so it can show the link again). Returns the token
        (only its hash is kept; adding a token twice adds one door)."""
        if kind not in ("share", "invite"):
            raise ValueError(f"a door is 'share' or 'invite', got {kind!r}")
        if name is not None:
            name = normal(name)  # BadName when the operator's name breaks the rules
        if cap is not None:
            require_int("cap", cap, 1)
        self.match(match_id)
        token = secrets.token_urlsafe(16) if token is None else token
        self.insert_door(match_id, _key_hash(token), kind, name, cap if kind == "share" else None)
        return token

    def door(self, match_id: str, token: str) -> dict:
        """``{"kind", "name"}`` of a usable door; MatchError when the token is unknown or used,
        or when nobody can join (closed match, closed field, full): one door for both kinds."""
        row = self.find_door(match_id, _key_hash(str(token)))
        if row is None:
            raise Refused(f"no such invitation or share link for match {match_id}")
        if row["used_by"] is not None:
            raise Refused(f"this invitation to match {match_id} was used")
        if row["cap"] is not None and row["joins"] >= row["cap"]:
            raise Refused(f"this share link to match {match_id} has admitted its {row['cap']} "
                          "participants")
        m = self.match(match_id)
        if m.state != "open" or m.field_complete(len(self.participants(match_id))):
            raise Refused(f"match {match_id} takes no more participants"
                               + (f" ({m.close_reason})" if m.state != "open" else ""))
        return {"kind": row["kind"], "name": row["name"]}

    def check_can_join(self, match_id: str, name: str, *, reference: bool = False) -> None:
        """Why ``name`` cannot join: `names.BadName` (a ValueError) for a name that breaks the
        rules of `names.normal` or is not written in its normal form; `doors.Refused` for a
        name taken (`names.fold`: case and look-alike letters do not make a new name), a
        closed match, a full one, a closed field."""
        mine = require_participant(name, reference=reference)
        taken = next((p.name for p in self.participants(match_id, references=True)
                      if fold(p.name) == mine), None)
        if taken is not None:
            same = "" if taken == name else f" (as {taken!r}: case and look-alike letters count"\
                                            " as the same name)"
            raise Refused(f"{name!r} already took part in match {match_id}{same}")
        m = self.match(match_id)
        if not reference and m.state != "open":
            raise Refused(f"match {match_id} is closed ({m.close_reason})")
        if not reference and m.field_complete(len(self.participants(match_id))):
            raise Refused(f"match {match_id} takes no more participants ("
                          + ("field closed)" if m.field_closed else
                             f"full: {m.spec.participants} participants joined)"))

    def join_by_door(self, match_id: str, token: str, name: str, kind: str, source: str,
                     now: dt.datetime) -> str:
        """`join` through a door (`door`); an invite is used up. Returns the line's key."""
        door, hashed = self.door(match_id, token), _key_hash(str(token))
        if door["name"] is not None and name != door["name"]:
            raise Refused(f"this invitation is for {door['name']!r}, not {name!r}")
        if door["kind"] == "share" and not self.count_join(match_id, hashed):
            raise Refused(f"this share link to match {match_id} has admitted its participants")
        try:
            key = self.join(match_id, name, kind, source, "", now)
        except BaseException:
            if door["kind"] == "share":
                self.count_join(match_id, hashed, -1)  # the place is given back
            raise
        if door["kind"] == "invite":
            self.use_door(match_id, hashed, name)
        return key
