//! The `http` import: requests made by the host for a plugin, checked at every hop.
//!
//! Each request and each redirect must target a granted origin; host names may not resolve to
//! loopback or link-local addresses (the resolver filters them, and the connection uses only
//! the checked addresses); proxies from the environment are ignored; secrets are attached by
//! the host and only to origins they are allowed for; bodies are read up to a cap.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::bindings::http::{HttpError, Request, Response};
use super::grants::{forbidden_for_names, Effective, Origin};
use super::limits::Limits;
use mitra_store::config::SecretConfig;

/// A resolved secret: the header the host adds, and where it may go.
pub struct SecretValue {
    header: HeaderName,
    value: HeaderValue,
    origins: Vec<Origin>,
}

impl SecretValue {
    /// Reads a secret's value from its environment variable or file.
    pub fn resolve(name: &str, cfg: &SecretConfig) -> Result<Self, String> {
        let raw = match (&cfg.value_env, &cfg.value_file) {
            (Some(var), _) => std::env::var(var)
                .map_err(|_| format!("secret {name}: environment variable {var} is not set"))?,
            (None, Some(path)) => std::fs::read_to_string(path)
                .map_err(|e| format!("secret {name}: cannot read {}: {e}", path.display()))?
                .trim_end_matches(['\n', '\r'])
                .to_string(),
            (None, None) => return Err(format!("secret {name} has no value_env or value_file")),
        };
        let header = HeaderName::from_bytes(cfg.header.trim().as_bytes())
            .map_err(|e| format!("secret {name}: bad header name: {e}"))?;
        let mut value = HeaderValue::from_str(&format!("{}{raw}", cfg.prefix))
            .map_err(|_| format!("secret {name}: the value is not a valid header value"))?;
        value.set_sensitive(true);
        let origins = cfg
            .origins
            .iter()
            .map(|o| Origin::parse(o).map_err(|e| format!("secrets.{name}.origins: {e}")))
            .collect::<Result<_, _>>()?;
        Ok(SecretValue {
            header,
            value,
            origins,
        })
    }
}

/// What the HTTP import of one plugin instance may do.
pub struct HttpCtx {
    caps: Arc<Effective>,
    secrets: HashMap<String, SecretValue>,
    limits: Arc<Limits>,
}

/// Headers a guest may not set (the host owns framing, routing and credentials it attaches).
const RESERVED: [&str; 8] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "upgrade",
    "proxy-authorization",
    "te",
    "trailer",
];

impl HttpCtx {
    /// A context for one plugin's effective capabilities and resolved secrets.
    pub fn new(
        caps: Arc<Effective>,
        secrets: HashMap<String, SecretValue>,
        limits: Arc<Limits>,
    ) -> Self {
        HttpCtx {
            caps,
            secrets,
            limits,
        }
    }

    /// Performs a request, following redirects itself.
    pub fn fetch(&self, req: Request) -> Result<Response, HttpError> {
        let method = req.method.to_ascii_uppercase();
        if method != "GET" && method != "HEAD" {
            return Err(HttpError::Invalid(format!(
                "method {method} is not allowed (GET, HEAD)"
            )));
        }
        let mut url = url::Url::parse(&req.url)
            .map_err(|e| HttpError::Invalid(format!("{}: {e}", req.url)))?;
        let mut base_headers = HeaderMap::new();
        for (k, v) in &req.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| HttpError::Invalid(format!("header {k:?}: {e}")))?;
            if RESERVED.contains(&name.as_str()) {
                return Err(HttpError::Invalid(format!("header {k} is set by the host")));
            }
            let value = HeaderValue::from_str(v)
                .map_err(|_| HttpError::Invalid(format!("header {k}: bad value")))?;
            base_headers.append(name, value);
        }
        let mut hops = 0u32;
        loop {
            let origin = Origin::of_url(&url).map_err(HttpError::Invalid)?;
            if !self.caps.http.contains(&origin) {
                return Err(HttpError::Denied(format!(
                    "{} {url}: origin {origin} is not granted",
                    if hops == 0 {
                        "request to"
                    } else {
                        "redirect to"
                    }
                )));
            }
            let mut headers = base_headers.clone();
            if let Some(name) = &req.secret {
                if !self.caps.secrets.contains(name) {
                    return Err(HttpError::Denied(format!("secret {name} is not granted")));
                }
                let s = self
                    .secrets
                    .get(name)
                    .ok_or_else(|| HttpError::Denied(format!("secret {name} is not granted")))?;
                if !s.origins.is_empty() && !s.origins.contains(&origin) {
                    return Err(HttpError::Denied(format!(
                        "secret {name} may not be sent to {origin}"
                    )));
                }
                headers.insert(s.header.clone(), s.value.clone());
            }
            let raw = send(Job {
                method: method.clone(),
                url: url.clone(),
                headers,
                timeout: self.limits.http_timeout,
                max_body: self.limits.max_response,
            })?;
            let redirect = matches!(raw.status, 301 | 302 | 303 | 307 | 308);
            let location = raw
                .headers
                .iter()
                .find(|(k, _)| k == "location")
                .map(|(_, v)| v.clone());
            if let (true, Some(loc)) = (redirect, location) {
                hops += 1;
                if hops > self.limits.max_redirects {
                    return Err(HttpError::Transport(format!(
                        "more than {} redirects",
                        self.limits.max_redirects
                    )));
                }
                url = url
                    .join(&loc)
                    .map_err(|e| HttpError::Transport(format!("bad redirect {loc:?}: {e}")))?;
                continue;
            }
            return Ok(Response {
                status: raw.status,
                url: url.to_string(),
                headers: raw.headers,
                body: raw.body,
            });
        }
    }
}

struct Job {
    method: String,
    url: url::Url,
    headers: HeaderMap,
    timeout: Duration,
    max_body: u64,
}

struct RawResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

type Reply = std::sync::mpsc::Sender<Result<RawResponse, HttpError>>;

/// Sends a job to the process-wide HTTP thread and waits for its answer.
fn send(job: Job) -> Result<RawResponse, HttpError> {
    static WORKER: OnceLock<Result<tokio::sync::mpsc::UnboundedSender<(Job, Reply)>, String>> =
        OnceLock::new();
    let tx = WORKER
        .get_or_init(start_worker)
        .as_ref()
        .map_err(|e| HttpError::Transport(e.clone()))?;
    let (reply, rx) = std::sync::mpsc::channel();
    tx.send((job, reply))
        .map_err(|_| HttpError::Transport("the HTTP thread has stopped".into()))?;
    rx.recv()
        .map_err(|_| HttpError::Transport("the HTTP thread dropped the request".into()))?
}

/// The HTTP thread: its own runtime and one client (no proxies, no redirects, checked DNS).
fn start_worker() -> Result<tokio::sync::mpsc::UnboundedSender<(Job, Reply)>, String> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Job, Reply)>();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("HTTP runtime: {e}"))?;
    std::thread::Builder::new()
        .name("mitra-plugin-http".into())
        .spawn(move || {
            rt.block_on(async move {
                let client = match reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .no_proxy()
                    .dns_resolver(Arc::new(CheckedResolver))
                    .user_agent(concat!("mitra/", env!("CARGO_PKG_VERSION")))
                    .build()
                {
                    Ok(c) => c,
                    Err(e) => {
                        while let Some((_, reply)) = rx.recv().await {
                            let _ =
                                reply.send(Err(HttpError::Transport(format!("HTTP client: {e}"))));
                        }
                        return;
                    }
                };
                while let Some((job, reply)) = rx.recv().await {
                    let client = client.clone();
                    tokio::spawn(async move {
                        let _ = reply.send(perform(&client, job).await);
                    });
                }
            })
        })
        .map_err(|e| format!("HTTP thread: {e}"))?;
    Ok(tx)
}

async fn perform(client: &reqwest::Client, job: Job) -> Result<RawResponse, HttpError> {
    let method = reqwest::Method::from_bytes(job.method.as_bytes())
        .map_err(|e| HttpError::Invalid(e.to_string()))?;
    let mut resp = client
        .request(method, job.url.clone())
        .headers(job.headers)
        .timeout(job.timeout)
        .send()
        .await
        .map_err(|e| transport_error(&job.url, &e))?;
    let status = resp.status().as_u16();
    let headers = resp
        .headers()
        .iter()
        .filter(|(k, _)| k.as_str() != "set-cookie")
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into(),
            )
        })
        .collect();
    if resp.content_length().is_some_and(|n| n > job.max_body) {
        return Err(HttpError::TooLarge(job.max_body));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| transport_error(&job.url, &e))?
    {
        if body.len() as u64 + chunk.len() as u64 > job.max_body {
            return Err(HttpError::TooLarge(job.max_body));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

fn transport_error(url: &url::Url, e: &reqwest::Error) -> HttpError {
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        if let Some(d) = s.downcast_ref::<AddressDenied>() {
            return HttpError::Denied(d.to_string());
        }
        source = s.source();
    }
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    HttpError::Transport(format!("{url}: {msg}"))
}

/// A host name resolved only to addresses plugins may not reach.
#[derive(Debug)]
struct AddressDenied(String);

impl std::fmt::Display for AddressDenied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AddressDenied {}

/// DNS resolution that drops loopback, link-local and other local addresses.
struct CheckedResolver;

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = addrs
                .iter()
                .copied()
                .filter(|a| !forbidden_for_names(a.ip()))
                .collect();
            if allowed.is_empty() {
                let shown: Vec<String> = addrs.iter().map(|a| a.ip().to_string()).collect();
                return Err(Box::new(AddressDenied(format!(
                    "{host} resolves to {} (loopback/link-local addresses are not reachable through a host name; grant an IP literal origin)",
                    shown.join(", ")
                ))) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}
