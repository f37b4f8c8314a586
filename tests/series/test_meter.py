"""PROTOCOL §3 "Runtime calls cost 128 units more": holdemjax.series.meter rewrites a module so
that each charged instruction costs exactly RUNTIME_CALL_NS more fuel, leaves everything else as it
was, and the loader never compiles a module unmetered."""

from __future__ import annotations

import pytest
import wasmtime

from holdemjax.series import meter, wasm_module
from holdemjax.series import wasm as series_wasm
from holdemjax.series.policies import bundled
from holdemjax.series.protocol import RUNTIME_CALL_NS
from holdemjax.series.wasm_module import engine, new_store

# One function per instruction kind, each running it once (with its operands), plus controls.
SITES = {
    "memory.grow": ("(drop (memory.grow (i32.const 0)))", True),
    "memory.fill": ("(memory.fill (i32.const 0) (i32.const 1) (i32.const 8))", True),
    "table.grow": ("(drop (table.grow $t (ref.null func) (i32.const 1)))", True),
    "table.init": ("(table.init $t $e (i32.const 0) (i32.const 0) (i32.const 1))", True),
    "elem.drop": ("(elem.drop $e)", True),
    "table.set": ("(table.set $t (i32.const 0) (ref.null func))", False),
    "ref.func": ("(drop (ref.func $f))", True),
    "memory.copy": ("(memory.copy (i32.const 0) (i32.const 8) (i32.const 8))", False),
    "memory.init": ("(memory.init $d (i32.const 0) (i32.const 0) (i32.const 2))", False),
    "table.get": ("(drop (table.get $t (i32.const 0)))", False),
    "table.size": ("(drop (table.size $t))", False),
    "memory.size": ("(drop (memory.size))", False),
    "plain": ("(drop (i32.add (i32.const 1) (i32.const 2)))", False),
}
# Every immediate kind the decoder reads, in one body: blocks with types, br_table, call_indirect,
# typed select, memargs, the four constants (with multi-byte LEBs), saturating conversions.
EVERYTHING = """
  (local $x i64) (local $y f64) (local f32 i32)
  (drop (block $out (result i32)
    (loop $l (br_if $l (i32.const 0)))
    (br_table $out $out $out
      (if (result i32) (i32.const -1234567) (then (i32.const 1)) (else (i32.const 2)))
      (i32.const 300))))
  (local.set $x (i64.const -9223372036854775807))
  (local.set $y (f64.const 1.5e300))
  (drop (i32.trunc_sat_f32_s (f32.const -3.5)))
  (drop (select (result i64) (local.get $x) (i64.const 7) (i32.const 1)))
  (drop (i64.load offset=40000 align=4 (i32.const 0)))
  (i32.store8 offset=3 (i32.const 0) (i32.extend8_s (i32.const 255)))
  (call_indirect $t (type $v) (i32.const 0))
  (drop (memory.grow (i32.const 0)))
"""


def _module(body: str) -> bytes:
    return bytes(wasmtime.wat2wasm(f"""(module (memory 1) (type $v (func)) (table $t 4 funcref)
      (func $f) (data $d "abcdef") (elem $e func $f) (elem declare func $f)
      (elem (table $t) (i32.const 0) func $f)
      (func (export "run") {body}))"""))


def _fuel(wasm: bytes) -> int:
    """Fuel of one call of "run" in a module compiled as it is (no metering)."""
    store = new_store()
    store.set_fuel(10**9)
    instance = wasmtime.Instance(store, wasmtime.Module(engine(), wasm), [])
    instance.exports(store)["run"](store)
    return 10**9 - store.get_fuel()


@pytest.mark.parametrize("name", list(SITES))
def test_each_runtime_call_costs_exactly_the_extra_units(name):
    body, charged = SITES[name]
    wasm = _module(body)
    metered, sites = meter.meter(wasm)
    assert sites == int(charged)
    assert (metered == wasm) == (not charged)  # nothing to charge: the very same bytes
    assert _fuel(metered) - _fuel(wasm) == (RUNTIME_CALL_NS if charged else 0)


def test_the_pad_leaves_the_stack_and_the_results_as_they_were():
    wat = """(module (memory 1 4)
      (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
      (func (export "size") (result i32) (memory.size)))"""
    metered, sites = meter.meter(bytes(wasmtime.wat2wasm(wat)))
    assert sites == 1
    store = new_store()
    store.set_fuel(10**6)
    ex = wasmtime.Instance(store, wasmtime.Module(engine(), metered), []).exports(store)
    assert [ex["grow"](store, 1), ex["grow"](store, 0), ex["grow"](store, 5)] == [1, 2, -1]
    assert ex["size"](store) == 2


def test_every_immediate_kind_is_read_and_every_site_in_every_body_charged():
    wasm = _module(EVERYTHING)
    metered, sites = meter.meter(wasm)
    # the pad, and the body's and section's sizes one LEB byte longer each at most
    assert sites == 1 and 0 <= len(metered) - len(wasm) - len(meter.PAD) <= 2
    assert _fuel(metered) - _fuel(wasm) == RUNTIME_CALL_NS
    two = bytes(wasmtime.wat2wasm("""(module (memory 1)
      (func (drop (memory.grow (i32.const 0))) (drop (memory.grow (i32.const 0))))
      (func (memory.fill (i32.const 0) (i32.const 0) (i32.const 0))))"""))
    assert meter.meter(two)[1] == 3


def test_the_bundled_policies_are_metered_and_load_with_it():
    for name in ("baseline", "random"):
        wasm = open(bundled(name), "rb").read()
        metered, sites = meter.meter(wasm)
        assert sites > 0  # their allocators grow and fill memory
        wasmtime.Module.validate(engine(), metered)


def test_an_instruction_the_engine_lacks_gets_wasmtimes_own_message(tmp_path):
    """SIMD is off: the meter cannot read it, and the load error is wasmtime's, as before."""
    simd = bytes(wasmtime.wat2wasm("(module (func (drop (v128.const i64x2 0 0))))"))
    with pytest.raises(meter.MeterError, match="0xfd"):
        meter.meter(simd)
    with pytest.raises(series_wasm.PolicyLoadError, match="SIMD"):
        series_wasm.load_policy(simd, cache=False)


def test_a_module_that_cannot_be_metered_is_never_compiled_as_it_is(monkeypatch):
    def refuse(wasm):
        raise meter.MeterError("unknown instruction 0xee at byte 99")

    monkeypatch.setattr(wasm_module, "meter", refuse)
    with pytest.raises(series_wasm.PolicyLoadError, match="cannot charge its runtime calls.*0xee"):
        series_wasm.load_policy(bundled("random"), cache=False)


@pytest.mark.parametrize("cut", [9, 20, -3])
def test_a_truncated_module_is_a_meter_error_not_a_crash(cut):
    wasm = _module(EVERYTHING)
    with pytest.raises(meter.MeterError):
        meter.meter(wasm[:cut])
