;; slow: works until it has spent the i64 (LE) number of virtual ns given in the message, polling
;; holdem.time_left_ns every 1,000 loop turns; replies 16 bytes: time left at entry, at the end.
(module
  (import "holdem" "time_left_ns" (func $left (result i64)))
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (local $t0 i64) (local $t1 i64) (local $i i32)
    (local.set $t0 (call $left))
    (block $done
      (loop $work
        (local.set $i (i32.const 1000))
        (loop $inner
          (local.set $i (i32.sub (local.get $i) (i32.const 1)))
          (br_if $inner (local.get $i)))
        (local.set $t1 (call $left))
        (br_if $done (i64.ge_u (i64.sub (local.get $t0) (local.get $t1))
                                (i64.load (local.get $ptr))))
        (br $work)))
    (i64.store (i32.const 2048) (local.get $t0))
    (i64.store (i32.const 2056) (local.get $t1))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 16))))
