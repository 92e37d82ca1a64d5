//! Text analysis for physics prose: keeps acronyms and symbolic terms (pT, H→μμ, Z+jets, √s) searchable.
//!
//! A whitespace-separated piece is trimmed of sentence punctuation. A piece made only of letters and
//! digits is one token. A piece with inner symbols (`b-tagging`, `H→μμ`, `Z+jets`, `√s`, `13.6`) yields
//! the whole piece as one token *and* each alphanumeric run in it, so both `b-tagging` and `tagging`
//! match. Tokens are lowercased; Lucene's 33 English stop words and Snowball English stemming are
//! options (stemming applies to alphabetic tokens only, never to symbolic compounds).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (33 words).
pub const LUCENE_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Name under which the analyzer is registered with tantivy.
pub const TOKENIZER_NAME: &str = "mitra_physics";

/// Analyzer options; stored with the index so that a change forces a rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerOptions {
    /// Snowball English stemming of alphabetic tokens.
    pub stemming: bool,
    /// Remove Lucene's English stop words.
    pub stopwords: bool,
}

/// The physics-aware analyzer (also a tantivy [`Tokenizer`]).
#[derive(Clone)]
pub struct PhysicsAnalyzer {
    opts: AnalyzerOptions,
    stemmer: Option<Arc<rust_stemmers::Stemmer>>,
    tokens: Vec<Token>,
}

impl PhysicsAnalyzer {
    /// Creates an analyzer with the given options.
    pub fn new(opts: AnalyzerOptions) -> Self {
        let stemmer = opts
            .stemming
            .then(|| Arc::new(rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)));
        Self {
            opts,
            stemmer,
            tokens: Vec::new(),
        }
    }

    /// The options this analyzer applies.
    pub fn options(&self) -> AnalyzerOptions {
        self.opts
    }

    /// Analyzes `text` into terms (duplicates kept, in order).
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.analyze(text, &mut out);
        out.into_iter().map(|t| t.text).collect()
    }

    fn push(&self, out: &mut Vec<Token>, word: &str, from: usize, to: usize, position: usize) {
        let lower = word.to_lowercase();
        if self.opts.stopwords && LUCENE_STOPWORDS.contains(&lower.as_str()) {
            return;
        }
        let text = match &self.stemmer {
            Some(s) if lower.chars().all(char::is_alphabetic) => s.stem(&lower).into_owned(),
            _ => lower,
        };
        out.push(Token {
            offset_from: from,
            offset_to: to,
            position,
            text,
            position_length: 1,
        });
    }

    /// Appends the tokens of `text` to `out`.
    pub fn analyze(&self, text: &str, out: &mut Vec<Token>) {
        let mut position = 0usize;
        for (start, piece) in split_whitespace_indices(text) {
            let (lead, trimmed) = trim_edges(piece);
            if trimmed.is_empty() || !trimmed.chars().any(char::is_alphanumeric) {
                continue;
            }
            let from = start + lead;
            let to = from + trimmed.len();
            if trimmed.chars().all(char::is_alphanumeric) {
                self.push(out, trimmed, from, to, position);
                position += 1;
                continue;
            }
            // Symbolic compound: the whole piece, then its alphanumeric runs.
            let lower = trimmed.to_lowercase();
            out.push(Token {
                offset_from: from,
                offset_to: to,
                position,
                text: lower,
                position_length: 1,
            });
            for (rs, run) in alnum_runs(trimmed) {
                self.push(out, run, from + rs, from + rs + run.len(), position);
                position += 1;
            }
        }
    }
}

/// Characters trimmed from both ends of a piece (sentence punctuation, brackets, quotes).
fn is_edge_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '"' | '\''
            | '`' | '«' | '»' | '“' | '”' | '‘' | '’' | '…' | '*' | '|' | '<' | '>' | '#'
    )
}

fn trim_edges(piece: &str) -> (usize, &str) {
    let trimmed_start = piece.trim_start_matches(is_edge_punct);
    let lead = piece.len() - trimmed_start.len();
    (lead, trimmed_start.trim_end_matches(is_edge_punct))
}

fn split_whitespace_indices(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut pieces = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                pieces.push((s, &text[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        pieces.push((s, &text[s..]));
    }
    pieces.into_iter()
}

fn alnum_runs(s: &str) -> Vec<(usize, &str)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
            }
        } else if let Some(st) = start.take() {
            runs.push((st, &s[st..i]));
        }
    }
    if let Some(st) = start {
        runs.push((st, &s[st..]));
    }
    runs
}

/// Token stream over pre-analyzed tokens.
pub struct PhysicsTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    index: usize,
}

impl TokenStream for PhysicsTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.index < self.tokens.len() {
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &Token {
        &self.tokens[self.index - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index - 1]
    }
}

impl Tokenizer for PhysicsAnalyzer {
    type TokenStream<'a> = PhysicsTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> PhysicsTokenStream<'a> {
        let mut tokens = std::mem::take(&mut self.tokens);
        tokens.clear();
        self.analyze(text, &mut tokens);
        self.tokens = tokens;
        PhysicsTokenStream {
            tokens: &mut self.tokens,
            index: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain() -> PhysicsAnalyzer {
        PhysicsAnalyzer::new(AnalyzerOptions {
            stemming: false,
            stopwords: false,
        })
    }

    #[test]
    fn keeps_physics_symbols_searchable() {
        let a = plain();
        let t = a.terms("The pT of H→μμ with √s = 13 TeV, b-tagging and Z+jets (MET).");
        for want in [
            "pt", "h→μμ", "h", "μμ", "√s", "s", "13", "tev", "b-tagging", "b", "tagging", "z+jets",
            "z", "jets", "met", "the",
        ] {
            assert!(t.contains(&want.to_string()), "missing {want} in {t:?}");
        }
        assert!(!t.contains(&"=".to_string()));
        assert!(!t.iter().any(|x| x.ends_with('.') || x.ends_with(',')));
    }

    #[test]
    fn stemming_and_stopwords_are_options() {
        let a = PhysicsAnalyzer::new(AnalyzerOptions {
            stemming: true,
            stopwords: true,
        });
        let t = a.terms("The jets were measured in the b-tagging regions");
        assert_eq!(t, ["jet", "were", "measur", "b-tagging", "b", "tag", "region"]);
    }

    #[test]
    fn offsets_point_into_the_text() {
        let a = plain();
        let text = "  (Z+jets) x";
        let mut out = Vec::new();
        a.analyze(text, &mut out);
        assert_eq!(&text[out[0].offset_from..out[0].offset_to], "Z+jets");
        assert_eq!(&text[out[1].offset_from..out[1].offset_to], "Z");
    }
}
