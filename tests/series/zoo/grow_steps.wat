;; grow_steps: grows memory one page at a time, (i32 LE in the message) times, within one call.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (local $n i32)
    (local.set $n (i32.load (local.get $ptr)))
    (block $done
      (loop $step
        (br_if $done (i32.eqz (local.get $n)))
        (drop (memory.grow (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $step)))
    (i64.const 0)))
