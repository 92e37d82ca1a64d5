//! HTML helpers shared by crawlers and extractors: whitespace, URL resolution. Parsing itself is
//! html5ever's (through `scraper`), in the plugins that read HTML.

/// Collapses runs of whitespace (including non-breaking spaces) to single spaces and trims.
pub fn squash_ws(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c == '\u{a0}')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Resolves `href` against `base` (absolute, protocol-relative, root-relative and relative
/// references; fragments removed; `.` and `..` segments normalised). `None` for non-HTTP links.
pub fn resolve_url(base: &str, href: &str) -> Option<String> {
    let href = href.trim();
    let href = href.split('#').next().unwrap_or("");
    if href.is_empty() {
        return None;
    }
    let lower = href.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(normalise(href));
    }
    if let Some(colon) = lower.find(':') {
        let scheme = &lower[..colon];
        if !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            return None; // mailto:, javascript:, ftp: ...
        }
    }
    let scheme_end = base.find("://")? + 3;
    let scheme = &base[..scheme_end - 3];
    if let Some(rest) = href.strip_prefix("//") {
        return Some(normalise(&format!("{scheme}://{rest}")));
    }
    let origin = origin_of(base);
    let host_end = origin.len();
    if href.starts_with('/') {
        return Some(normalise(&format!("{origin}{href}")));
    }
    let path = base[host_end..].split(['?', '#']).next().unwrap_or("");
    let dir = match path.rfind('/') {
        Some(p) => &path[..=p],
        None => "/",
    };
    Some(normalise(&format!("{origin}{dir}{href}")))
}

/// `scheme://host[:port]` of an absolute URL ("" if it has no `://`).
pub fn origin_of(url: &str) -> &str {
    let Some(se) = url.find("://") else {
        return "";
    };
    let start = se + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map(|p| p + start)
        .unwrap_or(url.len());
    &url[..end]
}

fn normalise(url: &str) -> String {
    let host_end = origin_of(url).len();
    if host_end == 0 {
        return url.to_string();
    }
    let (path, query) = match url[host_end..].find('?') {
        Some(q) => (&url[host_end..host_end + q], &url[host_end + q..]),
        None => (&url[host_end..], ""),
    };
    let mut segs: Vec<&str> = Vec::new();
    for s in path.split('/').skip(1) {
        match s {
            "." => {}
            ".." => {
                segs.pop();
            }
            s => segs.push(s),
        }
    }
    let trailing = path.ends_with("/.") || path.ends_with("/..");
    let mut p = format!("/{}", segs.join("/"));
    if trailing && !p.ends_with('/') {
        p.push('/');
    }
    format!("{}{}{}", &url[..host_end], p, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_urls() {
        let b = "http://h:8080/list/index.html?p=2";
        assert_eq!(resolve_url(b, "a.pdf").unwrap(), "http://h:8080/list/a.pdf");
        assert_eq!(
            resolve_url(b, "../x/b.pdf#f").unwrap(),
            "http://h:8080/x/b.pdf"
        );
        assert_eq!(resolve_url(b, "/c.pdf").unwrap(), "http://h:8080/c.pdf");
        assert_eq!(resolve_url(b, "//o/d").unwrap(), "http://o/d");
        assert_eq!(resolve_url(b, "https://e/f").unwrap(), "https://e/f");
        assert_eq!(resolve_url(b, "mailto:x@y"), None);
        assert_eq!(resolve_url(b, "#top"), None);
        assert_eq!(origin_of(b), "http://h:8080");
        assert_eq!(origin_of("https://x.org?q"), "https://x.org");
        assert_eq!(origin_of("relative/path"), "");
    }
}
