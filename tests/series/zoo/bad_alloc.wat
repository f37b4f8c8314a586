;; bad_alloc: holdem_alloc refuses short messages (returns 0) and gives a buffer running past the
;; end of memory for longer ones -> "bad_alloc"; holdem_on_message traps, so a call would show.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param $len i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $len) (i32.const 10))
      (then (i32.const 0)) (else (i32.const 65500))))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (unreachable)))
