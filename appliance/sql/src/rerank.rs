//! The process's rerankers: a cross-encoder (loaded once per directory, on first use, shared by
//! every session) or the language model's relevance judge; scoring off the async workers,
//! stopped by the statement's interrupts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use mitra_llm::{Event, Outcome, Passage};
use mitra_rerank::{CrossEncoder, CrossEncoderDir, RerankError};
use mitra_store::config::{Config, RerankConfig};
use mitra_store::models::{self, ModelKind};

use crate::error::SqlFnError;
use crate::interrupt::Statement;
use crate::llm::Llm;

/// The name of the language-model reranker.
pub const LLM: &str = "llm";
/// The name that turns reranking off.
pub const NONE: &str = "none";

/// One reranker, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The language model's relevance judge.
    Llm,
    /// A cross-encoder directory, under its name.
    Cross {
        /// The name it is called by (registry name or `[rerank] model`).
        name: String,
        /// Its directory.
        dir: PathBuf,
    },
}

/// A passage with text only (what `rerank()` is given).
pub fn bare(text: String) -> Passage {
    Passage {
        chunk_id: String::new(),
        title: None,
        heading: None,
        page: None,
        text,
    }
}

impl Choice {
    /// The name reported in answer rows (`llm:<model>` or the cross-encoder's name).
    pub fn label(&self, llm: &Llm) -> String {
        match self {
            Choice::Llm => format!("{LLM}:{}", llm.name()),
            Choice::Cross { name, .. } => name.clone(),
        }
    }
}

type Loaded = Arc<Mutex<Option<Result<Arc<CrossEncoder>, String>>>>;

/// Loaded cross-encoders by directory and device: loading is the expensive part.
static CROSS: LazyLock<Mutex<HashMap<(PathBuf, String), Loaded>>> = LazyLock::new(Default::default);

/// The cross-encoder loaded from `dir`, if one was (tests read its counters).
pub fn loaded(dir: &Path) -> Option<Arc<CrossEncoder>> {
    let map = CROSS.lock().ok()?;
    map.iter()
        .filter(|((d, _), _)| d == dir)
        .find_map(|(_, slot)| slot.lock().ok()?.as_ref()?.as_ref().ok().cloned())
}

/// The rerankers a session can use: the configured one, and others by name.
#[derive(Debug, Clone)]
pub struct Rerankers {
    cfg: RerankConfig,
    models_dir: PathBuf,
    llm: Arc<Llm>,
}

impl Rerankers {
    /// The rerankers of `cfg`, sharing the session's language model.
    pub fn new(cfg: &Config, llm: Arc<Llm>) -> Self {
        Rerankers {
            cfg: cfg.rerank.clone(),
            models_dir: cfg.embedding.models_dir.clone(),
            llm,
        }
    }

    /// The settings.
    pub fn config(&self) -> &RerankConfig {
        &self.cfg
    }

    /// The shared language model.
    pub fn llm_arc(&self) -> Arc<Llm> {
        self.llm.clone()
    }

    /// `passages` in `choice`'s order (highest score first, ties in the given order), the best
    /// `k` kept; with the LLM reranker also their scores, for the relevance step to reuse.
    pub async fn rerank_evidence(
        &self,
        function: &'static str,
        choice: &Choice,
        question: &str,
        passages: Vec<Passage>,
        k: usize,
        stop: Option<Statement>,
    ) -> Result<(Vec<Passage>, Option<Vec<f32>>), SqlFnError> {
        let scores = self
            .score(function, choice, question, passages.clone(), stop)
            .await?;
        let mut order: Vec<usize> = (0..passages.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        order.truncate(k);
        let kept: Vec<Passage> = order.iter().map(|&i| passages[i].clone()).collect();
        let known = (*choice == Choice::Llm).then(|| order.iter().map(|&i| scores[i]).collect());
        Ok((kept, known))
    }

    /// The configured reranker, `None` when reranking is off.
    pub fn configured(&self) -> Result<Option<Choice>, String> {
        self.resolve(&self.cfg.model)
    }

    /// [`Rerankers::configured`] for the SQL function `function`: an unusable configuration
    /// is its 55000 error.
    pub fn configured_for(&self, function: &'static str) -> Result<Option<Choice>, SqlFnError> {
        self.configured()
            .map_err(|message| SqlFnError::RerankUnavailable { function, message })
    }

    /// Resolves a reranker name: `none`, `llm`, the configured model, or a registry reranker
    /// in the models directory.
    pub fn resolve(&self, name: &str) -> Result<Option<Choice>, String> {
        let name = name.trim();
        if name.eq_ignore_ascii_case(NONE) || name.is_empty() {
            return Ok(None);
        }
        if name.eq_ignore_ascii_case(LLM) {
            return Ok(Some(Choice::Llm));
        }
        if name == self.cfg.model {
            if let Some(dir) = &self.cfg.model_dir {
                return Ok(Some(Choice::Cross {
                    name: name.to_string(),
                    dir: dir.clone(),
                }));
            }
        }
        let entry = models::entry(name).map_err(|_| {
            format!(
                "unknown reranker {name:?}: use 'llm', 'none', the configured [rerank] model, or a reranker of `mitra models list`"
            )
        })?;
        if entry.kind != ModelKind::Reranker {
            return Err(format!(
                "{name} is not a reranker (see `mitra models list`)"
            ));
        }
        let dir = models::locate(name, &self.models_dir).map_err(|e| e.to_string())?;
        Ok(Some(Choice::Cross {
            name: name.to_string(),
            dir,
        }))
    }

    fn cross(&self, name: &str, dir: &Path) -> Result<Arc<CrossEncoder>, String> {
        let slot = CROSS
            .lock()
            .map_err(|_| "reranker cache poisoned".to_string())?
            .entry((dir.to_path_buf(), self.cfg.device.clone()))
            .or_default()
            .clone();
        let mut slot = slot
            .lock()
            .map_err(|_| "reranker cache poisoned".to_string())?;
        if let Some(r) = slot.as_ref() {
            return r.clone();
        }
        let (max_length, device) = (self.cfg.max_length, self.cfg.device.clone());
        let kernel = mitra_rerank::BertKernel::parse(&self.cfg.kernel).unwrap_or_default();
        let loaded = std::panic::catch_unwind(|| -> Result<CrossEncoder, RerankError> {
            let parsed = CrossEncoderDir::open(dir, Some(max_length))?;
            let device = mitra_rerank::parse_device(&device)?;
            CrossEncoder::load_with(&parsed, name, device, kernel)
        })
        .unwrap_or_else(|_| Err(RerankError::Tokenizer("the loader panicked".into())))
        .map(Arc::new)
        .map_err(|e| e.to_string());
        match &loaded {
            Ok(m) => tracing::info!(
                reranker = name,
                layout = m.layout(),
                kernel = m.kernel(),
                max_len = m.max_len(),
                "cross-encoder loaded"
            ),
            Err(e) => tracing::warn!(reranker = name, error = %e, "cross-encoder unavailable"),
        }
        *slot = Some(loaded.clone());
        loaded
    }

    /// Scores each passage against `query` with `choice` (higher is more relevant), off the
    /// async workers; `stop` ends it early with [`SqlFnError::Stopped`]. A cross-encoder reads
    /// the passage text; the language model's judge also its title and heading, as the answer
    /// pipeline's relevance step does (so that step can reuse the scores).
    pub async fn score(
        &self,
        function: &'static str,
        choice: &Choice,
        query: &str,
        passages: Vec<Passage>,
        stop: Option<Statement>,
    ) -> Result<Vec<f32>, SqlFnError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let work = async {
            match choice {
                Choice::Cross { name, dir } => {
                    self.score_cross(function, name, dir, query, passages).await
                }
                Choice::Llm => self.score_llm(function, query, passages).await,
            }
        };
        match stop {
            Some(s) => tokio::select! {
                r = work => r,
                why = s.stopped() => Err(SqlFnError::Stopped(why)),
            },
            None => work.await,
        }
    }

    async fn score_cross(
        &self,
        function: &'static str,
        name: &str,
        dir: &Path,
        query: &str,
        passages: Vec<Passage>,
    ) -> Result<Vec<f32>, SqlFnError> {
        // Dropped when the statement stops: the scoring ends at its next batch.
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let stopped = Arc::new(AtomicBool::new(false));
        let _flag = Flag(stopped.clone());
        let (name, dir, q, this) = (
            name.to_string(),
            dir.to_path_buf(),
            query.to_string(),
            self.clone(),
        );
        tokio::task::spawn_blocking(move || {
            let model = this
                .cross(&name, &dir)
                .map_err(|message| SqlFnError::RerankUnavailable { function, message })?;
            let refs: Vec<&str> = passages.iter().map(|p| p.text.as_str()).collect();
            model
                .score(&q, &refs, &|| stopped.load(Ordering::SeqCst))
                .map_err(|source| SqlFnError::Rerank { function, source })
        })
        .await
        .map_err(|e| SqlFnError::Rerank {
            function,
            source: RerankError::Tokenizer(e.to_string()),
        })?
    }

    async fn score_llm(
        &self,
        function: &'static str,
        query: &str,
        given: Vec<Passage>,
    ) -> Result<Vec<f32>, SqlFnError> {
        let llm_err = |source| SqlFnError::Llm { function, source };
        let worker = self.llm.worker().map_err(llm_err)?;
        let q = query.to_string();
        let (max, paragraphs) = {
            let c = self.llm.config();
            (c.max_passage_tokens, c.relevance_paragraphs)
        };
        let mut ticket = worker
            .submit(Box::new(move |engine, ctl| {
                let relevance =
                    mitra_llm::answer::rerank(engine, &q, &given, max, paragraphs, &|| {
                        ctl.cancelled()
                    })?;
                Ok(Outcome {
                    relevance,
                    ..Outcome::default()
                })
            }))
            .map_err(llm_err)?;
        loop {
            match ticket.events.recv().await {
                Some(Event::Text(_)) => {}
                Some(Event::Done(o)) => return Ok(o.relevance),
                Some(Event::Failed(e)) => return Err(llm_err(e)),
                None => {
                    return Err(llm_err(mitra_llm::LlmError::Generation(
                        "the generation worker stopped".into(),
                    )))
                }
            }
        }
    }
}
