//! Exact (flat) inner-product top-k over a row-major f32 matrix.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One result of a vector search: the row and its inner product with the query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Row index in the matrix.
    pub row: u32,
    /// Inner product (cosine for normalised vectors).
    pub score: f32,
}

/// Min-heap entry: the worst hit on top. Ties are broken by row (lower row ranks first).
struct Entry(Hit);

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // "Greater" = worse, so the heap's top is the worst kept hit.
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.score
            .total_cmp(&self.0.score)
            .then(self.0.row.cmp(&o.0.row))
    }
}

#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent accumulators so the compiler vectorises without fast-math.
    let mut acc = [0f32; 8];
    let chunks = a.len() / 8;
    for i in 0..chunks {
        let (x, y) = (&a[i * 8..i * 8 + 8], &b[i * 8..i * 8 + 8]);
        for j in 0..8 {
            acc[j] += x[j] * y[j];
        }
    }
    let mut s = (acc[0] + acc[4]) + (acc[1] + acc[5]) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for i in chunks * 8..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// The `k` rows of `matrix` (row-major, `dim` columns) with the largest inner product with
/// `query`, best first; equal scores rank the lower row first. Rows whose score is NaN
/// (a NaN stored in the vector) are skipped.
pub fn top_k(matrix: &[f32], dim: usize, query: &[f32], k: usize) -> Vec<Hit> {
    top_k_where(matrix, dim, query, k, |_| true)
}

/// As [`top_k`], over the rows `keep` accepts only (a pre-filter: `k` accepted rows come back
/// however many others score higher).
pub fn top_k_where(
    matrix: &[f32],
    dim: usize,
    query: &[f32],
    k: usize,
    keep: impl Fn(usize) -> bool,
) -> Vec<Hit> {
    assert_eq!(query.len(), dim, "query dimension");
    if k == 0 || dim == 0 {
        return Vec::new();
    }
    let mut heap: BinaryHeap<Entry> = BinaryHeap::with_capacity(k + 1);
    for (row, v) in matrix.chunks_exact(dim).enumerate() {
        if !keep(row) {
            continue;
        }
        let score = dot(v, query);
        if score.is_nan() {
            continue;
        }
        let hit = Hit {
            row: row as u32,
            score,
        };
        if heap.len() < k {
            heap.push(Entry(hit));
        } else if let Some(top) = heap.peek() {
            if Entry(hit) < *top {
                heap.pop();
                heap.push(Entry(hit));
            }
        }
    }
    let mut out: Vec<Hit> = heap.into_iter().map(|e| e.0).collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_full_sort_and_skips_nan() {
        let dim = 13;
        let n = 500;
        let mut m = Vec::with_capacity(n * dim);
        let mut x = 12345u64;
        for _ in 0..n * dim {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            m.push(((x >> 40) as f32 / (1u64 << 24) as f32) - 0.5);
        }
        m[7 * dim + 3] = f32::NAN;
        let q: Vec<f32> = (0..dim).map(|i| (i as f32).sin()).collect();
        let got = top_k(&m, dim, &q, 10);
        let mut all: Vec<Hit> = m
            .chunks_exact(dim)
            .enumerate()
            .map(|(r, v)| Hit {
                row: r as u32,
                score: v.iter().zip(&q).map(|(a, b)| a * b).sum(),
            })
            .filter(|h| !h.score.is_nan())
            .collect();
        all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
        assert_eq!(got.len(), 10);
        for (g, e) in got.iter().zip(&all) {
            assert_eq!(g.row, e.row);
            assert!((g.score - e.score).abs() < 1e-5);
        }
        assert!(got.iter().all(|h| h.row != 7));
        // Filtered: only even rows, still 10 of them, in the order of the full sort.
        let even = top_k_where(&m, dim, &q, 10, |r| r % 2 == 0);
        let expect: Vec<u32> = all
            .iter()
            .map(|h| h.row)
            .filter(|r| r % 2 == 0)
            .take(10)
            .collect();
        assert_eq!(even.iter().map(|h| h.row).collect::<Vec<_>>(), expect);
        // Ties: equal scores rank the lower row first.
        let t = top_k(&[1.0, 1.0, 1.0], 1, &[1.0], 2);
        assert_eq!(t.iter().map(|h| h.row).collect::<Vec<_>>(), vec![0, 1]);
    }
}
