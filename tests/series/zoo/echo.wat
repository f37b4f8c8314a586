;; echo: the well-behaved control. Replies with the message itself (buffer at 1024, up to 60 KiB),
;; exports __stack_pointer like a C module, logs nothing. Used for "ok", determinism and the cache.
(module
  (memory (export "memory") 2)
  (global $sp (export "__stack_pointer") (mut i32) (i32.const 1024))
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param $len i32) (result i32)
    (if (result i32) (i32.le_u (local.get $len) (i32.const 61440))
      (then (i32.const 1024)) (else (i32.const 0))))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
            (i64.extend_i32_u (local.get $len)))))
