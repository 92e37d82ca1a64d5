//! The `ocr` import: Tesseract run as a child process with a deadline, when granted and installed.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::bindings::ocr::{Host, OcrError};
use super::runtime::HostState;

/// Largest image accepted for OCR.
const MAX_IMAGE_BYTES: usize = 64 << 20;

impl Host for HostState {
    fn recognize(
        &mut self,
        image: Vec<u8>,
        media_type: String,
        language: Option<String>,
    ) -> Result<String, OcrError> {
        if !self.caps.ocr {
            return Err(OcrError::Unavailable(
                "OCR is not granted to this plugin (plugins.ocr)".into(),
            ));
        }
        if !matches!(
            media_type.as_str(),
            "image/png" | "image/jpeg" | "image/x-portable-anymap" | "image/tiff"
        ) {
            return Err(OcrError::Failed(format!(
                "unsupported image type {media_type}"
            )));
        }
        if image.len() > MAX_IMAGE_BYTES {
            return Err(OcrError::Failed(format!(
                "image of {} bytes is above {MAX_IMAGE_BYTES}",
                image.len()
            )));
        }
        let lang = language.unwrap_or_else(|| self.limits.ocr_language.clone());
        if lang.is_empty()
            || !lang
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '+')
        {
            return Err(OcrError::Failed(format!("bad OCR language {lang:?}")));
        }
        run_tesseract(
            &self.limits.ocr_command,
            &lang,
            image,
            self.limits.ocr_timeout,
        )
    }
}

/// Runs `tesseract stdin stdout -l LANG` on one image.
pub fn run_tesseract(
    command: &str,
    lang: &str,
    image: Vec<u8>,
    timeout: std::time::Duration,
) -> Result<String, OcrError> {
    let mut child = match Command::new(command)
        .args(["stdin", "stdout", "-l", lang])
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(OcrError::Unavailable(format!(
                "{command} is not installed (Debian: apt-get install tesseract-ocr)"
            )))
        }
        Err(e) => return Err(OcrError::Failed(format!("cannot run {command}: {e}"))),
    };
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&image);
    });
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.by_ref().take(16 << 20).read_to_end(&mut s);
        s
    });
    let mut stderr = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.by_ref().take(64 << 10).read_to_end(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(OcrError::Failed(format!(
                    "{command} ran past {} ms",
                    timeout.as_millis()
                )));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
            Err(e) => return Err(OcrError::Failed(e.to_string())),
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let msg = String::from_utf8_lossy(&err);
        let last = msg
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        if last.contains("Failed loading language") || last.contains("Error opening data file") {
            return Err(OcrError::Unavailable(format!(
                "tesseract has no language data for {lang}: {last}"
            )));
        }
        return Err(OcrError::Failed(format!("{command} failed: {last}")));
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}
