"""The keys of the lines a machine's ``holdemjax duplicate`` commands joined, kept beside the
store (``STORE.keys.json``, mode 0600), so that ``play`` and ``run`` resume them. The store
keeps only each key's hash (`store.Store.join`)."""

from __future__ import annotations

import json
import pathlib

__all__ = ["keys_path", "kept_key", "line_key"]


def keys_path(store) -> pathlib.Path:
    return pathlib.Path(store.path + ".keys.json")


def kept_key(store, match_id: str, name: str, *, new: bool = False) -> str | None:
    """The key of line ``name`` kept beside the store (``STORE.keys.json``, mode 0600) by the
    command that joined it; ``new`` makes (and keeps) one. The store itself keeps only hashes:
    the lines this machine's commands played resume with these keys."""
    import secrets

    path = keys_path(store)
    keys = json.loads(path.read_text()) if path.exists() else {}
    if not new:
        return keys.get(match_id, {}).get(name)
    key = keys.setdefault(match_id, {}).setdefault(name, secrets.token_urlsafe(24))
    path.touch(mode=0o600)
    path.write_text(json.dumps(keys, indent=1))
    return key


def line_key(store, match_id: str, name: str) -> str | None:
    """The key to play ``name`` with: the kept one, a new one for a new name, or MatchError."""
    if store.participant(match_id, name) is None:
        return kept_key(store, match_id, name, new=True)
    key = kept_key(store, match_id, name)
    if key is None:
        from holdemjax.duplicate.spec import MatchError

        raise MatchError(f"{name!r} joined match {match_id} from elsewhere: its key is not in "
                         f"{keys_path(store)}")
    return key
