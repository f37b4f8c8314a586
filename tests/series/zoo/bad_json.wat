;; bad_json: replies a truncated JSON object; at this layer that is an "ok" reply of those bytes.
(module
  (memory (export "memory") 1)
  (data (i32.const 4096) "{\"action\": \"fold\"")
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 4096) (i64.const 32)) (i64.const 17))))
