;; wrong_abi: holdem_abi_version() returns 2; holdem_start would trap, proving it is never run.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 2))
  (func (export "holdem_start") (unreachable))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
