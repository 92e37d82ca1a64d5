//! A session's reader and scope, and the visibility they give every retrieval and table scan.

use std::sync::Mutex;

use super::{valid_id, AnalysesError, Principal};

/// Who runs a session's queries and which analyses its retrieval searches (`SET
/// mitra.analysis`). Kept in the session's `SessionConfig` extensions; a session without one
/// is the operator's (the CLI on its own data directory).
#[derive(Debug)]
pub struct SessionAccess {
    principal: Mutex<Principal>,
    scope: Mutex<Option<Vec<String>>>,
}

impl SessionAccess {
    /// A session run by `principal`, unscoped.
    pub fn new(principal: Principal) -> Self {
        Self {
            principal: Mutex::new(principal),
            scope: Mutex::new(None),
        }
    }

    /// The principal of a session's configuration: its `SessionAccess`'s, or the operator
    /// for a session without one (the CLI on its own data directory).
    pub fn principal_of(config: &datafusion::prelude::SessionConfig) -> Principal {
        config
            .get_extension::<SessionAccess>()
            .map_or(Principal::Operator, |a| a.principal())
    }

    /// The principal.
    pub fn principal(&self) -> Principal {
        self.principal.lock().expect("principal lock").clone()
    }

    /// Sets the principal (once the login is known).
    pub fn set_principal(&self, p: Principal) {
        *self.principal.lock().expect("principal lock") = p;
    }

    /// The session's scope: `None` searches every readable analysis.
    pub fn scope(&self) -> Option<Vec<String>> {
        self.scope.lock().expect("scope lock").clone()
    }

    /// Sets or clears the scope (already checked against the catalog).
    pub fn set_scope(&self, scope: Option<Vec<String>>) {
        *self.scope.lock().expect("scope lock") = scope;
    }
}

/// Parses a scope value: `'ID'`, `'ID1,ID2'`; `''` or `'*'` is no scope. Ids that cannot exist
/// are reported as [`AnalysesError::Unknown`], like ids that do not.
pub fn parse_scope(text: &str) -> Result<Option<Vec<String>>, AnalysesError> {
    let t = text.trim();
    if t.is_empty() || t == "*" {
        return Ok(None);
    }
    let mut out: Vec<String> = Vec::new();
    for id in t.split(',').map(str::trim) {
        if !valid_id(id) {
            return Err(AnalysesError::Unknown(id.chars().take(128).collect()));
        }
        if !out.iter().any(|x| x == id) {
            out.push(id.to_string());
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visibility::Visibility;
    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn scope_and_access_rules() {
        assert_eq!(parse_scope("").unwrap(), None);
        assert_eq!(parse_scope(" * ").unwrap(), None);
        assert_eq!(
            parse_scope("a, b,a").unwrap(),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        assert!(matches!(
            parse_scope("a,'b"),
            Err(AnalysesError::Unknown(_))
        ));
        assert!(matches!(
            parse_scope("a,,b"),
            Err(AnalysesError::Unknown(_))
        ));
        let readable: HashSet<String> = ["a".to_string(), "b".to_string()].into();
        let v = Visibility {
            readable: Some(Arc::new(readable)),
            scope: None,
        };
        assert!(v.allows(None) && v.allows(Some("a")) && !v.allows(Some("c")));
        assert_eq!(
            v.lance_predicate().unwrap(),
            "(analysis_id IS NULL OR analysis_id IN ('a', 'b'))"
        );
        let s = Visibility {
            scope: Some(vec!["b".into()]),
            ..v.clone()
        };
        assert!(!s.allows(None) && !s.allows(Some("a")) && s.allows(Some("b")));
        assert_eq!(s.lance_predicate().unwrap(), "analysis_id IN ('b')");
        let none = Visibility {
            readable: Some(Arc::new(HashSet::new())),
            scope: None,
        };
        assert!(none.allows(None) && !none.allows(Some("a")));
        assert!(
            Visibility::all().allows(Some("zzz")) && Visibility::all().lance_predicate().is_none()
        );
    }
}
