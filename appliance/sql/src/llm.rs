//! The process's language model and grounded answering: which GGUF, its worker (started on first
//! use, shared by every session), evidence in, a checked answer with citations out.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex};

use mitra_llm::grounding::{Budget, Passage};
use mitra_llm::{
    Checks, Event, LlmError, LoadOptions, Outcome, Params, Refusal, Worker, WorkerStatus,
};

use serde::{Deserialize, Serialize};

use mitra_store::config::{Config, LlmConfig, Uncited};
use mitra_store::store::TableVersions;

/// The language model as a session sees it.
pub struct Llm {
    cfg: LlmConfig,
    source: Result<(PathBuf, LoadOptions), String>,
    key: String,
}

impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Llm({})", self.key)
    }
}

static WORKERS: LazyLock<Mutex<HashMap<String, Arc<Worker>>>> = LazyLock::new(Default::default);

/// The GGUF file and load options `cfg` names, or why there is none.
fn resolve(cfg: &Config) -> Result<(PathBuf, LoadOptions), String> {
    let (path, mut opts) = resolve_model(cfg)?;
    if let Some(t) = &cfg.llm.chat_template {
        let source = std::fs::read_to_string(t)
            .map_err(|e| format!("llm.chat_template {}: {e}", t.display()))?;
        opts.chat_template = Some(source);
    }
    Ok((path, opts))
}

/// The GGUF file `cfg` names: `llm.model_path`, or the registry model in the models directory.
fn resolve_model(cfg: &Config) -> Result<(PathBuf, LoadOptions), String> {
    let l = &cfg.llm;
    if let Some(p) = &l.model_path {
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into());
        return Ok((
            p.clone(),
            LoadOptions {
                name,
                sha256: None,
                device: l.device.clone(),
                reference: false,
                chat_template: None,
            },
        ));
    }
    let m = mitra_store::models::entry(&l.model).map_err(|e| e.to_string())?;
    let Some(file) = (m.kind == mitra_store::models::ModelKind::Llm)
        .then(|| m.gguf())
        .flatten()
    else {
        return Err(format!(
            "llm.model {:?} is not a language model; see `mitra models list`",
            l.model
        ));
    };
    let path = cfg.embedding.models_dir.join(&m.name).join(&file.path);
    if !path.is_file() {
        return Err(format!(
            "language model {} is not present in {}; run `mitra models fetch {}` (or set llm.model_path to a local GGUF file)",
            m.name,
            cfg.embedding.models_dir.display(),
            m.name
        ));
    }
    Ok((
        path,
        LoadOptions {
            name: m.name.clone(),
            sha256: Some(file.sha256.clone()),
            device: l.device.clone(),
            reference: false,
            chat_template: None,
        },
    ))
}

impl Llm {
    /// The model `cfg` configures (resolved now, loaded on first use).
    pub fn new(cfg: &Config) -> Llm {
        let source = resolve(cfg);
        let key = match &source {
            Ok((p, o)) => format!(
                "{}|{}|{}|{:?}",
                p.display(),
                o.device,
                cfg.llm.queue_depth,
                cfg.llm.chat_template
            ),
            Err(e) => e.clone(),
        };
        Llm {
            cfg: cfg.llm.clone(),
            source,
            key,
        }
    }

    /// The settings.
    pub fn config(&self) -> &LlmConfig {
        &self.cfg
    }

    /// The configured model's name (registry name or file stem), loaded or not.
    pub fn name(&self) -> String {
        match &self.source {
            Ok((_, o)) => o.name.clone(),
            Err(_) => self.cfg.model.clone(),
        }
    }

    /// The worker, started (and the model loaded, in its thread) on first use in this process.
    pub fn worker(&self) -> Result<Arc<Worker>, LlmError> {
        let (path, opts) = self.source.clone().map_err(LlmError::NotConfigured)?;
        let mut map = WORKERS.lock().expect("llm workers");
        Ok(map
            .entry(self.key.clone())
            .or_insert_with(|| Worker::start(path, opts, self.cfg.queue_depth))
            .clone())
    }

    /// The worker's state, if it was started.
    pub fn status(&self) -> Option<WorkerStatus> {
        WORKERS
            .lock()
            .expect("llm workers")
            .get(&self.key)
            .map(|w| w.status())
    }

    /// Why no model can be used, if so (without starting it).
    pub fn unavailable(&self) -> Option<&str> {
        self.source.as_ref().err().map(String::as_str)
    }

    /// Passages to retrieve for the relevance step's second look (`llm.second_look_k` with
    /// the relevance check on, else 0).
    pub fn second_look_depth(&self) -> usize {
        if self.cfg.relevance_check {
            self.cfg.second_look_k
        } else {
            0
        }
    }

    /// The evidence and settings of an answer from the candidates `ev` (rank order), of which
    /// the first `k` are judged first: each later candidate stating a change of a value a
    /// first-look passage gives joins the first look, right after that passage
    /// ([`mitra_llm::updates::bring_forward`]: the old value alone reads as current), and of
    /// the rest as many are kept as the second look takes (`llm.second_look_k` in all, besides
    /// those brought forward; callers retrieve that many, so none is dropped). A reranked `ev`
    /// (k passages) is left as it is. The answer's receipt records the order made here, and a
    /// replay submits it as recorded.
    pub fn with_updates(&self, k: usize, mut ev: Evidence) -> (Evidence, Settings) {
        let n = ev.passages.len();
        if n <= k {
            return (ev, self.settings_for(k, n));
        }
        let (mut order, first) = mitra_llm::updates::bring_forward(&ev.passages, k);
        order.truncate(first + self.second_look_depth().saturating_sub(k));
        ev.passages = order.iter().map(|&i| ev.passages[i].clone()).collect();
        ev.relevance = ev
            .relevance
            .and_then(|r| order.iter().map(|&i| r.get(i).copied()).collect());
        let settings = self.settings_for(first, ev.passages.len());
        (ev, settings)
    }

    /// The settings of an answer from `given` passages of which the first `k` are judged
    /// first (more than k: the rest are the relevance step's second look).
    pub fn settings_for(&self, k: usize, given: usize) -> Settings {
        Settings {
            first_look: (given > k).then_some(k),
            ..self.settings()
        }
    }

    /// The settings an answer is made with now (recorded in its receipt).
    pub fn settings(&self) -> Settings {
        let c = &self.cfg;
        Settings {
            context_tokens: c.context_tokens,
            max_new_tokens: c.max_new_tokens,
            max_passage_tokens: c.max_passage_tokens,
            temperature: c.temperature,
            top_p: c.top_p,
            seed: c.seed,
            repeat_penalty: c.repeat_penalty,
            ignore_eos: c.ignore_eos,
            relevance_check: c.relevance_check,
            min_relevance: c.min_relevance,
            min_shown_relevance: Some(c.min_shown_relevance),
            relevance_paragraphs: c.relevance_paragraphs,
            answer_paragraphs: c.answer_paragraphs,
            support_check: c.support_check,
            min_support: c.min_support,
            min_answer_support: Some(c.min_answer_support),
            first_look: None,
            uncited: c.uncited,
            min_similarity: c.min_similarity,
        }
    }
}

/// Every setting an answer depends on (the `[llm]` values at the time it was made).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `llm.context_tokens`.
    pub context_tokens: usize,
    /// `llm.max_new_tokens`.
    pub max_new_tokens: usize,
    /// `llm.max_passage_tokens`.
    pub max_passage_tokens: usize,
    /// `llm.temperature`.
    pub temperature: f64,
    /// `llm.top_p`.
    pub top_p: f64,
    /// `llm.seed`.
    pub seed: u64,
    /// `llm.repeat_penalty`.
    pub repeat_penalty: f32,
    /// `llm.ignore_eos`.
    pub ignore_eos: bool,
    /// `llm.relevance_check`.
    pub relevance_check: bool,
    /// `llm.min_relevance`.
    pub min_relevance: f32,
    /// `llm.min_shown_relevance` (`None`, `min_relevance`, in receipts of answers made before
    /// it existed).
    #[serde(default)]
    pub min_shown_relevance: Option<f32>,
    /// `llm.relevance_paragraphs` (0, the whole passage, in receipts of answers made before
    /// it existed).
    #[serde(default)]
    pub relevance_paragraphs: usize,
    /// `llm.answer_paragraphs` (0, the whole passage, in receipts of answers made before it
    /// existed).
    #[serde(default)]
    pub answer_paragraphs: usize,
    /// `llm.support_check`.
    pub support_check: bool,
    /// `llm.min_support`.
    pub min_support: f32,
    /// `llm.min_answer_support` (`None` in receipts of answers made before it existed).
    #[serde(default)]
    pub min_answer_support: Option<f32>,
    /// Passages the relevance step judged first, the rest only when none of these was
    /// relevant (the call's k when more were retrieved for a second look; `None`: all).
    #[serde(default)]
    pub first_look: Option<usize>,
    /// `llm.uncited`.
    pub uncited: Uncited,
    /// `llm.min_similarity`.
    pub min_similarity: f64,
}

impl Settings {
    /// Decoding settings.
    pub fn params(&self) -> Params {
        Params {
            max_new_tokens: self.max_new_tokens,
            temperature: self.temperature,
            top_p: (self.top_p < 1.0).then_some(self.top_p),
            seed: self.seed,
            repeat_penalty: self.repeat_penalty,
            repeat_last_n: 64,
            ignore_eos: self.ignore_eos,
        }
    }

    /// The checks around generation.
    pub fn checks(&self) -> Checks {
        Checks {
            relevance: self.relevance_check,
            min_relevance: self.min_relevance,
            min_shown_relevance: self.min_shown_relevance,
            relevance_paragraphs: self.relevance_paragraphs,
            answer_paragraphs: self.answer_paragraphs,
            first_look: self.first_look,
            support: self.support_check,
            min_support: self.min_support,
            min_answer_support: self.min_answer_support,
        }
    }

    fn budget(&self) -> Budget {
        Budget {
            context_tokens: self.context_tokens,
            max_new_tokens: self.max_new_tokens,
            max_passage_tokens: self.max_passage_tokens,
        }
    }
}

/// What an answer depended on besides its question, evidence ids, chunks version and model:
/// recorded with it (`answers.receipt`, JSON), read back by `replay()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    /// The settings it was made with.
    pub settings: Settings,
    /// Best dense similarity of the evidence (the retrieval gate's input).
    pub best_similarity: Option<f64>,
    /// sha256 of the passages of `evidence` as given (id, title, heading, text of each, in
    /// order).
    pub evidence_sha256: String,
    /// The store's versions the passages were read at (see [`Evidence::store`]).
    pub store: Option<TableVersions>,
    /// sha256 of the prompts before the answer's (see `mitra_llm::Outcome::prompt_sha256`).
    pub prompt_sha256: String,
    /// The reranker that ordered the evidence, if one ran.
    #[serde(default)]
    pub reranker: Option<String>,
}

/// sha256 (hex) of passages as given to the model.
pub fn evidence_sha256(passages: &[Passage]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in passages {
        for part in [
            p.chunk_id.as_str(),
            p.title.as_deref().unwrap_or(""),
            p.heading.as_deref().unwrap_or(""),
            &p.text,
        ] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
    }
    hex::encode(h.finalize())
}

/// The evidence of one answer.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// Passages in rank order.
    pub passages: Vec<Passage>,
    /// Best dense similarity among them (for the retrieval gate), when known.
    pub best_similarity: Option<f64>,
    /// The `chunks` version they were read from.
    pub chunks_version: Option<u64>,
    /// The store's versions when they were read (for `answer_from`, whose caller's query read
    /// them: the latest at the call, when answers are recorded).
    pub store: Option<TableVersions>,
    /// The reranker that ordered the passages, if one ran (its label).
    pub reranker: Option<String>,
    /// The LLM reranker's scores of the passages (same judge as the relevance step, which
    /// then takes them instead of judging again).
    pub relevance: Option<Vec<f32>>,
}

/// Why an answer abstained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abstention {
    /// It did not.
    No,
    /// No passage was retrieved.
    NoEvidence,
    /// The retrieval gate (`llm.min_similarity`).
    Gate,
    /// The model replied with the abstention.
    Model,
    /// The model cited no given passage (`llm.uncited = "abstain"`).
    Uncited,
    /// The relevance step found no passage giving the requested fact.
    NotRelevant,
    /// The question names an identifier no passage mentions, or a year, bin or point no
    /// relevant passage writes ([`AnswerRow::unmentioned`]).
    Unmentioned,
    /// No cited sentence of the answer is supported by the passages it cites (or none well
    /// enough: `llm.min_answer_support`).
    Unsupported,
    /// The answer only restates the question, or gives no number (of the kind asked) for a
    /// quantity asked.
    Unanswered,
}

/// One checked answer: the row of `answer()`.
#[derive(Debug, Clone)]
pub struct AnswerRow {
    /// The answer text (the abstention when abstained).
    pub answer: String,
    /// Whether Mitra abstained.
    pub abstained: bool,
    /// Why.
    pub abstention: Abstention,
    /// Whether every part of the answer is backed by at least one valid citation.
    pub grounded: bool,
    /// Cited chunk ids (each one of `evidence`).
    pub citations: Vec<String>,
    /// Citations naming no given passage (dropped).
    pub invalid_citations: usize,
    /// Chunk ids given to the model.
    pub evidence: Vec<String>,
    /// Relevance log-odds of each evidence passage (empty when the step did not run).
    pub relevance: Vec<f32>,
    /// Evidence passages the answer step read: judged to give the requested fact, or, once
    /// one is, at or above `llm.min_shown_relevance` ([`Checks::shown`]).
    pub relevant: Vec<String>,
    /// The question as the model steps read it, when Mitra rewrote it (the label of a table
    /// place it describes by rank: "third pt bin (25–35)").
    pub asked: Option<String>,
    /// The passages the answer step was shown, as (chunk id, text as shown: cut to the
    /// budget and windowed); the support step judged against the same text.
    pub shown: Vec<(String, String)>,
    /// The question's identifiers no retrieved passage mentions, or its numbers (a year, a
    /// bin edge, a point) no relevant passage writes (why it abstained as
    /// [`Abstention::Unmentioned`]).
    pub unmentioned: Vec<String>,
    /// Sentences of the model's answer removed as unsupported by what they cite.
    pub unsupported: usize,
    /// Each sentence of the model's answer, judged.
    pub sentences: Vec<SentenceRow>,
    /// Milliseconds of the relevance and of the support step.
    pub ms_checks: (f32, f32),
    /// The model's text before the checks.
    pub raw: String,
    /// `name sha256:…`.
    pub model: String,
    /// The `chunks` version of the evidence.
    pub chunks_version: Option<u64>,
    /// Prompt tokens.
    pub prompt_tokens: usize,
    /// Generated tokens.
    pub completion_tokens: usize,
    /// Prefill milliseconds.
    pub ms_prefill: f32,
    /// Decode milliseconds.
    pub ms_decode: f32,
    /// The reranker that ordered the evidence, if one ran.
    pub reranker: Option<String>,
    /// What else it depended on.
    pub receipt: Receipt,
}

/// The receipt of an answer whose `evidence` column lists `given` (the passages that fit the
/// prompt; none when it abstained before the model ran).
fn receipt(
    settings: &Settings,
    ev: &Evidence,
    given: &[Passage],
    prompt_sha256: String,
) -> Receipt {
    Receipt {
        settings: settings.clone(),
        best_similarity: ev.best_similarity,
        evidence_sha256: evidence_sha256(given),
        store: ev.store,
        prompt_sha256,
        reranker: ev.reranker.clone(),
    }
}

fn abstain(llm: &Llm, settings: &Settings, ev: &Evidence, why: Abstention) -> AnswerRow {
    AnswerRow {
        answer: mitra_llm::ABSTENTION.to_string(),
        abstained: true,
        abstention: why,
        grounded: false,
        citations: Vec::new(),
        invalid_citations: 0,
        evidence: Vec::new(),
        relevance: Vec::new(),
        relevant: Vec::new(),
        asked: None,
        shown: Vec::new(),
        unmentioned: Vec::new(),
        unsupported: 0,
        sentences: Vec::new(),
        ms_checks: (0.0, 0.0),
        raw: String::new(),
        model: llm.name(),
        chunks_version: ev.chunks_version,
        prompt_tokens: 0,
        completion_tokens: 0,
        ms_prefill: 0.0,
        ms_decode: 0.0,
        reranker: ev.reranker.clone(),
        receipt: receipt(settings, ev, &[], String::new()),
    }
}

/// One sentence of the model's answer after the support step.
#[derive(Debug, Clone, PartialEq)]
pub struct SentenceRow {
    /// The sentence as written.
    pub text: String,
    /// Chunk ids it cites.
    pub cites: Vec<String>,
    /// Support log-odds against what it cites (`None`: not judged).
    pub support: Option<f32>,
    /// Kept in the answer.
    pub kept: bool,
    /// Restated with the values a passage says replaced the ones it gave.
    pub restated: bool,
    /// What the support step decided, and why ([`mitra_llm::Verdict::name`]).
    pub verdict: &'static str,
}

/// A submitted answer: stream its text with [`Pending::next_text`], then [`Pending::finish`].
pub struct Pending {
    ticket: Option<mitra_llm::Ticket>,
    ready: Option<AnswerRow>,
    evidence: Evidence,
    settings: Settings,
    model: String,
    worker: Option<Arc<Worker>>,
}

/// Starts answering `question` over `ev` with the current settings: the retrieval gate, then
/// the relevance step, the generation and the support step on the worker (busy:
/// [`LlmError::Busy`] at once).
pub fn submit(llm: &Llm, question: &str, ev: Evidence) -> Result<Pending, LlmError> {
    submit_with(llm, llm.settings(), question, ev)
}

/// [`submit`] with the given settings (a replay's recorded ones).
pub fn submit_with(
    llm: &Llm,
    settings: Settings,
    question: &str,
    ev: Evidence,
) -> Result<Pending, LlmError> {
    let gate = settings.min_similarity;
    let early = if ev.passages.is_empty() {
        Some(Abstention::NoEvidence)
    } else if gate > 0.0 && ev.best_similarity.is_some_and(|s| s < gate) {
        Some(Abstention::Gate)
    } else {
        None
    };
    if let Some(why) = early {
        return Ok(Pending {
            ticket: None,
            ready: Some(abstain(llm, &settings, &ev, why)),
            evidence: ev,
            settings,
            model: llm.name(),
            worker: None,
        });
    }
    let worker = llm.worker()?;
    let q = question.to_string();
    let passages = ev.passages.clone();
    let known = ev.relevance.clone();
    let (budget, params, checks) = (settings.budget(), settings.params(), settings.checks());
    let ticket = worker.submit(Box::new(move |engine, ctl| {
        mitra_llm::answer::answer(
            engine,
            &q,
            &passages,
            budget,
            &params,
            checks,
            known.as_deref(),
            mitra_llm::answer::Hooks {
                cancelled: &|| ctl.cancelled(),
                on_text: &mut |piece| ctl.text(piece),
            },
        )
    }))?;
    Ok(Pending {
        ticket: Some(ticket),
        ready: None,
        evidence: ev,
        settings,
        model: llm.name(),
        worker: Some(worker),
    })
}

impl Pending {
    /// The next piece of the answer as it is generated (before the support step removes any
    /// sentence); `None` at the end (then call `finish`).
    pub async fn next_text(&mut self) -> Result<Option<String>, LlmError> {
        let Some(t) = self.ticket.as_mut() else {
            return Ok(None);
        };
        match t.events.recv().await {
            Some(Event::Text(s)) => Ok(Some(s)),
            Some(Event::Done(outcome)) => {
                self.ready = Some(self.checked(*outcome));
                self.ticket = None;
                Ok(None)
            }
            Some(Event::Failed(e)) => {
                self.ticket = None;
                Err(e)
            }
            None => {
                self.ticket = None;
                Err(LlmError::Generation("the generation worker stopped".into()))
            }
        }
    }

    /// Waits for the end and returns the checked answer.
    pub async fn finish(mut self) -> Result<AnswerRow, LlmError> {
        while self.next_text().await?.is_some() {}
        self.ready
            .take()
            .ok_or_else(|| LlmError::Generation("no answer".into()))
    }

    fn checked(&self, o: Outcome) -> AnswerRow {
        let given = &self.evidence.passages[..o.used.min(self.evidence.passages.len())];
        let evidence: Vec<String> = given.iter().map(|p| p.chunk_id.clone()).collect();
        let id = |i: &usize| evidence.get(*i).cloned();
        let mut citations: Vec<String> = Vec::new();
        for s in o.sentences.iter().filter(|s| s.kept()) {
            for c in s.cites.iter().filter_map(id) {
                if !citations.contains(&c) {
                    citations.push(c);
                }
            }
        }
        let invalid = mitra_llm::grounding::check(
            &o.raw,
            &(1..=o.shown.len())
                .map(|i| i.to_string())
                .collect::<Vec<_>>(),
        )
        .invalid;
        let shown = o.answer();
        let (answer, abstention, grounded) = match o.refusal {
            None => (shown, Abstention::No, true),
            Some(Refusal::Uncited) if self.settings.uncited == Uncited::Flag => {
                (o.raw.trim().to_string(), Abstention::No, false)
            }
            Some(r) => (
                mitra_llm::ABSTENTION.to_string(),
                match r {
                    Refusal::NoEvidence => Abstention::NoEvidence,
                    Refusal::NotRelevant => Abstention::NotRelevant,
                    Refusal::Unmentioned => Abstention::Unmentioned,
                    Refusal::Model => Abstention::Model,
                    Refusal::Uncited => Abstention::Uncited,
                    Refusal::Unsupported => Abstention::Unsupported,
                    Refusal::Unanswered => Abstention::Unanswered,
                },
                false,
            ),
        };
        let abstained = abstention != Abstention::No;
        let stats = o.stats.clone().unwrap_or(mitra_llm::Stats {
            prompt_tokens: 0,
            completion_tokens: 0,
            ms_prefill: 0.0,
            ms_decode: 0.0,
            stop: mitra_llm::Stop::EndOfTurn,
        });
        AnswerRow {
            answer,
            abstained,
            abstention,
            grounded,
            citations: if abstained { Vec::new() } else { citations },
            invalid_citations: invalid,
            relevance: o.relevance.clone(),
            relevant: o.relevant().iter().filter_map(id).collect(),
            asked: o.asked.clone(),
            shown: o
                .shown
                .iter()
                .zip(&o.shown_text)
                .filter_map(|(i, text)| id(i).map(|c| (c, text.clone())))
                .collect(),
            unmentioned: o.unmentioned.clone(),
            unsupported: o.unsupported(),
            sentences: o
                .sentences
                .iter()
                .map(|s| SentenceRow {
                    text: s.text.clone(),
                    cites: s.cites.iter().filter_map(id).collect(),
                    support: s.support,
                    kept: s.kept(),
                    restated: s.restated,
                    verdict: s.verdict.name(),
                })
                .collect(),
            ms_checks: (o.relevance_cost.1, o.support_cost.1),
            evidence,
            raw: o.raw,
            model: match self.worker.as_ref().and_then(|w| w.status().model) {
                Some(Ok(info)) => info.label(),
                _ => self.model.clone(),
            },
            chunks_version: self.evidence.chunks_version,
            prompt_tokens: stats.prompt_tokens + o.relevance_cost.0 + o.support_cost.0,
            completion_tokens: stats.completion_tokens,
            ms_prefill: stats.ms_prefill,
            ms_decode: stats.ms_decode,
            reranker: self.evidence.reranker.clone(),
            receipt: receipt(
                &self.settings,
                &self.evidence,
                given,
                o.prompt_sha256.clone(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(id: &str, text: &str) -> Passage {
        Passage {
            chunk_id: id.into(),
            title: None,
            heading: None,
            page: None,
            text: text.into(),
        }
    }

    #[test]
    fn a_later_candidate_changing_a_first_look_value_joins_the_first_look() {
        let mut cfg = Config::default();
        cfg.llm.second_look_k = 3;
        let llm = Llm::new(&cfg);
        let log = "The VXD acceptance window is widened from [-90, +150] ps to [-150, +250] ps.";
        let ev = Evidence {
            passages: vec![
                passage(
                    "an#4",
                    "| Detector | Acceptance window |\n|---|---|\n| VXD | [-90, +150] ps |",
                ),
                passage("an#5", "Beam-induced background is mostly late."),
                passage("an#6", "Hits are read out every 10 ns."),
                passage("an#7", "Timing is measured relative to the IP."),
                passage("twiki#2", log),
            ],
            relevance: Some(vec![0.5, 0.4, 0.3, 0.2, 0.1]),
            ..Default::default()
        };
        // twiki#2 joins the first look after the table, and of the rest one is kept (three,
        // besides it, in all).
        let (got, settings) = llm.with_updates(2, ev.clone());
        let ids: Vec<&str> = got.passages.iter().map(|p| p.chunk_id.as_str()).collect();
        assert_eq!(ids, ["an#4", "twiki#2", "an#5", "an#6"]);
        assert_eq!(got.relevance, Some(vec![0.5, 0.1, 0.4, 0.3]));
        assert_eq!(settings.first_look, Some(3));
        // Without the change, the candidates as retrieved, cut to the second look's depth.
        let mut plain = ev.clone();
        plain.passages[4].text = "Readout runs at 40 MHz.".into();
        let (got, settings) = llm.with_updates(2, plain);
        let ids: Vec<&str> = got.passages.iter().map(|p| p.chunk_id.as_str()).collect();
        assert_eq!(ids, ["an#4", "an#5", "an#6"]);
        assert_eq!(settings.first_look, Some(2));
        // Reranked evidence (k passages) is left as it is.
        let mut reranked = ev;
        reranked.passages.truncate(2);
        assert_eq!(llm.with_updates(2, reranked).1.first_look, None);
    }
}
