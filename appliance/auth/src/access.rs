//! Who may read an analysis: its status and groups against a principal's groups.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// Review status of an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Work in progress: readable by its groups only.
    Draft,
    /// Under collaboration review: readable by its groups only.
    InReview,
    /// Approved by the collaboration: readable by every authenticated user.
    Approved,
    /// Published: readable by every authenticated user.
    Public,
}

impl Status {
    /// The status as written in the `analyses` table and the import file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::InReview => "in-review",
            Self::Approved => "approved",
            Self::Public => "public",
        }
    }

    /// Whether only the analysis' groups may read it.
    pub fn restricted(self) -> bool {
        matches!(self, Self::Draft | Self::InReview)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "draft" => Ok(Self::Draft),
            "in-review" => Ok(Self::InReview),
            "approved" => Ok(Self::Approved),
            "public" => Ok(Self::Public),
            other => Err(format!(
                "unknown status {other:?}: expected draft, in-review, approved or public"
            )),
        }
    }
}

/// Who runs a query: the local operator (every analysis), or an authenticated user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// The operator: the CLI on the data directory, or a loopback server without users.
    Operator,
    /// A user from the users file, with the groups it had when it logged in.
    User {
        /// Login name.
        name: String,
        /// Groups of the user.
        groups: BTreeSet<String>,
    },
}

impl Principal {
    /// A user with no groups: what a session is until its login is known.
    pub fn nobody() -> Self {
        Self::User {
            name: String::new(),
            groups: BTreeSet::new(),
        }
    }

    /// The rule: draft and in-review analyses are readable by members of their groups only;
    /// approved and public ones by every authenticated user. The operator reads everything.
    pub fn may_read(&self, status: Status, analysis_groups: &[String]) -> bool {
        match self {
            Self::Operator => true,
            Self::User { groups, .. } => {
                !status.restricted() || analysis_groups.iter().any(|g| groups.contains(g))
            }
        }
    }

    /// Whether this is the operator (no row is hidden).
    pub fn is_operator(&self) -> bool {
        matches!(self, Self::Operator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restricted_statuses_need_a_shared_group() {
        let alice = Principal::User {
            name: "alice".into(),
            groups: ["hmumu".to_string()].into(),
        };
        let g = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(alice.may_read(Status::Draft, &g(&["top", "hmumu"])));
        assert!(!alice.may_read(Status::Draft, &g(&["exotica"])));
        assert!(!alice.may_read(Status::InReview, &g(&[])));
        assert!(alice.may_read(Status::Approved, &g(&["exotica"])));
        assert!(alice.may_read(Status::Public, &g(&[])));
        assert!(!Principal::nobody().may_read(Status::Draft, &g(&[""])));
        assert!(Principal::Operator.may_read(Status::Draft, &g(&[])));
        for s in ["draft", "in-review", "approved", "public"] {
            assert_eq!(s.parse::<Status>().unwrap().as_str(), s);
        }
        assert!("Draft".parse::<Status>().is_err());
    }
}
