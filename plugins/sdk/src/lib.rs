//! Guest SDK for Mitra plugins: the `mitra:plugin@0.2.0` bindings of one world, and helpers.
//!
//! A crawler enables the `crawler` feature, implements [`crawler::Crawl`] and calls
//! [`export_crawler!`]; an extractor enables `extractor`, implements [`extractor::Extract`] and
//! calls `extractor::export_extractor!`. Host calls (log, clock, http, files, ocr) are in the world module.

pub mod html;
pub mod text;

// A component embeds the type information of every world its crate links, so a plugin enables
// exactly one of the features; build plugins one package at a time (`cargo build -p NAME`), as
// appliance/build.rs does. Native test builds may unify both features, which is harmless.

/// Bindings and helpers of the crawler world.
#[cfg(feature = "crawler")]
pub mod crawler {
    wit_bindgen::generate!({
        path: "../wit",
        world: "crawler",
        pub_export_macro: true,
        export_macro_name: "export_crawler",
        default_bindings_module: "mitra_plugin_sdk::crawler",
    });
    pub use exports::mitra::plugin::crawl::{DocumentRef, Fetched, Guest as Crawl};
    pub use mitra::plugin::{clock, files, http, log};

    /// Logs at info level.
    pub fn info(msg: &str) {
        log::log(log::Level::Info, msg);
    }
    /// Logs at warn level.
    pub fn warn(msg: &str) {
        log::log(log::Level::Warn, msg);
    }
}

/// Bindings and helpers of the extractor world.
#[cfg(feature = "extractor")]
pub mod extractor {
    wit_bindgen::generate!({
        path: "../wit",
        world: "extractor",
        pub_export_macro: true,
        export_macro_name: "export_extractor",
        default_bindings_module: "mitra_plugin_sdk::extractor",
    });
    pub use exports::mitra::plugin::extract::{
        Block, BlockKind, Extraction, Guest as Extract, SkippedPage,
    };
    pub use mitra::plugin::{clock, log, ocr};

    /// Logs at info level.
    pub fn info(msg: &str) {
        log::log(log::Level::Info, msg);
    }
    /// Logs at warn level.
    pub fn warn(msg: &str) {
        log::log(log::Level::Warn, msg);
    }

    /// A block helper (no heading level).
    pub fn block(kind: BlockKind, page: Option<u32>, text: impl Into<String>) -> Block {
        Block {
            kind,
            page,
            text: text.into(),
            level: None,
        }
    }

    /// A heading at `level` of the outline (1 for a top-level section).
    pub fn heading(level: u8, page: Option<u32>, text: impl Into<String>) -> Block {
        Block {
            kind: BlockKind::Heading,
            page,
            text: text.into(),
            level: Some(level),
        }
    }

    /// Marks the document's title: when the first heading is the only one at the top level
    /// (a Markdown `#` or HTML `h1` above `##`/`h2` sections), it becomes level 0, so that
    /// section paths do not repeat the title.
    pub fn mark_title(blocks: &mut [Block]) {
        let heads: Vec<usize> = (0..blocks.len())
            .filter(|&i| matches!(blocks[i].kind, BlockKind::Heading))
            .collect();
        let Some(&first) = heads.first() else {
            return;
        };
        let Some(top) = blocks[first].level else {
            return;
        };
        let alone = heads[1..]
            .iter()
            .all(|&i| blocks[i].level.is_some_and(|l| l > top));
        if alone && heads.len() > 1 {
            blocks[first].level = Some(0);
        }
    }
}

/// Parses the source settings JSON handed to crawlers (`{"location": ..., ...}`).
pub fn source_settings(source: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(source).map_err(|e| format!("source settings are not JSON: {e}"))
}

/// A string field of the source settings, if present.
pub fn source_str(settings: &serde_json::Value, key: &str) -> Option<String> {
    settings
        .get(key)
        .and_then(|v| v.as_str())
        .map(str::to_string)
}
