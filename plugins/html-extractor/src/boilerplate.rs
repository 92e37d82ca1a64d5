//! Where a page's main content is, and which elements around and inside it are boilerplate:
//! navigation, sidebars, site headers and footers, breadcrumbs, page actions ("Edit", "Show
//! Source"), permalink marks. Tuned on Sphinx, MkDocs, MediaWiki and TWiki/Foswiki layouts.

use scraper::{ElementRef, Html, Node, Selector};

/// Containers of the main content, most specific first; the first [`TRUSTED`] are taken whenever
/// they hold text, the others only when they hold a fair share of the page's.
const MAIN: [&str; 14] = [
    ".patternTopic",
    ".foswikiTopic",
    ".twikiTopic",
    "[role=main]",
    "main",
    "[itemprop=articleBody]",
    ".md-content",
    ".rst-content",
    "#content",
    "#main-content",
    "#main",
    "div.body",
    "#bodyContent",
    "article",
];

const TRUSTED: usize = 6;

/// Roles of landmarks that are not content.
const ROLES: [&str; 8] = [
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "menu",
    "menubar",
    "toolbar",
];

/// Class or id words (lower case) of boilerplate, matched whole.
const WORDS: [&str; 48] = [
    "nav",
    "navigation",
    "menu",
    "related",
    "breadcrumb",
    "breadcrumbs",
    "toc",
    "localtoc",
    "footer",
    "header",
    "site-header",
    "site-footer",
    "copyright",
    "edit",
    "editlink",
    "edit-link",
    "edit-this-page",
    "edit-page",
    "mw-editsection",
    "headerlink",
    "permalink",
    "anchorjs-link",
    "skip-link",
    "skiplink",
    "printfooter",
    "catlinks",
    "mw-jump-link",
    "social",
    "share",
    "cookie",
    "cookies",
    "advert",
    "ads",
    "pager",
    "pagination",
    "prev-next",
    // TWiki / Foswiki (pattern skin)
    "patterntop",
    "patterninfo",
    "patterntopicactions",
    "patternhomepath",
    "patternmetamenu",
    "patternrevinfo",
    "patternattachments",
    "foswikitopicinfo",
    "foswikiattachments",
    "twikiattachments",
    "twikitopicaction",
    "foswikiformsteps",
];

/// Parts of class or id words that mark boilerplate wherever they occur (`sphinxsidebar`,
/// `md-sidebar`, `patternSideBar`, `navbar-top`, `patternToolBar`).
const PARTS: [&str; 6] = [
    "sidebar",
    "navbar",
    "topbar",
    "bottombar",
    "toolbar",
    "breadcrumb",
];

/// Link texts that are page actions, not content (lower case, whitespace squashed).
const ACTIONS: [&str; 14] = [
    "edit",
    "[edit]",
    "edit this page",
    "edit on github",
    "edit on gitlab",
    "edit page",
    "show source",
    "view source",
    "view page source",
    "page source",
    "report a bug",
    "¶",
    "#",
    "permalink",
];

/// The element's class and id words, lower case.
fn words(el: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let v = el.value();
    v.classes().chain(v.id()).map(|w| w.to_ascii_lowercase())
}

/// Whether a class or id word of `el` is one of `list` (lower case, matched whole).
pub fn class_words_have(el: ElementRef<'_>, list: &[&str]) -> bool {
    words(el).any(|w| list.contains(&w.as_str()))
}

fn has_heading(el: ElementRef<'_>) -> bool {
    el.descendants()
        .filter_map(ElementRef::wrap)
        .any(|d| matches!(d.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
}

fn text_len(el: ElementRef<'_>) -> usize {
    el.text().map(|t| t.trim().len()).sum()
}

/// Whether `el` and everything in it is boilerplate.
pub fn is_boilerplate(el: ElementRef<'_>) -> bool {
    let v = el.value();
    let name = v.name();
    match name {
        "nav" | "form" | "menu" | "dialog" => return true,
        "aside" => {
            return !class_words_have(el, &["footnote", "footnotes", "admonition", "note"]);
        }
        "header" | "footer" => return !has_heading(el),
        _ => {}
    }
    if v.attr("hidden").is_some() || v.attr("aria-hidden") == Some("true") {
        return true;
    }
    if v.attr("style").is_some_and(|s| {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        s.to_ascii_lowercase().contains("display:none")
    }) {
        return true;
    }
    if v.attr("role")
        .is_some_and(|r| ROLES.contains(&r.to_ascii_lowercase().as_str()))
    {
        return true;
    }
    let mut marked = false;
    for w in words(el) {
        if WORDS.contains(&w.as_str()) || PARTS.iter().any(|p| w.contains(p)) {
            marked = true;
            break;
        }
    }
    if marked {
        // A "header" that holds the page's heading is content.
        return !(class_words_have(el, &["header", "site-header"]) && has_heading(el));
    }
    if name == "a" {
        let t = mitra_plugin_sdk::html::squash_ws(&el.text().collect::<String>()).to_lowercase();
        return ACTIONS.contains(&t.as_str());
    }
    false
}

/// The root of the main content: the most specific known container holding a fair share of
/// the page's text, else `<body>` (else the whole document).
pub fn main_content(doc: &Html) -> ego_tree::NodeRef<'_, Node> {
    let body = Selector::parse("body")
        .ok()
        .and_then(|s| doc.select(&s).next());
    let total = body.map(text_len).unwrap_or(0);
    for (i, css) in MAIN.iter().enumerate() {
        let Ok(sel) = Selector::parse(css) else {
            continue;
        };
        let found: Vec<ElementRef<'_>> = doc.select(&sel).take(2).collect();
        // Several articles are a listing, not one page's content.
        if found.len() != 1 && *css == "article" {
            continue;
        }
        if let Some(el) = found.first() {
            let n = text_len(*el);
            if (i < TRUSTED && n > 0) || n * 10 >= total * 3 {
                return **el;
            }
        }
    }
    match body {
        Some(b) => *b,
        None => doc.tree.root(),
    }
}
