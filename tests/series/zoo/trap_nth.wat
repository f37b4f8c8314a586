;; trap_nth: fine for two calls (no reply), then unreachable on the third -> "trap" mid-series.
(module
  (memory (export "memory") 1)
  (global $calls (mut i32) (i32.const 0))
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (if (i32.eq (global.get $calls) (i32.const 3)) (then (unreachable)))
    (i64.const 0)))
