//! The plugins of an appliance: built-ins embedded at build time, and a site plugin directory.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::manifest::Manifest;
use super::PluginError;
use mitra_store::config::Config;

// `BUILTIN: &[(&str, &str, &[u8])]`: (name, plugin.toml, component), written by build.rs.
include!(concat!(env!("OUT_DIR"), "/builtin_plugins.rs"));

/// Where a plugin came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// Compiled from `plugins/` and embedded in the binary.
    BuiltIn,
    /// Loaded from the site plugin directory.
    File(PathBuf),
}

impl std::fmt::Display for PluginSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PluginSource::BuiltIn => f.write_str("built-in"),
            PluginSource::File(p) => write!(f, "file {}", p.display()),
        }
    }
}

/// One checked plugin.
#[derive(Debug, Clone)]
pub struct PluginInfo {
    /// Its manifest.
    pub manifest: Manifest,
    /// Built-in or file.
    pub source: PluginSource,
    /// Hex SHA-256 of the component.
    pub sha256: String,
    /// The component bytes.
    pub wasm: Arc<[u8]>,
}

/// All plugins, by name, plus the ones that failed their checks.
#[derive(Debug, Default)]
pub struct Registry {
    plugins: BTreeMap<String, PluginInfo>,
    refused: BTreeMap<String, PluginError>,
}

impl Registry {
    /// Loads the built-ins and `plugins.dir`, checking manifests, API versions and pins.
    /// A plugin that fails its checks is refused (kept with its error), the rest still load.
    pub fn load(cfg: &Config) -> Result<Self, PluginError> {
        let mut reg = Registry::default();
        for (name, manifest, wasm) in BUILTIN {
            reg.add(cfg, name, manifest, wasm.to_vec(), PluginSource::BuiltIn);
        }
        if let Some(dir) = &cfg.plugins.dir {
            let rd = std::fs::read_dir(dir).map_err(|e| PluginError::Host {
                plugin: dir.display().to_string(),
                message: format!("plugins.dir: {e}"),
            })?;
            let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for wasm_path in paths
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
            {
                let label = wasm_path.display().to_string();
                let toml_path = wasm_path.with_extension("toml");
                let loaded = std::fs::read_to_string(&toml_path)
                    .map_err(|e| format!("{}: {e}", toml_path.display()))
                    .and_then(|m| {
                        std::fs::read(wasm_path)
                            .map(|w| (m, w))
                            .map_err(|e| format!("{label}: {e}"))
                    });
                match loaded {
                    Ok((m, w)) => {
                        reg.add(cfg, &label, &m, w, PluginSource::File(wasm_path.clone()))
                    }
                    Err(message) => {
                        reg.refused.insert(
                            label.clone(),
                            PluginError::Manifest {
                                plugin: label,
                                message,
                            },
                        );
                    }
                }
            }
        }
        Ok(reg)
    }

    fn add(
        &mut self,
        cfg: &Config,
        label: &str,
        manifest: &str,
        wasm: Vec<u8>,
        source: PluginSource,
    ) {
        let sha256 = mitra_store::ingest::sha256_hex(&wasm);
        let checked = Manifest::parse(manifest, label).and_then(|m| {
            if let Some(pin) = cfg.plugins.pins.get(&m.name) {
                if !pin.eq_ignore_ascii_case(&sha256) {
                    return Err(PluginError::HashMismatch {
                        plugin: m.name.clone(),
                        expected: pin.clone(),
                        actual: sha256.clone(),
                    });
                }
            }
            if self.plugins.contains_key(&m.name) {
                return Err(PluginError::Manifest {
                    plugin: m.name.clone(),
                    message: format!("{source}: a plugin named {} is already loaded", m.name),
                });
            }
            Ok(m)
        });
        match checked {
            Ok(m) => {
                self.plugins.insert(
                    m.name.clone(),
                    PluginInfo {
                        manifest: m,
                        source,
                        sha256,
                        wasm: wasm.into(),
                    },
                );
            }
            Err(e) => {
                tracing::warn!("plugin refused: {e}");
                let key = e.plugin().to_string();
                self.refused.insert(key, e);
            }
        }
    }

    /// A plugin by name (its refusal if it failed its checks).
    pub fn get(&self, name: &str) -> Result<&PluginInfo, PluginError> {
        if let Some(p) = self.plugins.get(name) {
            return Ok(p);
        }
        if let Some(e) = self.refused.get(name) {
            return Err(e.clone());
        }
        Err(PluginError::NotFound {
            name: name.into(),
            available: self.plugins.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    }

    /// Every loaded plugin, by name.
    pub fn all(&self) -> impl Iterator<Item = &PluginInfo> {
        self.plugins.values()
    }

    /// Plugins refused at load, with why.
    pub fn refused(&self) -> impl Iterator<Item = (&String, &PluginError)> {
        self.refused.iter()
    }
}
