;; grow: message = pages (i32 LE), trap flag (byte 4). memory.grow(pages); reply the result as
;; 4 bytes LE (old size in pages, or -1 when refused); with the flag set, unreachable instead.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (i32.store (i32.const 2048) (memory.grow (i32.load (local.get $ptr))))
    (if (i32.load8_u offset=4 (local.get $ptr)) (then (unreachable)))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 4))))
