;; missing_export: no holdem_alloc -> fails to load, naming holdem_alloc.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
