"""Heroes the operator enters: the kinds of file beyond .wasm a line may be played by
(`HeroLoaders`, given by whoever builds the CLI or the app: the ``holdemjax`` command passes its
``.msgpack`` checkpoint loaders, so this room imports none of the rooms above it), and an
entrant's whole line (`play_entrant`).
"""

from __future__ import annotations

import dataclasses
import pathlib
import tempfile
import types
from collections.abc import Callable, Mapping

from holdemjax.duplicate import match

__all__ = ["HeroLoaders", "play_entrant"]


@dataclasses.dataclass(frozen=True)
class HeroLoaders:
    """File suffix -> factory(path) of a hero (``files``), and of the same kind of hero playing
    sampled (``sampled``: ``duplicate run FILE --sample``, ``?sample=true``), for the kinds that
    can. Read-only once made."""

    files: Mapping[str, Callable] = dataclasses.field(default_factory=dict)
    sampled: Mapping[str, Callable] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        for field, table in (("files", self.files), ("sampled", self.sampled)):
            bad = [k for k in table if not (isinstance(k, str) and k.startswith("."))]
            if bad:
                raise ValueError(f"HeroLoaders.{field}: a suffix starts with '.', got {bad}")
            object.__setattr__(self, field, types.MappingProxyType(dict(table)))


def play_entrant(store, match_id: str, name: str, bot: str | None, data: bytes,
                 suffix: str | None = None, sample: bool = False,
                 heroes: HeroLoaders | None = None, key: str | None = None) -> str:
    """The operator enters a registered bot (``bot``) or an uploaded policy (``data``): a .wasm
    module, or with ``suffix`` a file of a kind of ``heroes`` (e.g. ``.msgpack``: a PPO
    checkpoint; ``sample``: played sampled). It plays its whole line now, joined with ``key``
    (the service: the house's, `house.house_key`, so a bot's line resumes after a restart);
    returns the line's status."""
    from holdemjax.duplicate.policy import WasmHero
    from holdemjax.series.wasm import PolicyLoadError

    heroes = HeroLoaders() if heroes is None else heroes
    if sample and suffix not in heroes.sampled:
        what = (f"bot {bot!r}" if bot is not None else f"suffix {suffix!r}" if suffix
                else "a .wasm module (it plays as it was built)")
        raise ValueError(f"sample=true plays an uploaded file of a kind that can be sampled "
                         f"(suffix {', '.join(sorted(heroes.sampled)) or 'none'}), not {what}")
    if bot is not None:
        if data or suffix is not None:
            extra = f"{len(data)} bytes" if data else f"suffix {suffix!r}"
            raise ValueError(f"a bot entrant takes no body (got {extra}): enter a bot by "
                             "?bot=NAME alone, or upload a policy without ?bot")
        return match.play_line(store, match_id, name, match.BotHero(bot), key=key)
    if suffix is not None and suffix not in heroes.files:
        raise ValueError(f"no participant kind {suffix!r}; registered: "
                         f"{', '.join(sorted(heroes.files)) or 'none'}")
    if suffix is None and data[:4] != b"\0asm":
        raise ValueError("the body is not a .wasm module (no \\0asm header); enter a bot by "
                         "?bot=NAME, or a checkpoint with ?suffix=.msgpack")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / f"entrant{suffix or '.wasm'}"
        path.write_bytes(data)
        loaders = heroes.sampled if sample else heroes.files
        if suffix is None:
            hero = WasmHero(str(path))  # PolicyLoadError: the service answers 422 with its cause
        else:
            try:
                hero = loaders[suffix](str(path))
            except PolicyLoadError:
                raise
            except Exception as exc:  # an upload's loader may fail any way: a 422, not a 500
                why = str(exc).replace(str(path), "the upload")  # not the server's folders
                raise ValueError(f"the uploaded {suffix} file did not load: "
                                 f"{type(exc).__name__}: {why}") from None
        hero.source = f"upload:{name}" + (" --sample" if sample else "")
        return match.play_line(store, match_id, name, hero, key=key)
