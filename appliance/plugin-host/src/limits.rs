//! The bounds of every plugin call: memory, time, output, HTTP and OCR.

use std::time::Duration;

use mitra_store::config::PluginsConfig;

/// Limits applied to every call.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Linear memory cap, bytes.
    pub memory_bytes: usize,
    /// Deadline of one call.
    pub timeout: Duration,
    /// Largest result, bytes.
    pub max_output: u64,
    /// Largest HTTP body the host reads, bytes.
    pub max_response: u64,
    /// HTTP request timeout.
    pub http_timeout: Duration,
    /// Redirects followed per request.
    pub max_redirects: u32,
    /// The Tesseract executable.
    pub ocr_command: String,
    /// Tesseract language(s).
    pub ocr_language: String,
    /// Deadline of one OCR run.
    pub ocr_timeout: Duration,
}

impl Limits {
    /// The limits of `[plugins]`.
    pub fn from_config(p: &PluginsConfig) -> Self {
        Limits {
            memory_bytes: (p.memory_mb as usize).saturating_mul(1 << 20),
            timeout: Duration::from_millis(p.timeout_ms),
            max_output: p.max_output_mb.saturating_mul(1 << 20),
            max_response: p.max_response_mb.saturating_mul(1 << 20),
            http_timeout: Duration::from_millis(p.http_timeout_ms),
            max_redirects: p.max_redirects,
            ocr_command: p.ocr_command.clone(),
            ocr_language: p.ocr_language.clone(),
            ocr_timeout: Duration::from_millis(p.ocr_timeout_ms),
        }
    }
}
