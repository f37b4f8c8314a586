;; start_section: a wasm (start) function runs inside instantiation and traps -> load fails
;; (stage "start": it is policy code running on the start budget).
(module
  (memory (export "memory") 1)
  (func $boom (unreachable))
  (start $boom)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
