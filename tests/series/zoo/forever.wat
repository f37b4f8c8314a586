;; forever: a C-like frame that never ends. Message "s": push 4 KiB of shadow stack, loop forever
;; (-> "timeout"). Message "p": reply with __stack_pointer (4 bytes LE), to see it was restored.
(module
  (memory (export "memory") 1)
  (global $sp (export "__stack_pointer") (mut i32) (i32.const 60000))
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (if (i32.eq (i32.load8_u (local.get $ptr)) (i32.const 112))  ;; 'p'
      (then
        (i32.store (i32.const 2048) (global.get $sp))
        (return (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 4)))))
    (global.set $sp (i32.sub (global.get $sp) (i32.const 4096)))
    (loop $spin (br $spin))
    (i64.const 0)))
