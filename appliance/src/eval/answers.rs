//! Answer evaluation: abstention accuracy and key-point coverage over a question file.
//!
//! Question file (JSONL), one object per line:
//! `{"_id": "q1", "text": "...", "answerable": true, "key_points": ["...", "..."], "gold_docs": ["..."]}`.
//! `answerable` defaults to true, `key_points` and `gold_docs` to none. Answers and key points
//! are normalised first (Unicode minus and superscripts to ASCII, `×` to `x`); a key point is
//! covered when every one of its analyzed terms occurs in the answer's analyzed terms (so
//! punctuation, case and, with stemming on, inflection do not matter), and a key point that is
//! a short number must appear as a whole number (`26` is not covered by `260`). A citation is
//! precise when its chunk belongs to a gold document (`doc_id` equal to, or ending in `/` and,
//! a gold id).

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::analyzer::PhysicsAnalyzer;
use crate::error::AppError;
use crate::index::Bm25Index;

/// One evaluation question.
#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    /// Question id.
    #[serde(rename = "_id")]
    pub id: String,
    /// Question text.
    pub text: String,
    /// Whether the corpus holds the answer.
    #[serde(default = "yes")]
    pub answerable: bool,
    /// Facts a good answer states.
    #[serde(default)]
    pub key_points: Vec<String>,
    /// Documents that hold the answer (for citation precision).
    #[serde(default)]
    pub gold_docs: Vec<String>,
}

fn yes() -> bool {
    true
}

/// An answer, or an abstention (`text` is `None`).
#[derive(Debug, Clone)]
pub struct Answer {
    /// The answer text; `None` when the system abstained.
    pub text: Option<String>,
    /// Chunk ids the answer cites.
    pub citations: Vec<String>,
}

/// Anything that answers questions.
pub trait Answerer {
    /// Answers one question.
    fn answer(&self, question: &str) -> Result<Answer, AppError>;
}

/// The trivial baseline: abstains when the best BM25 chunk scores below a threshold, otherwise
/// answers with the text of the top chunks.
pub struct RetrievalThresholdAnswerer<'a> {
    /// The index to search.
    pub index: &'a Bm25Index,
    /// Chunk texts by id, to quote.
    pub texts: std::collections::HashMap<String, String>,
    /// Abstain below this top score.
    pub threshold: f32,
    /// Chunks quoted in an answer.
    pub top: usize,
}

impl Answerer for RetrievalThresholdAnswerer<'_> {
    fn answer(&self, question: &str) -> Result<Answer, AppError> {
        let hits = self.index.search(question, self.top)?;
        if hits.first().is_none_or(|h| h.score < self.threshold) {
            return Ok(Answer {
                text: None,
                citations: vec![],
            });
        }
        let text = hits
            .iter()
            .filter_map(|h| self.texts.get(&h.chunk_id).cloned())
            .collect::<Vec<_>>()
            .join("\n\n");
        Ok(Answer {
            text: Some(text),
            citations: hits.into_iter().map(|h| h.chunk_id).collect(),
        })
    }
}

/// The grounded answers of the local language model, through `answer()` on a SQL session.
pub struct LlmAnswerer<'a> {
    /// The session (the store, its retrieval and the configured model).
    pub ctx: &'a datafusion::prelude::SessionContext,
    /// Passages per question.
    pub k: usize,
}

impl Answerer for LlmAnswerer<'_> {
    fn answer(&self, question: &str) -> Result<Answer, AppError> {
        use arrow::array::{Array, AsArray};
        let sql = format!(
            "SELECT answer, abstained, citations FROM answer('{}', {})",
            question.replace('\'', "''"),
            self.k
        );
        let run = async { self.ctx.sql(&sql).await?.collect().await };
        let batches =
            tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(run))?;
        let b = batches
            .first()
            .ok_or_else(|| AppError::Config("answer() returned no row".into()))?;
        let abstained = b.column(1).as_boolean().value(0);
        let cites = b.column(2).as_list::<i32>().value(0);
        let cites = cites.as_string::<i32>();
        Ok(Answer {
            text: (!abstained).then(|| b.column(0).as_string::<i32>().value(0).to_string()),
            citations: (0..cites.len())
                .map(|i| cites.value(i).to_string())
                .collect(),
        })
    }
}

/// Answer-level results.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct AnswerReport {
    /// Questions evaluated.
    pub questions: usize,
    /// Answerable questions.
    pub answerable: usize,
    /// (abstained on unanswerable + answered answerable) / questions.
    pub abstention_accuracy: f64,
    /// Answered fraction of answerable questions.
    pub answered_when_answerable: f64,
    /// Abstained fraction of unanswerable questions.
    pub abstained_when_unanswerable: f64,
    /// Mean fraction of key points covered, over answered answerable questions with key points.
    pub key_point_coverage: f64,
    /// Answered fraction of unanswerable questions (the hallucination risk).
    pub answered_unanswerable: f64,
    /// Cited chunks that belong to a gold document, over answers to questions with gold docs.
    pub citation_precision: f64,
    /// Answers with at least one citation, over answered questions.
    pub cited_answers: f64,
    /// Mean seconds per answer.
    pub mean_seconds: f64,
    /// Slowest answer, seconds.
    pub max_seconds: f64,
}

/// Answer text normalised for matching: Unicode minus and superscripts to ASCII, `×` to `x`.
pub fn normalize(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2212}' | '\u{2013}' | '\u{207B}' => '-',
            '\u{207A}' => '+',
            '\u{00D7}' => 'x',
            '\u{2070}' => '0',
            '\u{00B9}' => '1',
            '\u{00B2}' => '2',
            '\u{00B3}' => '3',
            c @ '\u{2074}'..='\u{2079}' => char::from_digit(c as u32 - 0x2070, 10).unwrap_or(c),
            c => c,
        })
        .collect()
}

/// Whether `number` occurs in `text` as a whole number (not inside a longer one).
fn has_number(text: &str, number: &str) -> bool {
    let is_num = |c: char| c.is_ascii_digit() || c == '.';
    text.match_indices(number).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + number.len()..].chars().next();
        !before.is_some_and(is_num) && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// The document of a chunk id (`doc@version#ordinal`).
fn doc_of(chunk_id: &str) -> &str {
    chunk_id.rsplit_once('@').map_or(chunk_id, |(d, _)| d)
}

fn is_gold(chunk_id: &str, gold: &[String]) -> bool {
    let d = doc_of(chunk_id);
    gold.iter().any(|g| d == g || d.ends_with(&format!("/{g}")))
}

/// Reads a question file.
pub fn read_questions(path: &Path) -> Result<Vec<Question>, AppError> {
    let text = std::fs::read_to_string(path).map_err(|source| AppError::Io {
        context: format!("reading questions {}", path.display()),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| AppError::Config(format!("{}:{}: {e}", path.display(), i + 1)))
        })
        .collect()
}

/// Fraction of key points whose terms all occur in the answer.
pub fn coverage(analyzer: &PhysicsAnalyzer, answer: &str, key_points: &[String]) -> f64 {
    if key_points.is_empty() {
        return 0.0;
    }
    let answer = normalize(answer);
    let have: HashSet<String> = analyzer
        .terms(&answer)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let covered = key_points
        .iter()
        .filter(|kp| {
            let kp = normalize(kp);
            let short_number = kp.len() <= 4 && kp.chars().all(|c| c.is_ascii_digit() || c == '.');
            if short_number {
                return has_number(&answer, &kp);
            }
            let terms = analyzer.terms(&kp);
            !terms.is_empty() && terms.iter().all(|(_, t)| have.contains(t))
        })
        .count();
    covered as f64 / key_points.len() as f64
}

/// Runs every question through `answerer` and scores abstention and coverage.
pub fn evaluate(
    answerer: &dyn Answerer,
    analyzer: &PhysicsAnalyzer,
    questions: &[Question],
) -> Result<AnswerReport, AppError> {
    let mut r = AnswerReport {
        questions: questions.len(),
        ..Default::default()
    };
    let (mut correct, mut answered_ok, mut abstained_ok, mut unanswerable) = (0, 0, 0, 0);
    let (mut cov_sum, mut cov_n) = (0.0, 0);
    let (mut precise, mut cited_n, mut answered, mut with_cites) = (0usize, 0usize, 0usize, 0usize);
    let (mut secs, mut max_secs) = (0.0f64, 0.0f64);
    for q in questions {
        let t = std::time::Instant::now();
        let a = answerer.answer(&q.text)?;
        let took = t.elapsed().as_secs_f64();
        secs += took;
        max_secs = max_secs.max(took);
        if a.text.is_some() {
            answered += 1;
            with_cites += usize::from(!a.citations.is_empty());
            if !q.gold_docs.is_empty() {
                cited_n += a.citations.len();
                precise += a
                    .citations
                    .iter()
                    .filter(|c| is_gold(c, &q.gold_docs))
                    .count();
            }
        }
        match (q.answerable, &a.text) {
            (true, Some(text)) => {
                correct += 1;
                answered_ok += 1;
                if !q.key_points.is_empty() {
                    cov_sum += coverage(analyzer, text, &q.key_points);
                    cov_n += 1;
                }
            }
            (false, None) => {
                correct += 1;
                abstained_ok += 1;
            }
            _ => {}
        }
        if q.answerable {
            r.answerable += 1;
        } else {
            unanswerable += 1;
        }
    }
    let frac = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    r.abstention_accuracy = frac(correct, questions.len());
    r.answered_when_answerable = frac(answered_ok, r.answerable);
    r.abstained_when_unanswerable = frac(abstained_ok, unanswerable);
    r.key_point_coverage = if cov_n == 0 {
        0.0
    } else {
        cov_sum / cov_n as f64
    };
    r.answered_unanswerable = frac(unanswerable - abstained_ok, unanswerable);
    r.citation_precision = frac(precise, cited_n);
    r.cited_answers = frac(with_cites, answered);
    r.mean_seconds = if questions.is_empty() {
        0.0
    } else {
        secs / questions.len() as f64
    };
    r.max_seconds = max_secs;
    Ok(r)
}
