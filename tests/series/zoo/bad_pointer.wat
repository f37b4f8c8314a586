;; bad_pointer: replies 16 bytes at 0xFFFF0000, far outside its 64 KiB memory -> "bad_pointer".
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (i64.const 0xFFFF000000000010)))
