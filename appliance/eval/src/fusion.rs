//! Weighted reciprocal rank fusion of two document rankings, and the sweep grid over its knobs.
//!
//! The fusion itself is [`mitra_store::fusion::weighted_rrf`]: documents here, chunks in `hybrid()`.

use super::DocRun;

/// The `--sweep` grid: w_a from 0 to 1 in steps of 0.1 (w_b = 1 − w_a), K in {10, 30, 60, 100}.
pub fn sweep_grid() -> Vec<(f64, f64, f64)> {
    let mut g = Vec::new();
    for k in [10.0, 30.0, 60.0, 100.0] {
        for i in 0..=10 {
            let w = i as f64 / 10.0;
            g.push((w, 1.0 - w, k));
        }
    }
    g
}

/// Fuses two document rankings (best first) with [`mitra_store::fusion::weighted_rrf`] and keeps the
/// top `depth`.
pub fn rrf_fuse(a: &DocRun, b: &DocRun, w_a: f64, w_b: f64, k: f64, depth: usize) -> DocRun {
    mitra_store::fusion::weighted_rrf(
        a.iter().map(|(d, _)| d.as_str()),
        b.iter().map(|(d, _)| d.as_str()),
        w_a,
        w_b,
        k,
    )
    .into_iter()
    .take(depth)
    .map(|f| (f.id.to_string(), f.score))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ids: &[&str]) -> DocRun {
        ids.iter().map(|d| (d.to_string(), 0.0)).collect()
    }

    #[test]
    fn fuses_with_weights_and_missing_sides() {
        let a = run(&["x", "y"]);
        let b = run(&["y", "z"]);
        let f = rrf_fuse(&a, &b, 0.9, 0.1, 60.0, 10);
        // y is found by both sides: 0.9/62 + 0.1/61 beats x's 0.9/61; z only has 0.1/62.
        let order: Vec<&str> = f.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(order, ["y", "x", "z"]);
        assert!((f[0].1 - (0.9 / 62.0 + 0.1 / 61.0)).abs() < 1e-12);
        assert!((f[1].1 - 0.9 / 61.0).abs() < 1e-12);
        assert!((f[2].1 - 0.1 / 62.0).abs() < 1e-12);
        assert_eq!(sweep_grid().len(), 44);
        // At 0.9/0.1 and K 60, rank 100 on the first side outscores rank 1 on the second alone.
        let ids: Vec<String> = (0..100).map(|i| format!("a{i:03}")).collect();
        let a: DocRun = ids.iter().map(|d| (d.clone(), 0.0)).collect();
        let f = rrf_fuse(&a, &run(&["only_b"]), 0.9, 0.1, 60.0, 200);
        assert_eq!(f[99].0, "a099");
        assert_eq!(f[100].0, "only_b");
    }
}
