"""Export a trained PPO policy (a `holdemjax.training.ppo` checkpoint) as a WebAssembly bot.

``export_wasm(checkpoint, out, greedy=True)`` writes a module that speaks the player protocol
(holdemjax/series/PROTOCOL.md): the actor network's float32 weights are embedded as a generated
C header (hex float literals, so every weight is exact), next to the pre-flop table of the
features and the C policy sdk/export/policy_net.c, and compiled with the bundled toolchain
(`sdk/build.py`: zig cc for wasm32-wasi as a reactor, no imports but ``holdem.*``).

The module rebuilds the observation from each ``act`` message (`act_features.observation`: one
specification, tested against the env's observation), computes `networks.features`, evaluates
the actor in float32 and replies with the chosen menu action:

* ``greedy=True``: the first largest masked logit (as ``ppo.policy(config, greedy=True)``);
* ``greedy=False``: ``jax.random.categorical`` of the masked logits with the key addressed by
  the decision's coordinates (`holdemjax.bots.coordinate_key`) from the game key
  ``fold_in(slot seed, tournament)``, as ``ppo.policy(config)`` draws with that game key.

`JaxCheckpointPolicy` is the other side: the JAX network deciding from the same messages, so
that a duplicate line of the checkpoint and one of its export can be compared on identical
deals (``holdemjax duplicate run MATCH CHECKPOINT.msgpack``). docs/export.md has the details
and what is exact.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import itertools
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.bots.random_bot import coordinate_key
from holdemjax.training import act_features, ppo
from holdemjax.training.networks import masked_logits

__all__ = [
    "SOURCE",
    "BuildError",
    "JaxCheckpointPolicy",
    "actor_layers",
    "export_wasm",
    "module_size_limit",
    "require_compiler",
    "weights_header",
]

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE = ROOT / "sdk" / "export" / "policy_net.c"
#: The extra flag over sdk/build.py's: no contraction of a * b + c into a fused multiply-add.
EXTRA_CFLAGS = ("-ffp-contract=off",)


@functools.cache
def _sdk_build():
    """sdk/build.py as a module (the toolchain of the bundled policies)."""
    spec = importlib.util.spec_from_file_location("holdem_sdk_build", ROOT / "sdk" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # this instance of sdk/build.py is ours alone: its flags plus -ffp-contract=off
    module.CFLAGS = (*module.CFLAGS, *EXTRA_CFLAGS)
    return module


class BuildError(Exception):
    """Compiling the module failed (sdk/build.py's error, re-raised under this name)."""


def require_compiler() -> None:
    """Raise `BuildError` when the export's C compiler (zig's clang, from the ``ziglang``
    package of the ``sdk`` extra) is not installed."""
    if importlib.util.find_spec("ziglang") is None:
        raise BuildError("the C compiler is missing: no module named ziglang (pip install -e "
                         "'.[sdk]' in a checkout)")


def module_size_limit() -> int:
    """The protocol's module size limit in bytes (PROTOCOL.md §1)."""
    from holdemjax.series import protocol

    return protocol.MAX_MODULE_BYTES


def actor_layers(params) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(kernel [in, out] float32, bias [out] float32), ...]`` of the actor: the hidden layers
    ``actor_0 .. actor_{k-1}`` then ``actor_out``."""
    p = params.get("params", params)
    names = sorted((k for k in p if k.startswith("actor_") and k != "actor_out"),
                   key=lambda k: int(k.split("_")[1]))
    layers = []
    for name in names + ["actor_out"]:
        kernel = np.asarray(p[name]["kernel"], np.float32)
        bias = np.asarray(p[name]["bias"], np.float32)
        layers.append((kernel, bias))
    for (k0, _), (k1, _) in itertools.pairwise(layers):
        if k0.shape[1] != k1.shape[0]:
            raise ValueError(f"actor layers do not chain: {k0.shape} then {k1.shape}")
    return layers


def _floats(values: np.ndarray) -> str:
    vals = [float(v).hex() + "f" for v in np.asarray(values, np.float32).reshape(-1)]
    return ",\n".join("    " + ", ".join(vals[i:i + 6]) for i in range(0, len(vals), 6))


def weights_header(params, config: ppo.Config, *, greedy: bool, source: str = "") -> str:
    """The generated C header ``policy_weights.h`` of an actor (see sdk/export/policy_net.c)."""
    env = ppo.make_env(config)
    layers = actor_layers(params)
    seats = env.num_players
    from holdemjax.training.networks import num_features

    if layers[0][0].shape[0] != num_features(seats):
        raise ValueError(f"the actor takes {layers[0][0].shape[0]} inputs; the features of "
                         f"{seats} seats are {num_features(seats)}")
    if layers[-1][0].shape[1] != env.num_actions or env.num_actions != 9:
        raise ValueError(f"the actor has {layers[-1][0].shape[1]} outputs; the exported menu "
                         f"has 9 actions (env {config.env_id}: {env.num_actions})")
    parts = [(f"/* Generated by holdemjax.training.export_wasm from {source or 'a checkpoint'}."
              "\n * Do not edit. Kernels are [in][out], row-major. */\n"),
             (f"#define NET_GREEDY {1 if greedy else 0}\n#define NET_SEATS {seats}\n"
              f"#define NET_LAYERS {len(layers)}\n"
              f"#define NET_MAX_WIDTH {max(k.shape[1] for k, _ in layers)}\n")]
    for i, (kernel, bias) in enumerate(layers):
        parts.append(f"static const float NET_W{i}[{kernel.size}] = {{\n{_floats(kernel)}\n}};\n")
        parts.append(f"static const float NET_B{i}[{bias.size}] = {{\n{_floats(bias)}\n}};\n")
    names = range(len(layers))
    parts.append("static const float *const NET_W[NET_LAYERS] = {"
                 + ", ".join(f"NET_W{i}" for i in names) + "};\n")
    parts.append("static const float *const NET_B[NET_LAYERS] = {"
                 + ", ".join(f"NET_B{i}" for i in names) + "};\n")
    parts.append("static const int NET_WIDTH[NET_LAYERS] = {"
                 + ", ".join(str(k.shape[1]) for k, _ in layers) + "};\n")
    return "".join(parts)


def export_wasm(checkpoint, out, *, greedy: bool = True) -> pathlib.Path:
    """Compile the policy of ``checkpoint`` to the protocol module ``out``; returns its path.

    Raises ``ValueError`` for a checkpoint whose network the exporter cannot express (other
    seat counts or action menus) and ``sdk/build.py``'s ``BuildError`` when compiling fails
    or the compiler is missing (`require_compiler`).
    """
    checkpoint, out = pathlib.Path(checkpoint), pathlib.Path(out)
    params, config = ppo.load_checkpoint(checkpoint)
    require_compiler()
    build = _sdk_build()
    digest = hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    header = weights_header(params, config, greedy=greedy,
                            source=f"{checkpoint.name} (sha256 {digest[:16]})")
    extra = {"preflop_v1.h": build.preflop_header(), "policy_weights.h": header}
    try:
        build.compile_policy(SOURCE, out, extra)
    except build.BuildError as exc:
        raise BuildError(str(exc)) from exc
    size = out.stat().st_size
    if size > module_size_limit():
        raise ValueError(f"{out}: {size:,} bytes, over the protocol's "
                         f"{module_size_limit():,}-byte module limit")
    return out


class JaxCheckpointPolicy:
    """A checkpoint's JAX policy deciding from protocol messages (the exported module's twin).

    ``menu_action(message, mask, fmt, game_key)`` -> the menu action id: the network applied to
    `act_features.observation` of the message, the legal ``mask`` of the menu, greedy or
    sampled by ``coordinate_key(game_key, hand, seat, street, decision)``.
    """

    def __init__(self, checkpoint, *, greedy: bool = True):
        self.path = str(checkpoint)
        self.params, self.config = ppo.load_checkpoint(checkpoint)
        self.greedy = greedy
        self.sha256 = hashlib.sha256(pathlib.Path(checkpoint).read_bytes()).hexdigest()
        net = ppo.make_network(self.config)

        def decide(params, obs, mask, game_key, coords):
            logits, _ = net.apply(params, obs)
            logits = masked_logits(logits, mask)
            if greedy:
                return jnp.argmax(logits).astype(jnp.int32)
            k = coordinate_key(game_key, *coords)
            return jax.random.categorical(k, logits).astype(jnp.int32)

        self._decide = jax.jit(decide)

    def menu_action(self, message: dict, mask, fmt: dict, game_key) -> int:
        obs = act_features.observation(message, fmt)
        coords = tuple(np.int32(message[k]) for k in ("hand", "seat", "street", "decision"))
        return int(self._decide(self.params, obs, np.asarray(mask, bool),
                                np.asarray(game_key, np.uint32), coords))


class CheckpointHero:
    """A checkpoint's JAX policy in the hero seat of a duplicate line (the interface of
    `holdemjax.duplicate.match.BotHero`): ``holdemjax duplicate run MATCH CHECKPOINT.msgpack``.

    It decides from the same ``act`` message and ``start`` format the exported module gets in
    that seat (`holdemjax.duplicate.policy.WasmHero`): the observation by `act_features`, the
    menu of the checkpoint's env from the hand's table, and (sampled) the game key
    ``fold_in(hero seat key, 0)`` that the module derives from its seed. A participant of kind
    ``"bot"`` whose source is the checkpoint path, with `` --sample`` when sampled (a line
    resumes only with that path and mode).
    """

    kind = "bot"

    def __init__(self, path, *, greedy: bool = True):
        self.policy = JaxCheckpointPolicy(path, greedy=greedy)
        self.source = str(path) if greedy else f"{path} --sample"
        self.sha256 = self.policy.sha256
        env = ppo.make_env(self.policy.config)
        self.seats = env.num_players
        self._menu = jax.jit(env.menu.mask_and_amounts)

    def begin(self, spec, seed: int, match_id: str) -> None:
        """Raises ValueError for a match of another seat count (the network's input is for
        ``seats`` seats; its export refuses such a table at start too)."""
        from holdemjax.duplicate import draws
        from holdemjax.duplicate.match import bot_key

        if spec.seats != self.seats:
            raise ValueError(f"checkpoint {self.source} plays {self.seats}-seat tables only (its "
                             f"network's input is for that many seats); match {match_id} has "
                             f"{spec.seats} seats: it does not join the match")

        # the format block of the start message WasmHero sends in this seat
        self.fmt = {"name": "duplicate", "kind": "duplicate", "seats": spec.seats,
                    "starting_stack": spec.stack, "hands_per_level": spec.hands,
                    "hand_cap": spec.hands,
                    "levels": [[spec.small_blind, spec.big_blind, spec.ante]], "payouts_ppm": []}
        self.game_key = np.asarray(draws.fold_in(tuple(bot_key(seed, spec.hero)), 0), np.uint32)

    def new_hand(self, hand) -> None:
        pass

    def decide(self, hand):
        from holdemjax.poker import table as tb
        from holdemjax.poker.actions import CHECK_CALL, FOLD

        mask, amounts = jax.device_get(self._menu(hand.table, hand.legal))
        action = self.policy.menu_action(hand.view(), mask, self.fmt, self.game_key)
        if action == FOLD:
            return tb.FOLD, 0, None
        if action == CHECK_CALL:
            return tb.CHECK_CALL, 0, None
        return tb.RAISE, int(amounts[action]), None

    def hand_over(self, hand, record) -> None:
        pass

    def end(self) -> None:
        pass
