//! Sandboxed WebAssembly plugins: manifests, grants, the wasmtime host, the built-ins, and the plugin ingest pipeline.

pub mod bindings;
pub mod grants;
mod host_files;
mod host_http;
mod host_ocr;
mod limits;
pub mod manifest;
pub mod pipeline;
pub mod registry;
pub mod runtime;

pub use bindings::{Block, BlockKind, DocumentRef, Extraction, Fetched, SkippedPage};
pub use grants::{Effective, Origin, RunGrant};
pub use manifest::{Manifest, World, API_VERSION};
pub use registry::{PluginInfo, PluginSource, Registry};
pub use runtime::{Limits, PluginHost, PluginInstance};

/// Errors of plugins, each naming the plugin. A failed call leaves the host healthy.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum PluginError {
    /// No plugin has this name.
    #[error("no plugin named {name} (available: {available})")]
    NotFound {
        /// Requested name.
        name: String,
        /// Names that exist.
        available: String,
    },
    /// The manifest is missing or invalid.
    #[error("plugin {plugin}: invalid manifest: {message}")]
    Manifest {
        /// Plugin name or file.
        plugin: String,
        /// What is wrong.
        message: String,
    },
    /// Built against another plugin API.
    #[error("plugin {plugin} targets {found}; this host implements {expected}")]
    ApiVersion {
        /// Plugin.
        plugin: String,
        /// Its API.
        found: String,
        /// Ours.
        expected: String,
    },
    /// The wasm does not match the operator's hash pin.
    #[error("plugin {plugin}: sha256 {actual} does not match the pin {expected} (plugins.pins)")]
    HashMismatch {
        /// Plugin.
        plugin: String,
        /// Pinned hash.
        expected: String,
        /// Actual hash.
        actual: String,
    },
    /// The wasm is not a valid component of the declared world.
    #[error("plugin {plugin}: not a valid {world} component: {message}")]
    Invalid {
        /// Plugin.
        plugin: String,
        /// Declared world.
        world: String,
        /// Compiler or linker message.
        message: String,
    },
    /// The plugin was used as the wrong kind (an extractor as a crawler).
    #[error("plugin {plugin} is a {actual}, not a {wanted}")]
    WrongWorld {
        /// Plugin.
        plugin: String,
        /// Its world.
        actual: String,
        /// The world needed.
        wanted: String,
    },
    /// The call ran past its deadline.
    #[error("plugin {plugin}: {call} exceeded its deadline of {ms} ms")]
    Timeout {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
        /// Deadline.
        ms: u64,
    },
    /// The guest tried to grow its memory beyond the cap.
    #[error("plugin {plugin}: {call} exceeded the memory cap of {limit_mb} MiB")]
    MemoryLimit {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
        /// Cap.
        limit_mb: u64,
    },
    /// The guest's stack overflowed (runaway recursion).
    #[error("plugin {plugin}: {call} overflowed its stack")]
    StackOverflow {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
    },
    /// The guest trapped (a panic, `unreachable`, an out-of-bounds access).
    #[error("plugin {plugin}: {call} trapped: {message}")]
    Trap {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
        /// The trap and the guest's last stderr line.
        message: String,
    },
    /// The result is larger than `plugins.max_output_mb`.
    #[error("plugin {plugin}: {call} returned {bytes} bytes, above the cap of {limit} bytes")]
    OutputTooLarge {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
        /// Size of the result.
        bytes: u64,
        /// Cap.
        limit: u64,
    },
    /// The guest asked for something it was not granted.
    #[error("plugin {plugin}: {call} was denied: {what}")]
    Denied {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
        /// The first denied request.
        what: String,
    },
    /// The plugin ran and reported an error for this input.
    #[error("plugin {plugin}: {call}: {message}")]
    Failed {
        /// Plugin.
        plugin: String,
        /// Exported function.
        call: String,
        /// The plugin's message.
        message: String,
    },
    /// The host could not set up the call (engine, I/O).
    #[error("plugin {plugin}: host error: {message}")]
    Host {
        /// Plugin.
        plugin: String,
        /// What failed.
        message: String,
    },
}

impl PluginError {
    /// The plugin the error names.
    pub fn plugin(&self) -> &str {
        match self {
            PluginError::NotFound { name, .. } => name,
            PluginError::Manifest { plugin, .. }
            | PluginError::ApiVersion { plugin, .. }
            | PluginError::HashMismatch { plugin, .. }
            | PluginError::Invalid { plugin, .. }
            | PluginError::WrongWorld { plugin, .. }
            | PluginError::Timeout { plugin, .. }
            | PluginError::MemoryLimit { plugin, .. }
            | PluginError::StackOverflow { plugin, .. }
            | PluginError::Trap { plugin, .. }
            | PluginError::OutputTooLarge { plugin, .. }
            | PluginError::Denied { plugin, .. }
            | PluginError::Failed { plugin, .. }
            | PluginError::Host { plugin, .. } => plugin,
        }
    }
}
