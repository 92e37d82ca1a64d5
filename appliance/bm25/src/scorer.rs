//! Lucene BM25 computed term at a time over tantivy postings, with configurable `k1` and `b`.
//!
//! `score(d) = Σ_t idf(t) · tf / (tf + k1 · (1 − b + b · dl / avgdl))`,
//! `idf(t) = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))`. `dl` is the exact token count of the field,
//! read from a u64 fast field; `avgdl` is the field's token total over `N`. Statistics include
//! deleted-but-unmerged documents, as in Lucene.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tantivy::columnar::Column;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, Searcher, Term};

/// One scored field: its postings and the fast field holding each document's token count.
#[derive(Debug, Clone, Copy)]
pub struct ScoredField {
    /// The indexed text field.
    pub field: Field,
    /// Name of the u64 fast field with the exact token count of `field`.
    pub len_field: &'static str,
}

thread_local! {
    /// Score accumulator (kept all-zero between queries) and the list of touched documents.
    static SCRATCH: std::cell::RefCell<(Vec<f32>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// A filter on the documents a query may return, applied before the top-k (a pre-filter).
pub struct DocFilter<'a> {
    /// Whether document `(segment ordinal, doc id)` may be returned.
    pub keep: &'a dyn Fn(u32, u32) -> bool,
    /// The subset N, document frequencies and average lengths are computed over (`None`:
    /// the whole collection, as without a filter).
    pub stats: Option<SubsetStats<'a>>,
}

/// Collection statistics of a subset of the documents.
pub struct SubsetStats<'a> {
    /// Whether a document is in the subset (document frequencies count these).
    pub member: &'a dyn Fn(u32, u32) -> bool,
    /// Documents in the subset (deleted ones included, as in the whole-collection N).
    pub docs: u64,
    /// Token total per scored field over the subset.
    pub tokens: Vec<f64>,
}

impl SubsetStats<'_> {
    fn avgdl(&self) -> Vec<f32> {
        self.tokens
            .iter()
            .map(|t| ((t / self.docs.max(1) as f64) as f32).max(f32::MIN_POSITIVE))
            .collect()
    }
}

/// Per-searcher statistics and open length columns, reusable across queries of one searcher.
pub struct ScoringStats {
    total_docs: u64,
    avgdl: Vec<f32>,
    /// `lens[segment][field][doc]`: exact token counts, decoded once per searcher.
    lens: Vec<Vec<Vec<f32>>>,
}

impl ScoringStats {
    /// Computes collection statistics and opens the length columns of every segment.
    pub fn new(searcher: &Searcher, fields: &[ScoredField]) -> tantivy::Result<Self> {
        let total_docs: u64 = searcher
            .segment_readers()
            .iter()
            .map(|s| u64::from(s.max_doc()))
            .sum();
        let mut avgdl = Vec::with_capacity(fields.len());
        for f in fields {
            let mut tokens = 0u64;
            for seg in searcher.segment_readers() {
                tokens += seg.inverted_index(f.field)?.total_num_tokens();
            }
            avgdl.push((tokens as f32 / total_docs.max(1) as f32).max(f32::MIN_POSITIVE));
        }
        let mut lens = Vec::new();
        for seg in searcher.segment_readers() {
            let mut per_field = Vec::with_capacity(fields.len());
            for f in fields {
                let col: Column<u64> = seg.fast_fields().u64(f.len_field)?;
                let decoded: Vec<f32> = (0..seg.max_doc())
                    .map(|d| col.values.get_val(d) as f32)
                    .collect();
                per_field.push(decoded);
            }
            lens.push(per_field);
        }
        Ok(Self {
            total_docs,
            avgdl,
            lens,
        })
    }
}

impl ScoringStats {
    /// Per group: documents and token totals per field, where `group(segment, doc)` assigns
    /// every document (deleted ones included) a group below `groups`. Sums of these give the
    /// [`SubsetStats`] of any union of groups without another pass over the documents.
    pub fn group_totals(
        &self,
        groups: usize,
        group: impl Fn(u32, u32) -> usize,
    ) -> Vec<(u64, Vec<f64>)> {
        let fields = self.avgdl.len();
        let mut out = vec![(0u64, vec![0f64; fields]); groups];
        for (seg, per_field) in self.lens.iter().enumerate() {
            let docs = per_field.first().map_or(0, |l| l.len());
            for doc in 0..docs {
                let g = &mut out[group(seg as u32, doc as u32)];
                g.0 += 1;
                for (f, lens) in per_field.iter().enumerate() {
                    g.1[f] += f64::from(lens[doc]);
                }
            }
        }
        out
    }
}

/// The top `k` documents for `terms` (index into `fields`, term text); duplicates count twice.
/// Candidates tied with the k-th score are all returned so that callers can break ties exactly.
/// `stats` must come from the same searcher. With `filter`, only kept documents are scored.
pub fn top_k(
    searcher: &Searcher,
    stats: &ScoringStats,
    fields: &[ScoredField],
    terms: &[(usize, &str)],
    (k1, b): (f32, f32),
    k: usize,
    filter: Option<&DocFilter<'_>>,
) -> tantivy::Result<Vec<(f32, DocAddress)>> {
    let (total_docs, avgdl) = (stats.total_docs, &stats.avgdl);
    if total_docs == 0 || k == 0 || terms.is_empty() {
        return Ok(Vec::new());
    }
    // One dictionary lookup per (segment, term): document frequency and postings both come from it.
    let segments = searcher.segment_readers();
    let mut infos: Vec<Vec<Option<tantivy::postings::TermInfo>>> = Vec::with_capacity(terms.len());
    let mut query: Vec<(usize, f32)> = Vec::with_capacity(terms.len());
    // A term repeated in the query counts once per occurrence (as Lucene's BooleanQuery does):
    // traverse its postings once with the weight multiplied.
    let mut unique: Vec<(usize, &str, f32)> = Vec::with_capacity(terms.len());
    for &(fi, text) in terms {
        match unique.iter_mut().find(|(f, t, _)| *f == fi && *t == text) {
            Some(u) => u.2 += 1.0,
            None => unique.push((fi, text, 1.0)),
        }
    }
    if let Some(f) = filter {
        return top_k_filtered(searcher, stats, fields, &unique, (k1, b), k, f);
    }
    for (fi, text, times) in &unique {
        let term = Term::from_field_text(fields[*fi].field, text);
        let mut per_seg = Vec::with_capacity(segments.len());
        let mut df = 0u64;
        for seg in segments {
            let ti = seg
                .inverted_index(fields[*fi].field)?
                .get_term_info(&term)?;
            df += ti.as_ref().map_or(0, |t| u64::from(t.doc_freq));
            per_seg.push(ti);
        }
        if df == 0 {
            continue;
        }
        let x = (total_docs - df) as f32 + 0.5;
        query.push((*fi, times * (1.0 + x / (df as f32 + 0.5)).ln()));
        infos.push(per_seg);
    }
    let mut candidates: Vec<(f32, DocAddress)> = Vec::new();
    let mut best: BinaryHeap<Reverse<Score>> = BinaryHeap::with_capacity(k + 1);
    SCRATCH.with_borrow_mut(|(acc, touched)| -> tantivy::Result<()> {
        for (seg_ord, seg) in segments.iter().enumerate() {
            if acc.len() < seg.max_doc() as usize {
                acc.resize(seg.max_doc() as usize, 0.0);
            }
            touched.clear();
            for ((fi, idf), per_seg) in query.iter().zip(&infos) {
                let Some(ti) = &per_seg[seg_ord] else {
                    continue;
                };
                let f = fields[*fi];
                let mut block = seg
                    .inverted_index(f.field)?
                    .read_block_postings_from_terminfo(ti, IndexRecordOption::WithFreqs)?;
                let lens = &stats.lens[seg_ord][*fi];
                let (c1, c2) = (k1 * (1.0 - b), k1 * b / avgdl[*fi]);
                // Whole blocks of 128 postings at a time.
                loop {
                    let docs = block.docs();
                    if docs.is_empty() {
                        break;
                    }
                    for (&doc, &tf) in docs.iter().zip(block.freqs()) {
                        let tf = tf as f32;
                        let norm = c1 + c2 * lens[doc as usize];
                        let slot = &mut acc[doc as usize];
                        if *slot == 0.0 {
                            touched.push(doc);
                        }
                        *slot += idf * tf / (tf + norm);
                    }
                    block.advance();
                }
            }
            let alive = seg.alive_bitset();
            for &doc in touched.iter() {
                let score = std::mem::take(&mut acc[doc as usize]);
                if alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                keep_best(&mut best, &mut candidates, k, score, seg_ord, doc);
            }
        }
        Ok(())
    })?;
    Ok(finish(best, candidates, k))
}

/// [`top_k`] with a filter: one pass over each term's postings counts its document frequency
/// (over the statistics subset, when there is one) and gathers the kept documents; only those
/// are scored, per segment into the dense accumulator, with the same arithmetic in the same
/// term order as the unfiltered path (so that scores agree exactly).
fn top_k_filtered(
    searcher: &Searcher,
    stats: &ScoringStats,
    fields: &[ScoredField],
    unique: &[(usize, &str, f32)],
    (k1, b): (f32, f32),
    k: usize,
    filter: &DocFilter<'_>,
) -> tantivy::Result<Vec<(f32, DocAddress)>> {
    let sub = filter.stats.as_ref();
    let (total_docs, avgdl) = match sub {
        Some(s) => (s.docs, s.avgdl()),
        None => (stats.total_docs, stats.avgdl.clone()),
    };
    if total_docs == 0 {
        return Ok(Vec::new());
    }
    let segments = searcher.segment_readers();
    // Per term: its field, weight, and per segment the kept postings.
    let mut gathered: Vec<(usize, f32, Vec<Postings>)> = Vec::with_capacity(unique.len());
    for (fi, text, times) in unique {
        let field = fields[*fi].field;
        let term = Term::from_field_text(field, text);
        let mut df = 0u64;
        let mut per_seg = vec![Vec::new(); segments.len()];
        for (seg_ord, seg) in segments.iter().enumerate() {
            let Some(ti) = seg.inverted_index(field)?.get_term_info(&term)? else {
                continue;
            };
            if sub.is_none() {
                df += u64::from(ti.doc_freq);
            }
            let (s32, kept) = (seg_ord as u32, &mut per_seg[seg_ord]);
            let alive = seg.alive_bitset();
            let mut block = seg
                .inverted_index(field)?
                .read_block_postings_from_terminfo(&ti, IndexRecordOption::WithFreqs)?;
            loop {
                let docs = block.docs();
                if docs.is_empty() {
                    break;
                }
                for (&doc, &tf) in docs.iter().zip(block.freqs()) {
                    if sub.is_some_and(|s| (s.member)(s32, doc)) {
                        df += 1;
                    }
                    if (filter.keep)(s32, doc) && alive.is_none_or(|a| a.is_alive(doc)) {
                        kept.push((doc, tf));
                    }
                }
                block.advance();
            }
        }
        if df == 0 {
            continue;
        }
        let x = total_docs.saturating_sub(df) as f32 + 0.5;
        gathered.push((*fi, times * (1.0 + x / (df as f32 + 0.5)).ln(), per_seg));
    }
    let mut candidates: Vec<(f32, DocAddress)> = Vec::new();
    let mut best: BinaryHeap<Reverse<Score>> = BinaryHeap::with_capacity(k + 1);
    SCRATCH.with_borrow_mut(|(acc, touched)| {
        for (seg_ord, seg) in segments.iter().enumerate() {
            if acc.len() < seg.max_doc() as usize {
                acc.resize(seg.max_doc() as usize, 0.0);
            }
            touched.clear();
            for (fi, idf, per_seg) in &gathered {
                let lens = &stats.lens[seg_ord][*fi];
                let (c1, c2) = (k1 * (1.0 - b), k1 * b / avgdl[*fi]);
                for &(doc, tf) in &per_seg[seg_ord] {
                    let tf = tf as f32;
                    let norm = c1 + c2 * lens[doc as usize];
                    let slot = &mut acc[doc as usize];
                    if *slot == 0.0 {
                        touched.push(doc);
                    }
                    *slot += idf * tf / (tf + norm);
                }
            }
            for &doc in touched.iter() {
                let score = std::mem::take(&mut acc[doc as usize]);
                keep_best(&mut best, &mut candidates, k, score, seg_ord, doc);
            }
        }
    });
    Ok(finish(best, candidates, k))
}

/// The kept (doc, tf) postings of one term in one segment.
type Postings = Vec<(u32, u32)>;

/// Offers a scored document to the running top k (a min-heap of the k best scores; only
/// candidates that can still make the top k, ties included, are kept).
fn keep_best(
    best: &mut BinaryHeap<Reverse<Score>>,
    candidates: &mut Vec<(f32, DocAddress)>,
    k: usize,
    score: f32,
    seg_ord: usize,
    doc: u32,
) {
    let min = best.peek().map_or(f32::MIN, |r| r.0 .0);
    if best.len() < k {
        best.push(Reverse(Score(score)));
    } else if score > min {
        best.pop();
        best.push(Reverse(Score(score)));
    } else if score < min {
        return;
    }
    candidates.push((score, DocAddress::new(seg_ord as u32, doc)));
}

/// The candidates at or above the k-th best score, best first.
fn finish(
    best: BinaryHeap<Reverse<Score>>,
    mut candidates: Vec<(f32, DocAddress)>,
    k: usize,
) -> Vec<(f32, DocAddress)> {
    if best.len() == k {
        let kth = best.peek().map_or(f32::MIN, |r| r.0 .0);
        candidates.retain(|c| c.0 >= kth);
    }
    candidates.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
    candidates
}

/// f32 ordered by `total_cmp`, for the heap.
#[derive(PartialEq)]
struct Score(f32);

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
