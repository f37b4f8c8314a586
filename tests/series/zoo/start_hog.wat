;; start_hog: holdem_start grows memory to 64 MiB + 64 KiB (1025 pages, what the store allows so
;; that an excess is seen) -> start fails on the 64 MiB limit.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_start") (drop (memory.grow (i32.const 1024))))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64) (i64.const 0)))
