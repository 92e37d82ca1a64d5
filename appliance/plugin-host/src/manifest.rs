//! Plugin manifests (`plugin.toml`): name, version, API version, world, requested capabilities.

use serde::{Deserialize, Serialize};

use super::PluginError;

/// The plugin API this host implements (the WIT package under `plugins/wit/`).
pub const API_VERSION: &str = "mitra:plugin@0.2.0";

/// What a plugin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum World {
    /// Lists and fetches documents (`world crawler`).
    Crawler,
    /// Turns bytes into blocks (`world extractor`).
    Extractor,
}

impl World {
    /// The interface the component must export for this world.
    pub fn export_name(self) -> &'static str {
        match self {
            World::Crawler => "mitra:plugin/crawl@0.2.0",
            World::Extractor => "mitra:plugin/extract@0.2.0",
        }
    }
}

impl std::fmt::Display for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            World::Crawler => "crawler",
            World::Extractor => "extractor",
        })
    }
}

/// Capabilities a plugin asks for. The operator's grant decides what it gets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Requested {
    /// HTTP origins (`scheme://host[:port]`), or `*` for any origin the operator grants.
    pub http: Vec<String>,
    /// Secret names, or `*` for any secret the operator grants.
    pub secrets: Vec<String>,
    /// A read-only directory.
    pub directory: bool,
    /// Host OCR.
    pub ocr: bool,
}

impl Requested {
    /// One line for `mitra plugins list`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.http.is_empty() {
            parts.push(format!("http {}", self.http.join(",")));
        }
        if !self.secrets.is_empty() {
            parts.push(format!("secrets {}", self.secrets.join(",")));
        }
        if self.directory {
            parts.push("dir (ro)".into());
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

/// A plugin manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Manifest {
    /// Unique name (`[a-z0-9-]+`).
    pub name: String,
    /// The plugin's own version.
    pub version: String,
    /// The plugin API it was built against, e.g. `mitra:plugin@0.2.0`.
    pub api: String,
    /// Crawler or extractor.
    pub world: World,
    /// One line on what it does.
    #[serde(default)]
    pub description: String,
    /// Media types an extractor handles (used when a source names no extractor).
    #[serde(default)]
    pub media_types: Vec<String>,
    /// Requested capabilities.
    #[serde(default)]
    pub capabilities: Requested,
}

impl Manifest {
    /// Parses and checks a manifest (name syntax, API compatibility).
    pub fn parse(text: &str, origin: &str) -> Result<Self, PluginError> {
        let m: Manifest = toml::from_str(text).map_err(|e| PluginError::Manifest {
            plugin: origin.to_string(),
            message: e.to_string(),
        })?;
        if m.name.is_empty()
            || !m
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(PluginError::Manifest {
                plugin: origin.to_string(),
                message: format!("name {:?} must match [a-z0-9-]+", m.name),
            });
        }
        if !api_compatible(&m.api) {
            return Err(PluginError::ApiVersion {
                plugin: m.name.clone(),
                found: m.api.clone(),
                expected: API_VERSION.to_string(),
            });
        }
        for o in &m.capabilities.http {
            if o != "*" {
                mitra_store::config::Origin::parse(o).map_err(|e| PluginError::Manifest {
                    plugin: m.name.clone(),
                    message: format!("capabilities.http: {e}"),
                })?;
            }
        }
        Ok(m)
    }
}

/// Whether a plugin built against `api` runs on this host: same package, same major version,
/// and (while the major version is 0) the same minor version; its patch may be older.
pub fn api_compatible(api: &str) -> bool {
    let Some((pkg, ver)) = api.split_once('@') else {
        return false;
    };
    let (host_pkg, host_ver) = API_VERSION.split_once('@').expect("constant");
    let parse = |v: &str| -> Option<(u64, u64, u64)> {
        let mut it = v.split('.').map(|p| p.parse::<u64>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    };
    match (parse(ver), parse(host_ver)) {
        (Some((a, b, c)), Some((x, y, z))) if pkg == host_pkg && a == x => {
            if a == 0 {
                b == y && c <= z
            } else {
                b <= y
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_versions() {
        assert!(api_compatible("mitra:plugin@0.2.0"));
        // 0.2 changed the block record (heading levels): 0.1 plugins no longer link.
        assert!(!api_compatible("mitra:plugin@0.1.0"));
        assert!(!api_compatible("mitra:plugin@0.3.0"));
        assert!(!api_compatible("mitra:plugin@1.0.0"));
        assert!(!api_compatible("other:plugin@0.1.0"));
        assert!(!api_compatible("mitra:plugin"));
    }

    #[test]
    fn manifests_are_checked() {
        let ok = "name = \"a-b\"\nversion = \"1\"\napi = \"mitra:plugin@0.2.0\"\nworld = \"crawler\"\n[capabilities]\nhttp = [\"https://cds.cern.ch\"]\n";
        assert_eq!(Manifest::parse(ok, "x").unwrap().world, World::Crawler);
        let bad_api = ok.replace("0.2.0", "0.9.0");
        assert!(matches!(
            Manifest::parse(&bad_api, "x"),
            Err(PluginError::ApiVersion { .. })
        ));
        let bad_name = ok.replace("a-b", "A B");
        assert!(Manifest::parse(&bad_name, "x").is_err());
        let bad_origin = ok.replace("https://cds.cern.ch", "cds.cern.ch/path");
        assert!(Manifest::parse(&bad_origin, "x").is_err());
    }
}
