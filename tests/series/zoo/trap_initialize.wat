;; trap_initialize: the reactor constructor _initialize hits unreachable -> start fails.
(module
  (memory (export "memory") 1)
  (func (export "_initialize") (unreachable))
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
