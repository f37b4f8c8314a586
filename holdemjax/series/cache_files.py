"""The host's cache files, one way for all of them: where they live, how each is checked on
reading and written atomically. Compiled wasm modules (`holdemjax.series.wasm_module`) and the
series engine's XLA executables (`holdemjax.series.xla_cache`) both keep theirs here.

* **Folder**: `cache_root` is ``$HOLDEMJAX_CACHE`` when set, else ``$XDG_CACHE_HOME/holdemjax``,
  else ``~/.cache/holdemjax``; each kind of file has its subfolder (``wasm``, ``xla``).
* **File**: a magic line naming the kind and its version, the SHA-256 of the payload, the
  payload. `read` answers None for a missing, unreadable, foreign or damaged file (the caller
  then compiles again); both loaders trust the bytes they deserialize, so the checksum keeps a
  damaged file out of them.
* **Writing**: a temporary file in the same folder, then a rename: a reader never sees half a
  file, and two processes writing the same entry leave one whole file. A cache that cannot be
  written is skipped (`write` returns False): a cache never fails the work it speeds up.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile

__all__ = ["cache_root", "read", "write"]


def cache_root() -> pathlib.Path:
    """holdemjax's cache folder (see the module's text); not created here."""
    root = os.environ.get("HOLDEMJAX_CACHE")
    if root:
        return pathlib.Path(root).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return pathlib.Path(xdg or pathlib.Path.home() / ".cache") / "holdemjax"


def read(path: pathlib.Path, magic: bytes) -> bytes | None:
    """The payload of the cache file ``path`` written with ``magic``, or None (missing,
    unreadable, another kind or version, or damaged)."""
    try:
        blob = pathlib.Path(path).read_bytes()
    except OSError:
        return None
    head = len(magic)
    digest, payload = blob[head:head + 32], blob[head + 32:]
    if blob[:head] != magic or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def write(path: pathlib.Path, magic: bytes, payload: bytes) -> bool:
    """Store ``payload`` at ``path`` atomically (folders made as needed); False when the cache
    cannot be written (the file is then left as it was)."""
    path = pathlib.Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(magic + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
        return True
    except OSError:
        pathlib.Path(tmp).unlink(missing_ok=True)
        return False
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
