;; trap_start: holdem_start divides by zero -> start fails with INTEGER_DIVISION_BY_ZERO.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_start") (drop (i32.div_u (i32.const 1) (i32.const 0))))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
