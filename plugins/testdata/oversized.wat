;; Extractor that returns one block of 16 MiB (NUL characters: valid UTF-8).
;; Return area at 16: result tag, then extraction { blocks: list<block>, skipped: list }.
;; The block record at 64: kind (u8), page option<u32> at 4, text (ptr, len) at 12, level
;; option<u8> at 20 (left zero: none).
(module
  (memory (export "memory") 260)
  (global $heap (mut i32) (i32.const 17039360))
  (func $cabi_realloc (export "cabi_realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $new_size i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1))) (i32.sub (i32.const 0) (local.get $align))))
    (global.set $heap (i32.add (local.get $p) (local.get $new_size)))
    (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.add (i32.shr_u (i32.sub (global.get $heap) (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1))))))
    (local.get $p))
  (func (export "mitra:plugin/extract@0.2.0#extract") (param $bytes i32) (param $bytes_len i32) (param $mt i32) (param $mt_len i32) (result i32)
    ;; block at 64: kind body (1), page none, text at 65536, 16 MiB long
    (i32.store8 (i32.const 64) (i32.const 1))
    (i32.store8 (i32.const 68) (i32.const 0))
    (i32.store (i32.const 76) (i32.const 65536))
    (i32.store (i32.const 80) (i32.const 16777216))
    ;; Ok(extraction { blocks: [block], skipped: [] })
    (i32.store8 (i32.const 16) (i32.const 0))
    (i32.store (i32.const 20) (i32.const 64))
    (i32.store (i32.const 24) (i32.const 1))
    (i32.store (i32.const 28) (i32.const 0))
    (i32.store (i32.const 32) (i32.const 0))
    (i32.const 16))
)
