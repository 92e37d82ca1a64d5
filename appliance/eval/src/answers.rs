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

use mitra_llm::grounding::{has_number, normalize, unwritten_numbers};
use serde::{Deserialize, Serialize};

use crate::EvalError;
use mitra_store::analyzer::PhysicsAnalyzer;
use mitra_store::index::Bm25Index;

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
    /// The analysis the asking session is scoped to (none: every readable analysis).
    #[serde(default)]
    pub analysis_id: Option<String>,
    /// The part of the set the question belongs to (`tune`, `measure`), for `--split`.
    #[serde(default)]
    pub split: Option<String>,
}

fn yes() -> bool {
    true
}

/// An answer, or an abstention (`text` is `None`).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// The answer text; `None` when the system abstained.
    pub text: Option<String>,
    /// Chunk ids the answer cites.
    pub citations: Vec<String>,
    /// Sentences the model wrote and sentences kept after the support check (answered or not).
    pub sentences: (usize, usize),
    /// Shown sentences, and those with a number that none of their cited passages has.
    pub numbers: (usize, usize),
    /// What happened, step by step (written to `--traces`).
    pub trace: Option<serde_json::Value>,
}

/// Anything that answers questions.
pub trait Answerer {
    /// Answers one question (inside the question's analysis when it names one).
    fn answer(&self, question: &Question) -> Result<Answer, EvalError>;
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
    fn answer(&self, question: &Question) -> Result<Answer, EvalError> {
        let hits = self.index.search(&question.text, self.top)?;
        if hits.first().is_none_or(|h| h.score < self.threshold) {
            return Ok(Answer::default());
        }
        let text = hits
            .iter()
            .filter_map(|h| self.texts.get(&h.chunk_id).cloned())
            .collect::<Vec<_>>()
            .join("\n\n");
        Ok(Answer {
            text: Some(text),
            citations: hits.into_iter().map(|h| h.chunk_id).collect(),
            ..Default::default()
        })
    }
}

/// The grounded answers of the local language model: the evidence of `answer()` (`hybrid()`
/// inside the question's analysis, on a SQL session), then the same pipeline, whose every step
/// is kept for the trace.
pub struct LlmAnswerer<'a> {
    /// The session (the store, its retrieval and the configured model).
    pub ctx: &'a datafusion::prelude::SessionContext,
    /// The language model.
    pub llm: &'a mitra_sql::llm::Llm,
    /// The store (passages are read from its `chunks`).
    pub data_dir: &'a Path,
    /// Passages per question.
    pub k: usize,
}

impl Answerer for LlmAnswerer<'_> {
    fn answer(&self, question: &Question) -> Result<Answer, EvalError> {
        use arrow::array::AsArray;
        let lit = |s: &str| format!("'{}'", s.replace('\'', "''"));
        let scope = question
            .analysis_id
            .as_deref()
            .map_or(String::new(), |a| format!(", {}", lit(a)));
        // As answer() retrieves: more than k for the relevance step's second look (and the
        // passages stating changes of first-look values among them).
        let depth = self.k.max(self.llm.second_look_depth());
        let sql = format!(
            "SELECT chunk_id FROM hybrid({}, {depth}{scope}) ORDER BY rank",
            lit(&question.text),
        );
        let run = async {
            let batches = self.ctx.sql(&sql).await?.collect().await?;
            let ids: Vec<String> = batches
                .iter()
                .flat_map(|b| {
                    let c = b.column(0).as_string::<i32>();
                    (0..b.num_rows())
                        .map(|i| c.value(i).to_string())
                        .collect::<Vec<_>>()
                })
                .collect();
            let (passages, version) =
                mitra_sql::answer_fn::read_passages(self.data_dir, &ids, None)
                    .await
                    .map_err(|e| EvalError::Config(format!("reading the evidence: {e}")))?;
            let (ev, settings) = self.llm.with_updates(
                self.k,
                mitra_sql::llm::Evidence {
                    passages: passages.clone(),
                    best_similarity: None,
                    chunks_version: Some(version.chunks),
                    store: Some(version),
                    ..Default::default()
                },
            );
            let row = mitra_sql::llm::submit_with(self.llm, settings, &question.text, ev)
                .map_err(|e| EvalError::Config(format!("language model: {e}")))?
                .finish()
                .await
                .map_err(|e| EvalError::Config(format!("language model: {e}")))?;
            Ok::<_, EvalError>((row, passages))
        };
        let (row, passages) =
            tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(run))?;
        // Shown sentences with a number none of their cited passages writes (numbers the
        // question writes are restated, not asserted: the support step's own check).
        let mut shown = 0;
        let mut bad_numbers = 0;
        if !row.abstained {
            for sent in row.sentences.iter().filter(|s| s.kept) {
                shown += 1;
                let cited: Vec<&mitra_llm::Passage> = sent
                    .cites
                    .iter()
                    .filter_map(|id| passages.iter().find(|p| &p.chunk_id == id))
                    .collect();
                let claim = mitra_llm::grounding::sentences(&sent.text)
                    .first()
                    .map_or(sent.text.clone(), |s| s.claim.clone());
                if !unwritten_numbers(&claim, &question.text, &cited).is_empty() {
                    bad_numbers += 1;
                }
            }
        }
        let kept = row.sentences.iter().filter(|s| s.kept).count();
        let trace = serde_json::json!({
            "id": question.id,
            "question": question.text,
            "asked": row.asked,
            "analysis_id": question.analysis_id,
            "answerable": question.answerable,
            "evidence": row.evidence,
            "relevance": row.relevance,
            "relevant": row.relevant,
            "shown": row.shown.iter().map(|(id, text)| serde_json::json!({"id": id, "text": text})).collect::<Vec<_>>(),
            "unmentioned": row.unmentioned,
            "raw": row.raw,
            "sentences": row
                .sentences
                .iter()
                .map(|s| serde_json::json!({"text": s.text, "cites": s.cites, "support": s.support, "kept": s.kept, "verdict": s.verdict, "restated": s.restated}))
                .collect::<Vec<_>>(),
            "answer": row.answer,
            "abstained": row.abstained,
            "abstention": mitra_sql::answers_log::abstention_name(row.abstention),
            "citations": row.citations,
            "prompt_tokens": row.prompt_tokens,
            "completion_tokens": row.completion_tokens,
            "ms": {"relevance": row.ms_checks.0, "prefill": row.ms_prefill, "decode": row.ms_decode, "support": row.ms_checks.1},
        });
        Ok(Answer {
            text: (!row.abstained).then(|| row.answer.clone()),
            citations: row.citations.clone(),
            sentences: (row.sentences.len(), kept),
            numbers: (shown, bad_numbers),
            trace: Some(trace),
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
    /// Sentences the model wrote that the support check kept, over all it wrote.
    pub support_rate: f64,
    /// Shown sentences with a number that none of the passages they cite writes, over all
    /// shown sentences (an independent check of what is shown).
    pub shown_unsupported_numbers: f64,
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
pub fn read_questions(path: &Path) -> Result<Vec<Question>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Io {
        context: format!("reading questions {}", path.display()),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| EvalError::Config(format!("{}:{}: {e}", path.display(), i + 1)))
        })
        .collect()
}

/// Units spelled out, with the symbol they are read as ("2.5 radians" covers "2.5 rad").
const UNIT_SPELLINGS: &[(&str, &str)] = &[
    ("radians", "rad"),
    ("radian", "rad"),
    ("inverse femtobarns", "fb-1"),
    ("inverse femtobarn", "fb-1"),
    ("inverse picobarns", "pb-1"),
    ("inverse picobarn", "pb-1"),
    ("standard deviations", "σ"),
    ("sigma", "σ"),
    ("percent", "%"),
];

/// `s` (lower case) with each unit of [`UNIT_SPELLINGS`], a whole word, written as its symbol.
fn unit_symbols(s: &str) -> String {
    let mut s = s.to_string();
    for (long, short) in UNIT_SPELLINGS {
        let mut out = String::with_capacity(s.len());
        let mut at = 0;
        for (i, _) in s.match_indices(long) {
            let before = s[..i].chars().next_back();
            let after = s[i + long.len()..].chars().next();
            if i >= at
                && !before.is_some_and(char::is_alphanumeric)
                && !after.is_some_and(char::is_alphanumeric)
            {
                let kept = &s[at..i];
                // A symbol is written against its number ("3.1σ", "65%").
                let attached = matches!(*short, "σ" | "%")
                    && kept.ends_with(' ')
                    && kept[..kept.len() - 1].ends_with(|c: char| c.is_ascii_digit());
                out.push_str(if attached {
                    &kept[..kept.len() - 1]
                } else {
                    kept
                });
                out.push_str(short);
                at = i + long.len();
            }
        }
        out.push_str(&s[at..]);
        s = out;
    }
    s
}

/// Fraction of key points whose terms all occur in the answer (an approximation sign before a
/// value, "~65%", is not part of it; a unit spelled out, "radians", reads as its symbol).
pub fn coverage(analyzer: &PhysicsAnalyzer, answer: &str, key_points: &[String]) -> f64 {
    if key_points.is_empty() {
        return 0.0;
    }
    let plain = |s: &str| unit_symbols(&normalize(s).to_lowercase()).replace(['~', '≈', '∼'], " ");
    let answer = plain(answer);
    let have: HashSet<String> = analyzer
        .terms(&answer)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let covered = key_points
        .iter()
        .filter(|kp| {
            let kp = plain(kp);
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
    mut traces: Option<&mut dyn std::io::Write>,
) -> Result<AnswerReport, EvalError> {
    let mut r = AnswerReport {
        questions: questions.len(),
        ..Default::default()
    };
    let (mut correct, mut answered_ok, mut abstained_ok, mut unanswerable) = (0, 0, 0, 0);
    let (mut cov_sum, mut cov_n) = (0.0, 0);
    let (mut precise, mut cited_n, mut answered, mut with_cites) = (0usize, 0usize, 0usize, 0usize);
    let (mut secs, mut max_secs) = (0.0f64, 0.0f64);
    let (mut written, mut kept, mut shown, mut bad_numbers) = (0usize, 0usize, 0usize, 0usize);
    for q in questions {
        let t = std::time::Instant::now();
        let a = answerer.answer(q)?;
        let took = t.elapsed().as_secs_f64();
        // The citations in a gold document (what citation precision counts).
        let gold: Vec<&String> = a
            .citations
            .iter()
            .filter(|c| is_gold(c, &q.gold_docs))
            .collect();
        written += a.sentences.0;
        kept += a.sentences.1;
        shown += a.numbers.0;
        bad_numbers += a.numbers.1;
        if let (Some(w), Some(tr)) = (traces.as_mut(), &a.trace) {
            let mut tr = tr.clone();
            tr["seconds"] = serde_json::json!(took);
            if let Some(text) = &a.text {
                tr["key_point_coverage"] =
                    serde_json::json!(coverage(analyzer, text, &q.key_points));
            }
            // Offline readers of the traces need not repeat the gold rule.
            tr["gold_citations"] = serde_json::json!(gold);
            writeln!(w, "{tr}")
                .and_then(|()| w.flush())
                .map_err(|source| EvalError::Io {
                    context: "writing the traces".into(),
                    source,
                })?;
        }
        secs += took;
        max_secs = max_secs.max(took);
        if a.text.is_some() {
            answered += 1;
            with_cites += usize::from(!a.citations.is_empty());
            if !q.gold_docs.is_empty() {
                cited_n += a.citations.len();
                precise += gold.len();
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
    r.support_rate = frac(kept, written);
    r.shown_unsupported_numbers = frac(bad_numbers, shown);
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mitra_store::analyzer::AnalyzerOptions;

    /// A stemming analyzer that drops stop words.
    fn analyzer() -> PhysicsAnalyzer {
        PhysicsAnalyzer::new(AnalyzerOptions {
            stemming: true,
            stopwords: true,
        })
    }

    /// One key point.
    fn kp(k: &str) -> Vec<String> {
        vec![k.to_string()]
    }

    #[test]
    fn an_approximate_value_covers_its_key_point() {
        let a = analyzer();
        assert_eq!(
            coverage(&a, "Z(νν) is ~65% of the SR background.", &kp("65%")),
            1.0
        );
        assert_eq!(coverage(&a, "It is ≈ 65 % of it.", &kp("65 %")), 1.0);
        assert_eq!(coverage(&a, "It is 65% of it.", &kp("65%")), 1.0);
        assert_eq!(coverage(&a, "It is ~56% of it.", &kp("65%")), 0.0);
        assert_eq!(coverage(&a, "It is 0.65 of it.", &kp("65")), 0.0);
    }

    #[test]
    fn a_unit_spelled_out_covers_its_symbol() {
        let a = analyzer();
        let apart = "They must be 2.5 Radians apart.";
        assert_eq!(coverage(&a, apart, &kp("2.5 rad")), 1.0);
        assert_eq!(coverage(&a, "It is 2.5 rad.", &kp("2.5 radians")), 1.0);
        assert_eq!(coverage(&a, "138 inverse femtobarns", &kp("138 fb⁻¹")), 1.0);
        assert_eq!(coverage(&a, "3.1 standard deviations", &kp("3.1σ")), 1.0);
        // Whole words only, and the value still decides.
        assert_eq!(unit_symbols("the radiant sigmas"), "the radiant sigmas");
        assert_eq!(
            coverage(&a, "They must be 2.4 radians apart.", &kp("2.5 rad")),
            0.0
        );
    }
}
