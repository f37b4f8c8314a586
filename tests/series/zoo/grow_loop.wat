;; grow_loop: at every act message (bytes 2 and 5 are 'a' and 'v'), calls memory.grow(0) in a loop
;; until it is stopped: 8-50 ns of machine time per grow, which wasmtime charges 1 fuel unit and
;; the host 1 + 128 (PROTOCOL §3, holdemjax/series/meter.py). Answers other messages at once.
;; It times out, as a plain loop does.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (if (i32.and (i32.eq (i32.load8_u offset=2 (local.get $p)) (i32.const 97))
                 (i32.eq (i32.load8_u offset=5 (local.get $p)) (i32.const 118)))
      (then (loop $grow (drop (memory.grow (i32.const 0))) (br $grow))))
    (i64.const 0)))
