;; Crawler whose listing asks the host to GET the URL given as its source settings, then fails
;; with the error string "fetch failed". The host must refuse what is not granted.
(module
  (import "mitra:plugin/http@0.2.0" "fetch"
    (func $fetch (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 256) "GETfetch failed")
  (global $heap (mut i32) (i32.const 1024))
  (func $cabi_realloc (export "cabi_realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $new_size i32) (result i32)
    (local $p i32)
    ;; align up, bump, grow memory if needed
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1))) (i32.sub (i32.const 0) (local.get $align))))
    (global.set $heap (i32.add (local.get $p) (local.get $new_size)))
    (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.add (i32.shr_u (i32.sub (global.get $heap) (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1))))))
    (local.get $p))
  (func (export "mitra:plugin/crawl@0.2.0#list-documents") (param $src i32) (param $src_len i32) (result i32)
    ;; request { method "GET", url = source, headers [], secret none }, response written at 512
    (call $fetch (i32.const 256) (i32.const 3) (local.get $src) (local.get $src_len)
                 (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 512))
    ;; Err("fetch failed") at 16
    (i32.store8 (i32.const 16) (i32.const 1))
    (i32.store (i32.const 20) (i32.const 259))
    (i32.store (i32.const 24) (i32.const 12))
    (i32.const 16))
  (func (export "mitra:plugin/crawl@0.2.0#fetch-document")
    (param i32 i32) (param i32 i32) (param i32 i32) (param i32 i32) (param i32 i64) (param i32 i32 i32) (param i32 i32)
    (result i32)
    unreachable)
)
