//! Text helpers shared by plugins: caption recognition, media types by file extension.

/// Whether `t` starts like a caption: "Figure 3:", "Fig. 2.", "Table 1:", "Tab. 4.", "Listing 2-1:".
pub fn is_caption_start(t: &str) -> bool {
    let t = t.trim_start();
    for p in [
        "Figure", "FIGURE", "Fig.", "FIG.", "Fig", "Table", "TABLE", "Tab.", "Listing",
    ] {
        let Some(rest) = t.strip_prefix(p) else {
            continue;
        };
        let rest = rest.trim_start();
        let mut chars = rest.chars().peekable();
        if chars.peek().is_some_and(|c| c.is_ascii_uppercase()) {
            chars.next(); // appendix tables: "Table A1:"
        }
        let mut digits = 0;
        // Chapter-numbered as "2.1" or "2-1".
        while chars
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || *c == '.' || (*c == '-' && digits > 0))
        {
            if chars.peek().is_some_and(char::is_ascii_digit) {
                digits += 1;
            }
            let c = chars.next();
            if c == Some('.') && !chars.peek().is_some_and(char::is_ascii_digit) {
                // "Fig. 2." — the dot ends the number.
                return digits > 0;
            }
        }
        if digits == 0 {
            continue;
        }
        if chars.peek().is_some_and(|c| c.is_ascii_lowercase()) {
            chars.next(); // "Figure 2a:"
        }
        if matches!(chars.next(), Some(':') | Some('.')) {
            return true;
        }
    }
    false
}

/// File extensions crawlers handle, with their media types.
const TYPES: [(&str, &str); 7] = [
    ("pdf", "application/pdf"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("txt", "text/plain"),
    ("xhtml", "application/xhtml+xml"),
];

/// The media type of a path or URL path by its extension (query string ignored), if known.
pub fn media_type_for_path(path: &str) -> Option<&'static str> {
    let path = path.split('?').next().unwrap_or(path);
    let file = path.rsplit('/').next().unwrap_or(path);
    let ext = file.rsplit_once('.')?.1.to_ascii_lowercase();
    TYPES.iter().find(|(e, _)| *e == ext).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captions_and_media_types() {
        assert!(is_caption_start("Figure 1: The mass"));
        assert!(is_caption_start("Fig. 12. The mass"));
        assert!(is_caption_start("Table A1: Yields"));
        assert!(is_caption_start("Figure 2a. Left"));
        assert!(is_caption_start("Figure 2-1: Pellentesque laoreet"));
        assert!(is_caption_start("Listing 2-1: Hello, World in Emacs Lisp"));
        assert!(!is_caption_start("Listing 2 shows the code"));
        assert!(!is_caption_start("Figure 1 shows the mass"));
        assert!(!is_caption_start("Tables are nice."));
        assert_eq!(media_type_for_path("a/b.PDF"), Some("application/pdf"));
        assert_eq!(
            media_type_for_path("http://h/x.md?raw=1"),
            Some("text/markdown")
        );
        assert_eq!(media_type_for_path("http://h.org/page"), None);
        assert_eq!(media_type_for_path("notes/image.png"), None);
    }
}
