//! What one statement may see: the readable analyses and the scope, as a row rule and a Lance predicate.

use std::collections::HashSet;
use std::sync::Arc;

/// Whether `id` is a valid analysis id: 1-128 characters, ASCII letters, digits, `.`, `_`, `-`,
/// starting with a letter or digit (CMS-style `HIG-19-006` as well as `hmumu-run3`).
pub fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// What one statement may see: the analyses its user may read (`None`: all) and the scope.
#[derive(Debug, Clone, Default)]
pub struct Visibility {
    /// Readable analyses; `None` for the operator.
    pub readable: Option<Arc<HashSet<String>>>,
    /// The scope (already checked readable); `None` when unscoped.
    pub scope: Option<Vec<String>>,
}

impl Visibility {
    /// Everything (the operator, unscoped).
    pub fn all() -> Self {
        Self::default()
    }

    /// Whether nothing is filtered.
    pub fn is_unrestricted(&self) -> bool {
        self.readable.is_none() && self.scope.is_none()
    }

    /// Whether a row of `analysis` (`None`: a document without analysis) may be returned by
    /// retrieval: inside the scope when one is set, else readable (documents without an
    /// analysis are readable by all, but are outside every scope).
    pub fn allows(&self, analysis: Option<&str>) -> bool {
        match (&self.scope, analysis) {
            (Some(s), Some(a)) => s.iter().any(|x| x == a) && self.readable(a),
            (Some(_), None) => false,
            (None, Some(a)) => self.readable(a),
            (None, None) => true,
        }
    }

    /// Whether the user may read `analysis` (ignoring the scope).
    pub fn readable(&self, analysis: &str) -> bool {
        self.readable.as_ref().is_none_or(|r| r.contains(analysis))
    }

    /// The same rule as a Lance SQL predicate over `analysis_id` (`None`: no filter). Ids are
    /// valid analysis ids (no quotes), checked at import and when a scope is set.
    pub fn lance_predicate(&self) -> Option<String> {
        let quoted = |ids: &mut dyn Iterator<Item = &String>| {
            let v: Vec<String> = ids
                .filter(|i| valid_id(i))
                .map(|i| format!("'{i}'"))
                .collect();
            if v.is_empty() {
                "analysis_id IS NULL AND analysis_id IS NOT NULL".to_string()
            } else {
                format!("analysis_id IN ({})", v.join(", "))
            }
        };
        match (&self.scope, &self.readable) {
            (Some(s), _) => {
                let ids: Vec<&String> = s.iter().filter(|a| self.readable(a)).collect();
                Some(quoted(&mut ids.into_iter()))
            }
            (None, Some(r)) => {
                let mut ids: Vec<&String> = r.iter().collect();
                ids.sort();
                Some(format!(
                    "(analysis_id IS NULL OR {})",
                    quoted(&mut ids.into_iter())
                ))
            }
            (None, None) => None,
        }
    }
}
