"""The fuel of the instructions that call into wasmtime's runtime (PROTOCOL §3).

wasmtime charges one unit of fuel for nearly every instruction, but a few are calls into the
runtime that take far more machine time than a plain instruction (`CHARGED`: ``memory.grow``,
also a refused grow or a grow by 0 pages, ``memory.fill``, ``table.grow``, ``ref.func``, ...;
PROTOCOL §3 gives the figures). A loop of them would make a virtual millisecond cost many real
ones. So before compiling, the host rewrites every function body to charge each such
instruction `RUNTIME_CALL_NS` more units: it inserts, just before the instruction,
``i32.const 0; i32.eqz; (i64.extend_i32_u; i32.wrap_i64) x 63; drop``,
which leaves the stack as it was, costs exactly `RUNTIME_CALL_NS` units (``drop`` is free) and,
folded away by the compiler, next to no machine time. The charge is fuel, so it is the same on
every machine and a series that uses it replays exactly.

`meter` reads only what it must: the code section's function bodies, instruction by instruction
(the instruction set of the engine's features: the MVP, sign extension, saturating conversions,
bulk memory, reference types, multi-value); every other section is copied byte for byte. An
instruction it does not know raises `MeterError` (the loader then lets wasmtime say what is wrong
with the module, or refuses it: nothing is compiled unmetered).
"""

from __future__ import annotations

from holdemjax.series.protocol import RUNTIME_CALL_NS

#: Bumped whenever the rewriting changes (it is part of the compiled-module cache key).
METER_VERSION = 1

_PAIRS = (RUNTIME_CALL_NS - 2) // 2  # i32.const 0 and i32.eqz are the other two units
assert 2 + 2 * _PAIRS == RUNTIME_CALL_NS, "RUNTIME_CALL_NS must be even"
#: i32.const 0, i32.eqz, (i64.extend_i32_u, i32.wrap_i64) x _PAIRS, drop
PAD = bytes([0x41, 0x00, 0x45]) + bytes([0xAD, 0xA7]) * _PAIRS + bytes([0x1A])

# Opcodes (one byte) without immediates: control, parametric, numeric (0x45-0xC4, with the
# sign-extension operators 0xC0-0xC4) and ref.is_null.
_PLAIN = frozenset([0x00, 0x01, 0x05, 0x0B, 0x0F, 0x1A, 0x1B, 0xD1, *range(0x45, 0xC5)])
_ONE_INDEX = frozenset([0x0C, 0x0D, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xD2])
_MEMARG = frozenset(range(0x28, 0x3F))
_BLOCK = frozenset([0x02, 0x03, 0x04])
_VALTYPES = frozenset([0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F])
# 0xFC sub-opcodes: how many u32 immediates each has (0-7: the saturating conversions).
_FC_IMMEDIATES = {**{i: 0 for i in range(8)}, 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2,
                  15: 1, 16: 1, 17: 1}

#: The instructions charged `RUNTIME_CALL_NS` more: the runtime calls that took over 3 ns of
#: machine time per fuel unit in a loop of them (x86, wasmtime 50; a plain loop takes 0.3-2):
#: memory.grow (~18), memory.fill (~30, even of 0 bytes), table.grow (~8), table.init (~3-4),
#: elem.drop (~6), ref.func (~40-50). memory.copy, memory.init, table.copy, table.fill (0.3-0.4:
#: charged per byte or element by wasmtime), data.drop, table.get, table.set and table.size
#: (0.5-1) are left as they are (benchmarks/bench_runtime_calls.py measures them all).
CHARGED = frozenset([0x40, 0xD2])  # memory.grow, ref.func
CHARGED_FC = frozenset([11, 12, 13, 15])  # memory.fill, table.init, elem.drop, table.grow
_CODE_SECTION = 10


class MeterError(ValueError):
    """The module could not be read as the engine's instruction set (malformed, or a feature the
    engine does not enable)."""


def _u32(data: bytes, pos: int) -> tuple[int, int]:
    """An unsigned LEB128 of at most 5 bytes at ``pos``: (value, position after it)."""
    value = shift = 0
    for _ in range(5):
        if pos >= len(data):
            raise MeterError(f"truncated integer at byte {pos}")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise MeterError(f"integer longer than 5 bytes before byte {pos}")


def _skip_leb(data: bytes, pos: int, limit: int) -> int:
    """Skip a (signed or unsigned) LEB128 of at most ``limit`` bytes."""
    for _ in range(limit):
        if pos >= len(data):
            raise MeterError(f"truncated integer at byte {pos}")
        pos += 1
        if not data[pos - 1] & 0x80:
            return pos
    raise MeterError(f"integer longer than {limit} bytes before byte {pos}")


def _leb_u32(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def meter_body(body: bytes, where: int = 0) -> tuple[bytes, int]:
    """One function body (locals and expression) with `PAD` before each charged instruction;
    and how many it charged. ``where`` is the body's offset in the module (for messages)."""
    count, pos = _u32(body, 0)
    for _ in range(count):  # local declarations: (count, valtype)
        _, pos = _u32(body, pos)
        if pos >= len(body):
            raise MeterError(f"truncated local declarations at byte {where + pos}")
        pos += 1
    out, start, charged, n = bytearray(), 0, 0, len(body)
    while pos < n:
        at, op = pos, body[pos]
        pos += 1
        if op in _PLAIN:
            continue
        if op in _ONE_INDEX:
            pos = _skip_leb(body, pos, 5)
        elif op in _MEMARG:
            align, pos = _u32(body, pos)
            if align & 0x40:  # multi-memory: a memory index follows
                pos = _skip_leb(body, pos, 5)
            pos = _skip_leb(body, pos, 5)  # offset
        elif op in _BLOCK:
            if pos >= n:
                raise MeterError(f"truncated block type at byte {where + pos}")
            one_byte = body[pos] in _VALTYPES or body[pos] == 0x40
            pos = pos + 1 if one_byte else _skip_leb(body, pos, 5)  # else a type index
        elif op in (0x3F, 0x40):  # memory.size, memory.grow: a memory index
            pos = _skip_leb(body, pos, 5)
        elif op == 0x41:
            pos = _skip_leb(body, pos, 5)
        elif op == 0x42:
            pos = _skip_leb(body, pos, 10)
        elif op == 0x43:
            pos += 4
        elif op == 0x44:
            pos += 8
        elif op == 0x0E:  # br_table: a vector of labels and the default
            labels, pos = _u32(body, pos)
            for _ in range(labels + 1):
                pos = _skip_leb(body, pos, 5)
        elif op == 0x11:  # call_indirect: type index, table index
            pos = _skip_leb(body, _skip_leb(body, pos, 5), 5)
        elif op == 0x1C:  # select with types
            types, pos = _u32(body, pos)
            pos += types
        elif op == 0xD0:  # ref.null: a heap type
            pos = _skip_leb(body, pos, 5)
        elif op == 0xFC:
            sub, pos = _u32(body, pos)
            if sub not in _FC_IMMEDIATES:
                raise MeterError(f"unknown instruction 0xfc {sub} at byte {where + at}")
            for _ in range(_FC_IMMEDIATES[sub]):
                pos = _skip_leb(body, pos, 5)
            if sub in CHARGED_FC:
                out += body[start:at] + PAD
                start, charged = at, charged + 1
            continue
        else:
            raise MeterError(f"unknown instruction 0x{op:02x} at byte {where + at}")
        if op in CHARGED:
            out += body[start:at] + PAD
            start, charged = at, charged + 1
    if pos != n:
        raise MeterError(f"an instruction runs past the end of the body at byte {where + n}")
    if not charged:
        return body, 0
    return bytes(out + body[start:]), charged


def meter(wasm: bytes) -> tuple[bytes, int]:
    """The module with every charged instruction of every function body metered (PROTOCOL §3),
    and the number of sites charged; the module itself when there are none."""
    if wasm[:8] != b"\0asm\x01\0\0\0":
        raise MeterError("not a WebAssembly 1.0 binary")
    pos, out, total = 8, bytearray(wasm[:8]), 0
    while pos < len(wasm):
        section = wasm[pos]
        size, payload = _u32(wasm, pos + 1)
        end = payload + size
        if end > len(wasm):
            raise MeterError(f"section {section} runs past the end of the module")
        if section != _CODE_SECTION:
            out += wasm[pos:end]
            pos = end
            continue
        count, p = _u32(wasm, payload)
        bodies = bytearray(_leb_u32(count))
        for _ in range(count):
            length, p = _u32(wasm, p)
            if p + length > end:
                raise MeterError(f"a function body runs past the code section at byte {p}")
            body, charged = meter_body(wasm[p:p + length], p)
            total += charged
            bodies += _leb_u32(len(body)) + body
            p += length
        if p != end:
            raise MeterError(f"the code section has {end - p} bytes after its last body")
        out += bytes([section]) + _leb_u32(len(bodies)) + bodies
        pos = end
    return (bytes(out), total) if total else (wasm, 0)
