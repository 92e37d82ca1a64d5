//! A small, tolerant HTML tokenizer (tags, attributes, text, entities) for crawlers and extractors.

/// One token of an HTML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// `<name attr=value ...>`; `self_closing` for `<br/>`.
    Start {
        /// Lower-case tag name.
        name: String,
        /// Attributes, names lower-cased, values entity-decoded.
        attrs: Vec<(String, String)>,
        /// Whether the tag ended with `/>`.
        self_closing: bool,
    },
    /// `</name>`.
    End(String),
    /// Text between tags, entity-decoded (whitespace kept).
    Text(String),
}

impl Token {
    /// The value of an attribute of a start tag.
    pub fn attr(&self, key: &str) -> Option<&str> {
        match self {
            Token::Start { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }
}

/// Elements whose content is raw text up to their end tag.
const RAW: [&str; 4] = ["script", "style", "textarea", "title"];

/// Splits an HTML document into tokens. Comments, doctypes and processing instructions are
/// dropped; the contents of `script`/`style` are returned as one text token. Never panics.
pub fn tokenize(html: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let b = html.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if text_start < i {
            out.push(Token::Text(decode_entities(&html[text_start..i])));
        }
        let rest = &html[i..];
        if rest.starts_with("<!--") {
            i = rest.find("-->").map(|e| i + e + 3).unwrap_or(b.len());
            text_start = i;
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            i = rest.find('>').map(|e| i + e + 1).unwrap_or(b.len());
            text_start = i;
            continue;
        }
        let Some(end) = tag_end(rest) else {
            // A lone '<' is text.
            i += 1;
            text_start = i - 1;
            continue;
        };
        let inner = &rest[1..end];
        i += end + 1;
        text_start = i;
        if let Some(name) = inner.strip_prefix('/') {
            let name = name.trim().to_ascii_lowercase();
            out.push(Token::End(name));
            continue;
        }
        let (name, attrs, self_closing) = parse_tag(inner);
        if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            out.push(Token::Text(decode_entities(&rest[..=end])));
            continue;
        }
        let raw = RAW.contains(&name.as_str());
        out.push(Token::Start {
            name: name.clone(),
            attrs,
            self_closing,
        });
        if raw && !self_closing {
            let close = format!("</{name}");
            let body = &html[i..];
            let lower = body.to_ascii_lowercase();
            let stop = lower.find(&close).unwrap_or(body.len());
            if stop > 0 {
                let t = &body[..stop];
                out.push(Token::Text(if name == "title" || name == "textarea" {
                    decode_entities(t)
                } else {
                    t.to_string()
                }));
            }
            i += stop;
            if i < b.len() {
                let after = &html[i..];
                i += after.find('>').map(|e| e + 1).unwrap_or(after.len());
            }
            out.push(Token::End(name));
            text_start = i;
        }
    }
    if text_start < b.len() {
        out.push(Token::Text(decode_entities(&html[text_start..])));
    }
    out
}

/// Index of the `>` closing the tag that starts `s` (quotes respected), if any.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (k, &c) in s.as_bytes().iter().enumerate().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'>') => return Some(k),
            (None, b'<') if k == 1 => return None,
            _ => {}
        }
    }
    None
}

fn parse_tag(inner: &str) -> (String, Vec<(String, String)>, bool) {
    let self_closing = inner.trim_end().ends_with('/');
    let inner = inner.trim_end().trim_end_matches('/');
    let name_end = inner
        .find(|c: char| c.is_whitespace())
        .unwrap_or(inner.len());
    let name = inner[..name_end].to_ascii_lowercase();
    let mut attrs = Vec::new();
    let s = &inner[name_end..];
    let c: Vec<char> = s.chars().collect();
    let mut k = 0;
    while k < c.len() {
        while k < c.len() && c[k].is_whitespace() {
            k += 1;
        }
        let start = k;
        while k < c.len() && !c[k].is_whitespace() && c[k] != '=' {
            k += 1;
        }
        if start == k {
            k += 1;
            continue;
        }
        let key: String = c[start..k].iter().collect::<String>().to_ascii_lowercase();
        while k < c.len() && c[k].is_whitespace() {
            k += 1;
        }
        let mut value = String::new();
        if k < c.len() && c[k] == '=' {
            k += 1;
            while k < c.len() && c[k].is_whitespace() {
                k += 1;
            }
            if k < c.len() && (c[k] == '"' || c[k] == '\'') {
                let q = c[k];
                k += 1;
                let vs = k;
                while k < c.len() && c[k] != q {
                    k += 1;
                }
                value = c[vs..k].iter().collect();
                k += 1;
            } else {
                let vs = k;
                while k < c.len() && !c[k].is_whitespace() {
                    k += 1;
                }
                value = c[vs..k].iter().collect();
            }
        }
        attrs.push((key, decode_entities(&value)));
    }
    (name, attrs, self_closing)
}

/// Decodes character references (`&amp;`, `&#233;`, `&#x3B1;` and common named ones).
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let semi = rest[..rest.len().min(12)].find(';');
        let decoded = semi.and_then(|e| {
            let name = &rest[1..e];
            let ch = if let Some(num) = name.strip_prefix('#') {
                let v = match num.strip_prefix(['x', 'X']) {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => num.parse().ok(),
                };
                v.and_then(char::from_u32)
            } else {
                named_entity(name)
            };
            ch.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "times" => '×',
        "plusmn" => '±',
        "le" => '≤',
        "ge" => '≥',
        "ne" => '≠',
        "asymp" => '≈',
        "rarr" => '→',
        "alpha" => 'α',
        "beta" => 'β',
        "gamma" => 'γ',
        "delta" => 'δ',
        "mu" => 'μ',
        "nu" => 'ν',
        "pi" => 'π',
        "sigma" => 'σ',
        "tau" => 'τ',
        "phi" => 'φ',
        "chi" => 'χ',
        "eta" => 'η',
        "theta" => 'θ',
        "lambda" => 'λ',
        "Delta" => 'Δ',
        "Gamma" => 'Γ',
        "deg" => '°',
        "micro" => 'µ',
        "copy" => '©',
        "sup2" => '²',
        _ => return None,
    })
}

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
    fn tokenizes_tags_attributes_and_entities() {
        let t = tokenize(
            r#"<p class=a>x &amp; y &#x3B1;<a href="/d/1.pdf?x=1&amp;y=2">One</a><br/><!-- c --><script>if (a<b) {}</script>"#,
        );
        assert_eq!(t[1], Token::Text("x & y α".into()));
        assert_eq!(t[2].attr("href"), Some("/d/1.pdf?x=1&y=2"));
        assert!(matches!(&t[5], Token::Start { name, self_closing: true, .. } if name == "br"));
        assert_eq!(t[7], Token::Text("if (a<b) {}".into()));
        assert_eq!(t[8], Token::End("script".into()));
        assert!(!tokenize("<<<>>><a <").is_empty());
    }

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
