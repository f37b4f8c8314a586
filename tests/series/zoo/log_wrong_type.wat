;; log_wrong_type: a granted name, wrong signature (holdem.log taking an i64) -> fails to load.
(module
  (import "holdem" "log" (func (param i64)))
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
