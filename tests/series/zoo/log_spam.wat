;; log_spam: message = count, ptr, len (3 x i32 LE): calls holdem.log(ptr, len) count times.
;; Memory at 4096: "bad \ff byte" (invalid UTF-8); 8192..13191: 5,000 bytes of "a".
(module
  (import "holdem" "log" (func $log (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 4096) "bad \ff byte")
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_start") (memory.fill (i32.const 8192) (i32.const 97) (i32.const 5000)))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (local $n i32)
    (local.set $n (i32.load (local.get $ptr)))
    (block $done
      (loop $line
        (br_if $done (i32.eqz (local.get $n)))
        (call $log (i32.load offset=4 (local.get $ptr)) (i32.load offset=8 (local.get $ptr)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $line)))
    (i64.const 0)))
