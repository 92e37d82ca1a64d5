//! Retrieval metrics with trec_eval's definitions (relevant = grade > 0).
//!
//! - `ndcg_at(k)`: trec_eval `ndcg_cut.k`: gain = grade (linear), discount 1/log2(rank + 1),
//!   normalised by the ideal ordering of all judged grades.
//! - `mrr`: trec_eval `recip_rank`: 1/rank of the first relevant document, 0 if none retrieved.

use std::collections::HashMap;

/// nDCG@k of a ranked list of doc ids against graded judgments (trec_eval `ndcg_cut`).
pub fn ndcg_at(ranked: &[String], rels: &HashMap<String, i32>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| {
            let g = rels.get(d).copied().unwrap_or(0).max(0) as f64;
            g / ((i + 2) as f64).log2()
        })
        .sum();
    let mut ideal: Vec<i32> = rels.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| g as f64 / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

/// Reciprocal rank of the first relevant document (trec_eval `recip_rank`).
pub fn mrr(ranked: &[String], rels: &HashMap<String, i32>) -> f64 {
    ranked
        .iter()
        .position(|d| rels.get(d).is_some_and(|&g| g > 0))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64)
}

/// Collapses a ranked chunk list to documents, keeping each document's best (first) position.
pub fn doc_ranking<'a>(doc_ids: impl IntoIterator<Item = &'a str>, limit: usize) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for d in doc_ids {
        if seen.insert(d) {
            out.push(d.to_string());
            if out.len() == limit {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(pairs: &[(&str, i32)]) -> HashMap<String, i32> {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }
    fn ranked(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ndcg_and_mrr_by_hand() {
        let r = rels(&[("a", 2), ("b", 1), ("z", 0)]);
        let run = ranked(&["x", "b", "a"]);
        // dcg = 1/log2(3) + 2/log2(4) ; idcg = 2/1 + 1/log2(3)
        let want = (1.0 / 3f64.log2() + 1.0) / (2.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&run, &r, 10) - want).abs() < 1e-12);
        assert!((mrr(&run, &r) - 0.5).abs() < 1e-12);
        assert_eq!(mrr(&ranked(&["z"]), &r), 0.0);
        assert_eq!(ndcg_at(&run, &rels(&[]), 10), 0.0);
        assert_eq!(ndcg_at(&run, &r, 1), 0.0);
    }

    #[test]
    fn doc_ranking_keeps_first_occurrence() {
        let d = doc_ranking(["a", "b", "a", "c"], 2);
        assert_eq!(d, ["a", "b"]);
    }
}
