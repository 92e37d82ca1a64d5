//! Answer evaluation: abstention accuracy and key-point coverage over a question file.
//!
//! Question file (JSONL), one object per line:
//! `{"_id": "q1", "text": "...", "answerable": true, "key_points": ["...", "..."]}`.
//! `answerable` defaults to true and `key_points` to none. A key point is covered when every one of
//! its analyzed terms occurs in the answer's analyzed terms (so punctuation, case and, with
//! stemming on, inflection do not matter).

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

/// Anything that answers questions (the LLM answerer will implement this).
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
    let have: HashSet<String> = analyzer.terms(answer).into_iter().map(|(_, t)| t).collect();
    let covered = key_points
        .iter()
        .filter(|kp| {
            let terms = analyzer.terms(kp);
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
    for q in questions {
        let a = answerer.answer(&q.text)?;
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
    Ok(r)
}
