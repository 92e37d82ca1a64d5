//! Text analysis for physics prose: keeps acronyms and symbolic terms (pT, H→μμ, Z+jets, √s) searchable.
//!
//! A whitespace-separated piece is trimmed of sentence punctuation. Its alphanumeric runs of two or
//! more characters are *word* tokens (what a standard English analyzer produces). Physics notation
//! goes to a second, *symbol* stream: the whole piece when it has inner symbols (`b-tagging`, `H→μμ`,
//! `Z+jets`, `√s`, `13.6`) and single-character runs (`b`, `Z`, `W`, `t`). The index keeps the two
//! streams in separate fields, so symbols never distort word statistics (document lengths, IDF)
//! and a query scores on both. Tokens are lowercased; Lucene's 33 English stop words and Snowball
//! English stemming are options (stemming applies to alphabetic words only).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (33 words).
pub const LUCENE_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Name under which the word stream is registered with tantivy.
pub const WORDS_TOKENIZER: &str = "mitra_words";
/// Name under which the symbol stream is registered with tantivy.
pub const SYMBOLS_TOKENIZER: &str = "mitra_symbols";

/// The two token streams of the analyzer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// Alphanumeric words of two or more characters.
    Words,
    /// Symbolic compounds and single characters.
    Symbols,
}

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
    stream: Stream,
    stemmer: Option<Arc<rust_stemmers::Stemmer>>,
    tokens: Vec<Token>,
}

impl PhysicsAnalyzer {
    /// Creates an analyzer with the given options.
    pub fn new(opts: AnalyzerOptions) -> Self {
        let stemmer = opts.stemming.then(|| {
            Arc::new(rust_stemmers::Stemmer::create(
                rust_stemmers::Algorithm::English,
            ))
        });
        Self {
            opts,
            stream: Stream::Words,
            stemmer,
            tokens: Vec::new(),
        }
    }

    /// The same analyzer emitting only `stream` (as a tantivy tokenizer).
    pub fn for_stream(&self, stream: Stream) -> Self {
        Self {
            stream,
            tokens: Vec::new(),
            ..self.clone()
        }
    }

    /// The options this analyzer applies.
    pub fn options(&self) -> AnalyzerOptions {
        self.opts
    }

    /// Analyzes `text` into the terms of one stream (duplicates kept, in order).
    pub fn terms_of(&self, text: &str, stream: Stream) -> Vec<String> {
        let (mut words, mut symbols) = (Vec::new(), Vec::new());
        self.analyze(text, &mut words, &mut symbols);
        let out = match stream {
            Stream::Words => words,
            Stream::Symbols => symbols,
        };
        out.into_iter().map(|t| t.text).collect()
    }

    /// Analyzes `text` into terms of both streams.
    pub fn terms(&self, text: &str) -> Vec<(Stream, String)> {
        let (mut words, mut symbols) = (Vec::new(), Vec::new());
        self.analyze(text, &mut words, &mut symbols);
        words
            .into_iter()
            .map(|t| (Stream::Words, t.text))
            .chain(symbols.into_iter().map(|t| (Stream::Symbols, t.text)))
            .collect()
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

    /// Appends the word tokens of `text` to `words` and its symbol tokens to `symbols`.
    pub fn analyze(&self, text: &str, words: &mut Vec<Token>, symbols: &mut Vec<Token>) {
        let mut position = 0usize;
        for (start, piece) in split_whitespace_indices(text) {
            let (lead, trimmed) = trim_edges(piece);
            let trimmed = strip_possessive(trimmed);
            if trimmed.is_empty() || !trimmed.chars().any(char::is_alphanumeric) {
                continue;
            }
            let from = start + lead;
            let runs = alnum_runs(trimmed);
            let compound = runs.len() != 1 || runs[0].1.len() != trimmed.len();
            if compound {
                symbols.push(Token {
                    offset_from: from,
                    offset_to: from + trimmed.len(),
                    position,
                    text: trimmed.to_lowercase(),
                    position_length: 1,
                });
            }
            // Dotted abbreviations (e.g., i.e., U.S.A.) are kept whole only, not as letters.
            let abbreviation = compound
                && runs.iter().all(|(_, r)| r.chars().nth(1).is_none())
                && trimmed.chars().all(|c| c == '.' || c.is_alphabetic());
            for (rs, run) in runs {
                let (f, t) = (from + rs, from + rs + run.len());
                if run.chars().nth(1).is_some() {
                    self.push(words, run, f, t, position);
                } else if !abbreviation {
                    self.push(symbols, run, f, t, position);
                }
                position += 1;
            }
        }
    }
}

/// Characters trimmed from both ends of a piece (sentence punctuation, brackets, quotes).
fn is_edge_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '"'
            | '\''
            | '`'
            | '«'
            | '»'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '…'
            | '*'
            | '|'
            | '<'
            | '>'
            | '#'
    )
}

/// Drops a trailing English possessive `'s` (as Lucene's `EnglishPossessiveFilter`).
fn strip_possessive(s: &str) -> &str {
    for suffix in ["'s", "'S", "’s", "’S"] {
        if let Some(stem) = s.strip_suffix(suffix) {
            return stem;
        }
    }
    s
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
        let mut other = Vec::new();
        match self.stream {
            Stream::Words => self.analyze(text, &mut tokens, &mut other),
            Stream::Symbols => self.analyze(text, &mut other, &mut tokens),
        }
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
        let text = "The pT of H→μμ with √s = 13 TeV, b-tagging and Z+jets (MET).";
        let w = a.terms_of(text, Stream::Words);
        let s = a.terms_of(text, Stream::Symbols);
        for want in ["pt", "μμ", "13", "tev", "tagging", "jets", "met", "the"] {
            assert!(
                w.contains(&want.to_string()),
                "missing word {want} in {w:?}"
            );
        }
        for want in ["h→μμ", "h", "√s", "s", "b-tagging", "b", "z+jets", "z"] {
            assert!(
                s.contains(&want.to_string()),
                "missing symbol {want} in {s:?}"
            );
        }
        assert!(!w.contains(&"b".to_string()) && !w.contains(&"b-tagging".to_string()));
        assert!(!s.contains(&"=".to_string()));
        assert!(!w
            .iter()
            .chain(&s)
            .any(|x| x.ends_with('.') || x.ends_with(',')));
    }

    #[test]
    fn stemming_and_stopwords_are_options() {
        let a = PhysicsAnalyzer::new(AnalyzerOptions {
            stemming: true,
            stopwords: true,
        });
        let t = a.terms_of(
            "The jets were measured in the b-tagging regions",
            Stream::Words,
        );
        assert_eq!(t, ["jet", "were", "measur", "tag", "region"]);
        let t = a.terms_of(
            "The jets were measured in the b-tagging regions",
            Stream::Symbols,
        );
        assert_eq!(t, ["b-tagging", "b"]);
        let t = a.terms_of("the detector's acceptance", Stream::Words);
        assert_eq!(t, ["detector", "accept"]);
        let t = a.terms_of("e.g. the Z boson", Stream::Symbols);
        assert_eq!(t, ["e.g", "z"]);
    }

    #[test]
    fn offsets_point_into_the_text() {
        let a = plain();
        let text = "  (Z+jets) x";
        let (mut w, mut s) = (Vec::new(), Vec::new());
        a.analyze(text, &mut w, &mut s);
        assert_eq!(&text[s[0].offset_from..s[0].offset_to], "Z+jets");
        assert_eq!(&text[s[1].offset_from..s[1].offset_to], "Z");
        assert_eq!(&text[w[0].offset_from..w[0].offset_to], "jets");
    }
}
