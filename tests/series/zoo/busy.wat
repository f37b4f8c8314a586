;; busy: at every act message (canonical act messages start with {"alive", bytes 2 and 5 are
;; 'a' and 'v'), spins 2,000,000 loop turns (about 6-8 M virtual ns: inside the default 20 ms
;; shot clock, past a 5 ms one) and replies nothing; answers other messages at once.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (local $i i32)
    (if (i32.and (i32.eq (i32.load8_u offset=2 (local.get $p)) (i32.const 97))
                 (i32.eq (i32.load8_u offset=5 (local.get $p)) (i32.const 118)))
      (then
        (local.set $i (i32.const 2000000))
        (loop $spin
          (local.set $i (i32.sub (local.get $i) (i32.const 1)))
          (br_if $spin (local.get $i)))))
    (i64.const 0)))
