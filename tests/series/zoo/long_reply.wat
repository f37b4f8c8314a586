;; long_reply: replies 5,000 bytes (in bounds) -> "reply_too_long" (the cap is 4,096).
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 8192) (i64.const 32)) (i64.const 5000))))
