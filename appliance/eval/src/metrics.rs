//! Retrieval metrics, defined as trec_eval defines them (checked against pytrec_eval to 1e-6).
//!
//! A ranking is first put in trec_eval's order: score descending, ties by doc id descending
//! (byte-wise). A document is relevant when its judgment is ≥ 1. With `R` the number of relevant
//! documents of the query and `rel_i` the judgment at rank `i` (0 when unjudged):
//! - `P@k` (trec_eval `P_k`): relevant documents in the top k, divided by k.
//! - `R@k` (`recall_k`): relevant documents in the top k, divided by R (0 when R = 0).
//! - `MRR` (`recip_rank`): 1 / rank of the first relevant document, 0 if none is retrieved.
//! - `MAP` (`map`): Σ over relevant retrieved documents of P@rank, divided by R.
//! - `Hit@k` (`success_k`): 1 when a relevant document is in the top k.
//! - `nDCG@k` (`ndcg_cut_k`): Σ_{i≤k} rel_i / log2(i + 1), divided by the same sum over the
//!   judgments sorted descending (linear gain; negative judgments count as 0).
//! - graded `nDCG@k` (the muon-collider paper): as nDCG@k with gain 2^rel − 1; equal to
//!   trec_eval's `ndcg_cut_k` on qrels whose grades are replaced by 2^rel − 1.

use std::collections::HashMap;

/// Judgments of one query: doc id → grade.
pub type Judgments = HashMap<String, i32>;

/// Every metric of one query.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueryMetrics {
    /// nDCG@5, linear gain.
    pub ndcg_5: f64,
    /// nDCG@10, linear gain.
    pub ndcg_10: f64,
    /// nDCG@5 with gain 2^rel − 1.
    pub graded_ndcg_5: f64,
    /// Reciprocal rank.
    pub mrr: f64,
    /// Precision at 1.
    pub p_1: f64,
    /// Precision at 3.
    pub p_3: f64,
    /// Precision at 5.
    pub p_5: f64,
    /// Recall at 1.
    pub r_1: f64,
    /// Recall at 3.
    pub r_3: f64,
    /// Recall at 5.
    pub r_5: f64,
    /// Recall at 100.
    pub r_100: f64,
    /// Average precision.
    pub map: f64,
    /// Success at 5.
    pub hit_5: f64,
}

/// Reads one metric of a [`QueryMetrics`].
pub type Metric = fn(&QueryMetrics) -> f64;

/// Metric names in table order, with accessors.
pub const COLUMNS: &[(&str, Metric)] = &[
    ("nDCG@5", |m| m.ndcg_5),
    ("nDCG@10", |m| m.ndcg_10),
    ("gNDCG@5", |m| m.graded_ndcg_5),
    ("MRR", |m| m.mrr),
    ("P@1", |m| m.p_1),
    ("P@3", |m| m.p_3),
    ("P@5", |m| m.p_5),
    ("R@1", |m| m.r_1),
    ("R@3", |m| m.r_3),
    ("R@5", |m| m.r_5),
    ("R@100", |m| m.r_100),
    ("MAP", |m| m.map),
    ("Hit@5", |m| m.hit_5),
];

/// Puts a scored run in trec_eval's order: score descending, ties by doc id descending.
pub fn trec_order(mut run: Vec<(String, f64)>) -> Vec<String> {
    run.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| b.0.as_bytes().cmp(a.0.as_bytes()))
    });
    run.into_iter().map(|(d, _)| d).collect()
}

fn dcg(gains: impl Iterator<Item = f64>, k: usize) -> f64 {
    gains
        .take(k)
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum()
}

fn ndcg(ranked: &[String], rels: &Judgments, k: usize, gain: fn(i32) -> f64) -> f64 {
    let g = |d: &String| gain(rels.get(d).copied().unwrap_or(0).max(0));
    let mut ideal: Vec<f64> = rels.values().map(|&r| gain(r.max(0))).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg = dcg(ideal.into_iter(), k);
    if idcg == 0.0 {
        0.0
    } else {
        dcg(ranked.iter().map(g), k) / idcg
    }
}

/// nDCG@k with linear gain (trec_eval `ndcg_cut.k`) of an ordered ranking.
pub fn ndcg_at(ranked: &[String], rels: &Judgments, k: usize) -> f64 {
    ndcg(ranked, rels, k, |r| r as f64)
}

/// nDCG@k with exponential gain 2^rel − 1.
pub fn graded_ndcg_at(ranked: &[String], rels: &Judgments, k: usize) -> f64 {
    ndcg(ranked, rels, k, |r| 2f64.powi(r) - 1.0)
}

/// Reciprocal rank of the first relevant document (trec_eval `recip_rank`).
pub fn mrr(ranked: &[String], rels: &Judgments) -> f64 {
    ranked
        .iter()
        .position(|d| is_rel(rels, d))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64)
}

fn is_rel(rels: &Judgments, d: &str) -> bool {
    rels.get(d).is_some_and(|&g| g >= 1)
}

fn num_rel(rels: &Judgments) -> usize {
    rels.values().filter(|&&g| g >= 1).count()
}

fn rel_in(ranked: &[String], rels: &Judgments, k: usize) -> f64 {
    ranked.iter().take(k).filter(|d| is_rel(rels, d)).count() as f64
}

/// Precision at k (trec_eval `P_k`).
pub fn precision_at(ranked: &[String], rels: &Judgments, k: usize) -> f64 {
    rel_in(ranked, rels, k) / k as f64
}

/// Recall at k (trec_eval `recall_k`); 0 when the query has no relevant document.
pub fn recall_at(ranked: &[String], rels: &Judgments, k: usize) -> f64 {
    match num_rel(rels) {
        0 => 0.0,
        n => rel_in(ranked, rels, k) / n as f64,
    }
}

/// All metrics of one query for an ordered ranking (use [`trec_order`] for scored runs).
pub fn evaluate(ranked: &[String], rels: &Judgments) -> QueryMetrics {
    let num_rel = num_rel(rels);
    let hits: Vec<bool> = ranked.iter().map(|d| is_rel(rels, d)).collect();
    let mut ap = 0.0;
    let mut found = 0usize;
    for (i, &h) in hits.iter().enumerate() {
        if h {
            found += 1;
            ap += found as f64 / (i + 1) as f64;
        }
    }
    QueryMetrics {
        ndcg_5: ndcg_at(ranked, rels, 5),
        ndcg_10: ndcg_at(ranked, rels, 10),
        graded_ndcg_5: graded_ndcg_at(ranked, rels, 5),
        mrr: mrr(ranked, rels),
        p_1: precision_at(ranked, rels, 1),
        p_3: precision_at(ranked, rels, 3),
        p_5: precision_at(ranked, rels, 5),
        r_1: recall_at(ranked, rels, 1),
        r_3: recall_at(ranked, rels, 3),
        r_5: recall_at(ranked, rels, 5),
        r_100: recall_at(ranked, rels, 100),
        map: if num_rel == 0 {
            0.0
        } else {
            ap / num_rel as f64
        },
        hit_5: if rel_in(ranked, rels, 5) > 0.0 {
            1.0
        } else {
            0.0
        },
    }
}

/// Mean of each metric over queries.
pub fn mean(per_query: &[QueryMetrics]) -> QueryMetrics {
    let n = per_query.len().max(1) as f64;
    let mut m = QueryMetrics::default();
    for q in per_query {
        m.ndcg_5 += q.ndcg_5 / n;
        m.ndcg_10 += q.ndcg_10 / n;
        m.graded_ndcg_5 += q.graded_ndcg_5 / n;
        m.mrr += q.mrr / n;
        m.p_1 += q.p_1 / n;
        m.p_3 += q.p_3 / n;
        m.p_5 += q.p_5 / n;
        m.r_1 += q.r_1 / n;
        m.r_3 += q.r_3 / n;
        m.r_5 += q.r_5 / n;
        m.r_100 += q.r_100 / n;
        m.map += q.map / n;
        m.hit_5 += q.hit_5 / n;
    }
    m
}

/// Collapses a ranked chunk list of (doc id, score) to documents, keeping each document's best
/// (first) entry: document score = max over its chunks.
pub fn best_per_doc<'a>(
    hits: impl IntoIterator<Item = (&'a str, f64)>,
    limit: usize,
) -> Vec<(String, f64)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (d, score) in hits {
        if out.len() == limit {
            break;
        }
        if seen.insert(d) {
            out.push((d.to_string(), score));
        }
    }
    out
}

/// As [`best_per_doc`], doc ids only.
pub fn doc_ranking<'a>(doc_ids: impl IntoIterator<Item = &'a str>, limit: usize) -> Vec<String> {
    best_per_doc(doc_ids.into_iter().map(|d| (d, 0.0)), limit)
        .into_iter()
        .map(|(d, _)| d)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(pairs: &[(&str, i32)]) -> Judgments {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }
    fn ranked(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn by_hand() {
        let r = rels(&[("a", 2), ("b", 1), ("z", 0)]);
        let run = ranked(&["x", "b", "a"]);
        let want = (1.0 / 3f64.log2() + 1.0) / (2.0 + 1.0 / 3f64.log2());
        let m = evaluate(&run, &r);
        assert!((m.ndcg_10 - want).abs() < 1e-12);
        let gwant = (1.0 / 3f64.log2() + 3.0 / 2.0) / (3.0 + 1.0 / 3f64.log2());
        assert!((m.graded_ndcg_5 - gwant).abs() < 1e-12);
        assert_eq!(m.mrr, 0.5);
        assert_eq!(m.p_1, 0.0);
        assert!((m.p_3 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(m.r_3, 1.0);
        assert!((m.map - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
        assert_eq!(m.hit_5, 1.0);
        assert_eq!(evaluate(&ranked(&["z"]), &r).mrr, 0.0);
        assert_eq!(ndcg_at(&run, &rels(&[]), 10), 0.0);
    }

    #[test]
    fn trec_eval_tie_order() {
        // Ties go to the larger doc id first, as trec_eval does.
        let order = trec_order(vec![
            ("a".into(), 1.0),
            ("x".into(), 1.0),
            ("b".into(), 0.5),
        ]);
        assert_eq!(order, ["x", "a", "b"]);
    }

    #[test]
    fn doc_ranking_keeps_first_occurrence() {
        let d = doc_ranking(["a", "b", "a", "c"], 2);
        assert_eq!(d, ["a", "b"]);
    }
}
