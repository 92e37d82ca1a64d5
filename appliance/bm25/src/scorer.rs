//! Lucene BM25 computed term at a time over tantivy postings, with configurable `k1` and `b`.
//!
//! `score(d) = Σ_t idf(t) · tf / (tf + k1 · (1 − b + b · dl / avgdl))`,
//! `idf(t) = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))`. `dl` is the exact token count of the field,
//! read from a u64 fast field; `avgdl` is the field's token total over `N`. Statistics include
//! deleted-but-unmerged documents, as in Lucene.

use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Searcher, Term, TERMINATED};

/// One scored field: its postings and the fast field holding each document's token count.
#[derive(Debug, Clone, Copy)]
pub struct ScoredField {
    /// The indexed text field.
    pub field: Field,
    /// Name of the u64 fast field with the exact token count of `field`.
    pub len_field: &'static str,
}

/// The top `k` documents for `terms` (index into `fields`, term text); duplicates count twice.
/// Candidates tied with the k-th score are all returned so that callers can break ties exactly.
pub fn top_k(
    searcher: &Searcher,
    fields: &[ScoredField],
    terms: &[(usize, String)],
    k1: f32,
    b: f32,
    k: usize,
) -> tantivy::Result<Vec<(f32, DocAddress)>> {
    let total_docs: u64 = searcher
        .segment_readers()
        .iter()
        .map(|s| u64::from(s.max_doc()))
        .sum();
    if total_docs == 0 || k == 0 || terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut avgdl = Vec::with_capacity(fields.len());
    for f in fields {
        let mut tokens = 0u64;
        for seg in searcher.segment_readers() {
            tokens += seg.inverted_index(f.field)?.total_num_tokens();
        }
        avgdl.push((tokens as f32 / total_docs as f32).max(f32::MIN_POSITIVE));
    }
    let mut query: Vec<(usize, Term, f32)> = Vec::with_capacity(terms.len());
    for (fi, text) in terms {
        let term = Term::from_field_text(fields[*fi].field, text);
        let df = searcher.doc_freq(&term)?;
        if df == 0 {
            continue;
        }
        let x = (total_docs - df) as f32 + 0.5;
        query.push((*fi, term, (1.0 + x / (df as f32 + 0.5)).ln()));
    }
    let mut candidates: Vec<(f32, DocAddress)> = Vec::new();
    let mut acc: Vec<f32> = Vec::new();
    let mut touched: Vec<u32> = Vec::new();
    for (seg_ord, seg) in searcher.segment_readers().iter().enumerate() {
        acc.clear();
        acc.resize(seg.max_doc() as usize, 0.0);
        touched.clear();
        for (fi, term, idf) in &query {
            let f = fields[*fi];
            let inv = seg.inverted_index(f.field)?;
            let Some(mut postings) = inv.read_postings(term, IndexRecordOption::WithFreqs)? else {
                continue;
            };
            let lens = seg.fast_fields().u64(f.len_field)?;
            let (c1, c2) = (k1 * (1.0 - b), k1 * b / avgdl[*fi]);
            let mut doc = postings.doc();
            while doc != TERMINATED {
                let tf = postings.term_freq() as f32;
                let norm = c1 + c2 * lens.values.get_val(doc) as f32;
                let slot = &mut acc[doc as usize];
                if *slot == 0.0 {
                    touched.push(doc);
                }
                *slot += idf * tf / (tf + norm);
                doc = postings.advance();
            }
        }
        let alive = seg.alive_bitset();
        for &doc in &touched {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                candidates.push((acc[doc as usize], DocAddress::new(seg_ord as u32, doc)));
            }
        }
    }
    if candidates.len() > k {
        let by_score = |a: &(f32, DocAddress), b: &(f32, DocAddress)| b.0.total_cmp(&a.0);
        candidates.select_nth_unstable_by(k - 1, by_score);
        let kth = candidates[k - 1].0;
        let (head, tail) = candidates.split_at(k);
        let mut keep = head.to_vec();
        keep.extend(tail.iter().filter(|c| c.0 == kth));
        candidates = keep;
    }
    Ok(candidates)
}
