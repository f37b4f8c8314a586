;; recurse: message "r" -> unbounded recursion -> "trap" with STACK_OVERFLOW (wasmtime's guard
;; page, not a host crash); any other message -> no reply.
(module
  (memory (export "memory") 1)
  (func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (if (i32.ne (i32.load8_u (local.get $ptr)) (i32.const 114)) (then (return (i64.const 0))))
    (i64.extend_i32_u (call $down (i32.const 0)))))
