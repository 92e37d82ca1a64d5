;; Extractor that never returns: the host's epoch deadline must stop it.
(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (func $cabi_realloc (export "cabi_realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $new_size i32) (result i32)
    (local $p i32)
    ;; align up, bump, grow memory if needed
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1))) (i32.sub (i32.const 0) (local.get $align))))
    (global.set $heap (i32.add (local.get $p) (local.get $new_size)))
    (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.add (i32.shr_u (i32.sub (global.get $heap) (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1))))))
    (local.get $p))
  (func (export "mitra:plugin/extract@0.2.0#extract") (param $bytes i32) (param $bytes_len i32) (param $mt i32) (param $mt_len i32) (result i32)
    (loop $spin (br $spin))
    (i32.const 0))
)
