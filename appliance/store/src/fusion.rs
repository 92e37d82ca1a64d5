//! Weighted reciprocal rank fusion of two rankings: the one mechanism behind `hybrid()` and `mitra eval`.
//!
//! `score(x) = w_a · 1/(K + rank_a(x)) + w_b · 1/(K + rank_b(x))`, ranks from 1, a side that did
//! not return `x` contributing 0 — computed exactly as the SQL `w_a * rrf(a.rank, K) + w_b *
//! rrf(b.rank, K)` would. Ties are broken by id ascending.

/// One fused item.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused<'a> {
    /// The item's id.
    pub id: &'a str,
    /// Fused score.
    pub score: f64,
    /// Rank on side a (from 1), if that side returned the item.
    pub rank_a: Option<usize>,
    /// Rank on side b (from 1), if that side returned the item.
    pub rank_b: Option<usize>,
}

/// Fuses two rankings (ids best first; a repeated id keeps its best rank), best first.
pub fn weighted_rrf<'a>(
    a: impl IntoIterator<Item = &'a str, IntoIter: 'a>,
    b: impl IntoIterator<Item = &'a str, IntoIter: 'a>,
    w_a: f64,
    w_b: f64,
    k: f64,
) -> Vec<Fused<'a>> {
    let mut items: std::collections::HashMap<&'a str, Fused<'a>> = std::collections::HashMap::new();
    let sides: [(Box<dyn Iterator<Item = &'a str> + 'a>, bool); 2] = [
        (Box::new(a.into_iter()), true),
        (Box::new(b.into_iter()), false),
    ];
    for (ids, is_a) in sides {
        for (i, id) in ids.enumerate() {
            let f = items.entry(id).or_insert(Fused {
                id,
                score: 0.0,
                rank_a: None,
                rank_b: None,
            });
            let rank = if is_a { &mut f.rank_a } else { &mut f.rank_b };
            rank.get_or_insert(i + 1);
        }
    }
    let rrf = |r: Option<usize>| r.map(|r| 1.0 / (k + r as f64)).unwrap_or(0.0);
    let mut out: Vec<Fused<'a>> = items
        .into_values()
        .map(|mut f| {
            f.score = w_a * rrf(f.rank_a) + w_b * rrf(f.rank_b);
            f
        })
        .collect();
    out.sort_by(|x, y| y.score.total_cmp(&x.score).then_with(|| x.id.cmp(y.id)));
    out
}
