//! http-index-crawler: follows the links of an HTML listing page to documents.
//!
//! Source settings: `location` (the listing URL), optional `secret` (a granted secret the host
//! attaches to every request), optional `extensions` (list of link suffixes to follow; default
//! pdf, md, html, htm, txt).

use mitra_plugin_sdk::crawler::{http, warn, Crawl, DocumentRef, Fetched};
use mitra_plugin_sdk::html::{origin_of, resolve_url, squash_ws};
use mitra_plugin_sdk::text::media_type_for_path;
use mitra_plugin_sdk::{source_settings, source_str};

/// The plugin.
pub struct HttpIndexCrawler;

const DEFAULT_EXTENSIONS: [&str; 5] = ["pdf", "md", "html", "htm", "txt"];

fn get(url: &str, secret: Option<String>) -> Result<http::Response, String> {
    let resp = http::fetch(&http::Request {
        method: "GET".into(),
        url: url.to_string(),
        headers: vec![("accept".into(), "*/*".into())],
        secret,
    })
    .map_err(|e| match e {
        http::HttpError::Denied(m) => format!("denied: {m}"),
        http::HttpError::Invalid(m) => format!("invalid request: {m}"),
        http::HttpError::Transport(m) => format!("transport: {m}"),
        http::HttpError::TooLarge(n) => format!("response larger than {n} bytes"),
    })?;
    if !(200..300).contains(&resp.status) {
        return Err(format!("GET {url}: HTTP {}", resp.status));
    }
    Ok(resp)
}

/// The links of a listing page that point to documents: (absolute URL, anchor text). The page
/// is parsed with html5ever.
pub fn document_links(base: &str, html: &str, extensions: &[String]) -> Vec<(String, String)> {
    let doc = scraper::Html::parse_document(html);
    let Ok(anchors) = scraper::Selector::parse("a[href]") else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for a in doc.select(&anchors) {
        let Some(url) = a.value().attr("href").and_then(|h| resolve_url(base, h)) else {
            continue;
        };
        let path = url.split('?').next().unwrap_or(&url).to_ascii_lowercase();
        let wanted = extensions
            .iter()
            .any(|e| path.ends_with(&format!(".{}", e.to_ascii_lowercase())));
        if wanted && !out.iter().any(|(u, _)| *u == url) {
            let text: Vec<&str> = a.text().collect();
            out.push((url, squash_ws(&text.join(" "))));
        }
    }
    out
}

fn media_type_of(url: &str, header: Option<&str>) -> String {
    if let Some(h) = header {
        let t = h
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !t.is_empty() && t != "application/octet-stream" {
            return t;
        }
    }
    media_type_for_path(url)
        .unwrap_or("application/octet-stream")
        .to_string()
}

impl Crawl for HttpIndexCrawler {
    fn list_documents(source: String) -> Result<Vec<DocumentRef>, String> {
        let settings = source_settings(&source)?;
        let location = source_str(&settings, "location")
            .ok_or("source setting `location` (the listing URL) is required")?;
        let secret = source_str(&settings, "secret");
        let extensions: Vec<String> = settings
            .get("extensions")
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_else(|| DEFAULT_EXTENSIONS.iter().map(|s| s.to_string()).collect());
        let resp = get(&location, secret)?;
        let html = String::from_utf8_lossy(&resp.body);
        let links = document_links(&resp.url, &html, &extensions);
        if links.is_empty() {
            warn(&format!("no document links on {}", resp.url));
        }
        let origin = origin_of(&resp.url).to_string();
        Ok(links
            .into_iter()
            .map(|(url, text)| {
                // Ids are paths on the listing's own site, full URLs elsewhere.
                let id = match url.strip_prefix(origin.as_str()) {
                    Some(path) if !origin.is_empty() => path.trim_start_matches('/').to_string(),
                    _ => url.clone(),
                };
                let file = url
                    .split('?')
                    .next()
                    .unwrap_or(&url)
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_string();
                DocumentRef {
                    id,
                    uri: url.clone(),
                    title: if text.is_empty() { file } else { text },
                    modified_ms: None,
                    media_type: None,
                    metadata: vec![("listing".into(), resp.url.clone())],
                }
            })
            .collect())
    }

    fn fetch_document(source: String, doc: DocumentRef) -> Result<Fetched, String> {
        let settings = source_settings(&source)?;
        let resp = get(&doc.uri, source_str(&settings, "secret"))?;
        let ct = resp
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str());
        let media_type = doc
            .media_type
            .clone()
            .unwrap_or_else(|| media_type_of(&resp.url, ct));
        Ok(Fetched {
            bytes: resp.body,
            media_type,
        })
    }
}

mitra_plugin_sdk::crawler::export_crawler!(HttpIndexCrawler);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_document_links() {
        let html = r#"<ul><li><a href="notes/a.pdf">Note <b>A</b></a></li>
            <li><a href="/b.md">B</a><a href="c.png">img</a><a href="notes/a.pdf">dup</a></li></ul>"#;
        let ext: Vec<String> = DEFAULT_EXTENSIONS.iter().map(|s| s.to_string()).collect();
        let l = document_links("http://h/list/", html, &ext);
        assert_eq!(
            l,
            vec![
                ("http://h/list/notes/a.pdf".into(), "Note A".into()),
                ("http://h/b.md".into(), "B".into())
            ]
        );
    }
}
