//! Explicit inference devices: `cpu` or `cuda:N` (only with the `cuda` feature).

use candle_core::Device;

use crate::EmbedError;

/// Parses a device name. Asking for CUDA where it is absent is an error, never a silent CPU fallback.
pub fn parse_device(name: &str) -> Result<Device, EmbedError> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("cpu") {
        return Ok(Device::Cpu);
    }
    let err = |message: String| EmbedError::Device {
        device: name.to_string(),
        message,
    };
    let Some(ordinal) =
        name.strip_prefix("cuda:")
            .or(if name == "cuda" { Some("0") } else { None })
    else {
        return Err(err("expected \"cpu\" or \"cuda:N\"".into()));
    };
    let ordinal: usize = ordinal
        .parse()
        .map_err(|_| err(format!("bad CUDA ordinal {ordinal:?}")))?;
    if !cfg!(feature = "cuda") {
        return Err(err(
            "this mitra binary was built without CUDA support (cargo feature `cuda`)".into(),
        ));
    }
    Device::new_cuda(ordinal).map_err(|e| err(format!("CUDA device {ordinal} unavailable: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_and_errors() {
        assert!(matches!(parse_device("cpu"), Ok(Device::Cpu)));
        assert!(matches!(
            parse_device("tpu"),
            Err(EmbedError::Device { .. })
        ));
        assert!(matches!(
            parse_device("cuda:x"),
            Err(EmbedError::Device { .. })
        ));
        if !cfg!(feature = "cuda") {
            let e = parse_device("cuda:0").unwrap_err().to_string();
            assert!(e.contains("without CUDA"), "{e}");
        }
    }
}
