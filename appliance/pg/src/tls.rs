//! TLS on the wire: the server's certificate and key loaded at start (fail closed), the
//! acceptor, and the certificate hash that SCRAM-SHA-256-PLUS binds logins to.

use std::path::Path;
use std::sync::Arc;

use aws_lc_rs::digest;
use mitra_store::config::{ServerConfig, TlsMode};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig as RustlsConfig;
use tokio_rustls::TlsAcceptor;
use x509_certificate::{SignatureAlgorithm, X509Certificate};

use super::ServerError;

/// The server's TLS: how it is required, the acceptor, and the channel-binding data.
pub struct Tls {
    /// `optional` or `required`.
    pub mode: TlsMode,
    /// Accepts TLS connections with the configured certificate.
    pub acceptor: TlsAcceptor,
    /// `tls-server-end-point` binding data (RFC 5929): the hash of the certificate; `None`
    /// when its signature algorithm defines none (SCRAM-SHA-256-PLUS is then not offered).
    pub end_point: Option<Arc<[u8]>>,
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, ServerError> {
    std::fs::read(path).map_err(|e| {
        ServerError(format!(
            "cannot read the TLS {what} {}: {e}",
            path.display()
        ))
    })
}

/// The TLS of `cfg`: `None` with `tls = "off"`; an error, and no server, when a certificate or
/// key is missing, unreadable, invalid or not a pair.
pub fn load(cfg: &ServerConfig) -> Result<Option<Arc<Tls>>, ServerError> {
    if cfg.tls == TlsMode::Off {
        return Ok(None);
    }
    let (Some(cert_path), Some(key_path)) = (&cfg.tls_cert, &cfg.tls_key) else {
        return Err(ServerError(
            "server.tls is on but server.tls_cert or server.tls_key is not set (PEM files; \
             MITRA_SERVER_TLS_CERT, MITRA_SERVER_TLS_KEY)"
                .into(),
        ));
    };
    let cert_pem = read(cert_path, "certificate")?;
    let key_pem = read(key_path, "key")?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| {
            ServerError(format!(
                "TLS certificate {}: not a PEM certificate chain: {e}",
                cert_path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(ServerError(format!(
            "TLS certificate {}: no certificate in the file",
            cert_path.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        ServerError(format!(
            "TLS key {}: not a PEM private key: {e}",
            key_path.display()
        ))
    })?;
    let end_point = end_point(&certs[0]).map_err(|e| {
        ServerError(format!(
            "TLS certificate {}: cannot be parsed: {e}",
            cert_path.display()
        ))
    })?;
    if end_point.is_none() {
        tracing::warn!(
            "the TLS certificate's signature algorithm defines no tls-server-end-point hash: \
             SCRAM-SHA-256-PLUS (channel binding) is not offered"
        );
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::aws_lc_rs::default_provider());
    let mut config = RustlsConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ServerError(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            ServerError(format!(
                "TLS certificate {} and key {} are not usable together: {e}",
                cert_path.display(),
                key_path.display()
            ))
        })?;
    // libpq 17 offers ALPN "postgresql"; clients that offer none are served too.
    config.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(Some(Arc::new(Tls {
        mode: cfg.tls,
        acceptor: TlsAcceptor::from(Arc::new(config)),
        end_point: end_point.map(Arc::from),
    })))
}

/// The `tls-server-end-point` hash of a certificate: its signature's hash function, SHA-256
/// for MD5 and SHA-1 (RFC 5929 §4.1); `None` for algorithms without one (Ed25519).
fn end_point(cert: &CertificateDer<'_>) -> Result<Option<Vec<u8>>, String> {
    let x509 = X509Certificate::from_der(cert.as_ref()).map_err(|e| e.to_string())?;
    let algorithm = match x509.signature_algorithm() {
        Some(
            SignatureAlgorithm::RsaSha1
            | SignatureAlgorithm::RsaSha256
            | SignatureAlgorithm::EcdsaSha256,
        ) => &digest::SHA256,
        Some(SignatureAlgorithm::RsaSha384 | SignatureAlgorithm::EcdsaSha384) => &digest::SHA384,
        Some(SignatureAlgorithm::RsaSha512) => &digest::SHA512,
        _ => return Ok(None),
    };
    Ok(Some(
        digest::digest(algorithm, cert.as_ref()).as_ref().to_vec(),
    ))
}
