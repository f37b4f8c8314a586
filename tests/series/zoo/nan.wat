;; nan: replies the bits of 0.0 / 0.0 (f32, 4 bytes LE; the zeros are loaded so nothing is
;; folded at compile time). NaN canonicalization makes it 0x7fc00000 everywhere (x86: 0xffc00000).
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (i32.store (i32.const 2048)
      (i32.reinterpret_f32 (f32.div (f32.load (i32.const 3000)) (f32.load (i32.const 3004)))))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 4))))
