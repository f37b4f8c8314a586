;; big_memory: initial memory of 2000 pages (125 MiB), above the 64 MiB limit -> fails to load.
(module
  (memory (export "memory") 2000)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
