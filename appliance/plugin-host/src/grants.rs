//! Capabilities: origins, the operator's grants, and what a plugin effectively gets.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::PathBuf;

use super::manifest::Manifest;
use mitra_store::config::Config;
pub use mitra_store::config::Origin;

/// Addresses a host *name* may never resolve to for a plugin (loopback, link-local including
/// the cloud metadata address 169.254.169.254, unspecified, multicast, broadcast). An operator
/// who means such an address grants it as an IP literal.
pub fn forbidden_for_names(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            a.is_loopback()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_multicast()
                || a.is_broadcast()
        }
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return forbidden_for_names(IpAddr::V4(v4));
            }
            a.is_loopback()
                || a.is_unspecified()
                || a.is_multicast()
                || (a.segments()[0] & 0xffc0) == 0xfe80
        }
    }
}

/// What one plugin may use in one run: the intersection of its request and the grants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effective {
    /// Origins it may reach.
    pub http: BTreeSet<Origin>,
    /// Secrets the host may attach for it.
    pub secrets: BTreeSet<String>,
    /// The directory it may read.
    pub directory: Option<PathBuf>,
    /// Whether it may use OCR.
    pub ocr: bool,
}

/// Extra grants of one run (a source grants its crawler its own location).
#[derive(Debug, Clone, Default)]
pub struct RunGrant {
    /// Origins granted for this run.
    pub http: Vec<Origin>,
    /// Directory granted for this run.
    pub directory: Option<PathBuf>,
}

/// Computes a plugin's effective capabilities.
pub fn effective(manifest: &Manifest, cfg: &Config, run: &RunGrant) -> Result<Effective, String> {
    let req = &manifest.capabilities;
    let grant = cfg
        .plugins
        .grants
        .get(&manifest.name)
        .cloned()
        .unwrap_or_default();
    let mut granted_origins: BTreeSet<Origin> = BTreeSet::new();
    for o in &grant.http {
        granted_origins.insert(
            Origin::parse(o).map_err(|e| format!("plugins.grants.{}.http: {e}", manifest.name))?,
        );
    }
    granted_origins.extend(run.http.iter().cloned());
    let wildcard = req.http.iter().any(|o| o == "*");
    let requested: BTreeSet<Origin> = req
        .http
        .iter()
        .filter(|o| *o != "*")
        .filter_map(|o| Origin::parse(o).ok())
        .collect();
    let http = granted_origins
        .into_iter()
        .filter(|o| wildcard || requested.contains(o))
        .collect();
    let secret_wildcard = req.secrets.iter().any(|s| s == "*");
    let secrets = grant
        .secrets
        .iter()
        .filter(|s| secret_wildcard || req.secrets.contains(s))
        .filter(|s| cfg.secrets.contains_key(*s))
        .cloned()
        .collect();
    let directory = if req.directory {
        run.directory.clone().or(grant.directory.clone())
    } else {
        None
    };
    let ocr = req.ocr && grant.ocr.unwrap_or(cfg.plugins.ocr);
    Ok(Effective {
        http,
        secrets,
        directory,
        ocr,
    })
}

impl Effective {
    /// One line for `mitra plugins list`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.http.is_empty() {
            let o: Vec<String> = self.http.iter().map(|o| o.to_string()).collect();
            parts.push(format!("http {}", o.join(",")));
        }
        if !self.secrets.is_empty() {
            let s: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
            parts.push(format!("secrets {}", s.join(",")));
        }
        if let Some(d) = &self.directory {
            parts.push(format!("dir {} (ro)", d.display()));
        }
        if self.ocr {
            parts.push("ocr".into());
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_normalise() {
        let o = Origin::parse("HTTPS://CDS.cern.ch").unwrap();
        assert_eq!(o.to_string(), "https://cds.cern.ch:443");
        assert_eq!(Origin::parse("http://127.0.0.1:8080/").unwrap().port, 8080);
        assert!(Origin::parse("ftp://x").is_err());
        assert!(Origin::parse("http://x/path").is_err());
        assert!(Origin::parse("http://u:p@x").is_err());
    }

    #[test]
    fn names_may_not_resolve_to_local_addresses() {
        for a in [
            "127.0.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(forbidden_for_names(a.parse().unwrap()), "{a}");
        }
        for a in ["10.1.2.3", "188.184.1.1", "2001:db8::1"] {
            assert!(!forbidden_for_names(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn effective_is_the_intersection() {
        let m = Manifest::parse(
            "name = \"p\"\nversion = \"1\"\napi = \"mitra:plugin@0.2.0\"\nworld = \"crawler\"\n[capabilities]\nhttp = [\"https://a.org\"]\nsecrets = [\"s\"]\n",
            "p",
        )
        .unwrap();
        let mut cfg = Config::default();
        let e = effective(&m, &cfg, &RunGrant::default()).unwrap();
        assert_eq!(e, Effective::default(), "nothing is granted by default");
        cfg.plugins.grants.insert(
            "p".into(),
            mitra_store::config::GrantConfig {
                http: vec!["https://a.org".into(), "https://b.org".into()],
                secrets: vec!["s".into(), "t".into()],
                directory: Some("/data".into()),
                ocr: None,
            },
        );
        cfg.secrets.insert(
            "s".into(),
            mitra_store::config::SecretConfig {
                header: "Cookie".into(),
                value_env: Some("X".into()),
                ..Default::default()
            },
        );
        let e = effective(&m, &cfg, &RunGrant::default()).unwrap();
        assert_eq!(e.http.len(), 1);
        assert_eq!(e.secrets.len(), 1);
        assert_eq!(e.directory, None, "not requested");
        assert!(!e.ocr, "not requested");
    }
}
