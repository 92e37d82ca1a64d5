//! The tantivy BM25 index over live chunks, kept consistent with the Lance `chunks` table.
//!
//! Chunk text is indexed twice: the `text` field holds words, the `symbols` field holds physics
//! notation (see [`crate::analyzer`]); a query's score is the sum of its BM25 over both fields,
//! each with its own length statistics.
//!
//! Each index commit carries a payload naming the `chunks` Lance version it reflects and the
//! analyzer options. On open, an index that is behind is caught up (diff of chunk ids); one that is
//! ahead, corrupt, built with other analyzer options, or whose size disagrees with Lance is
//! rebuilt from Lance. Scoring is Lucene's BM25 (no `(k1 + 1)` factor, IDF `ln(1 + (N - n + 0.5) /
//! (n + 0.5))`, one-byte length norms) with configurable `k1` and `b`, computed term at a time.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, STRING,
};
use tantivy::tokenizer::{PreTokenizedString, TextAnalyzer};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::analyzer::{
    AnalyzerOptions, PhysicsAnalyzer, Stream, SYMBOLS_TOKENIZER, WORDS_TOKENIZER,
};
use crate::store::{str_col, ChunkRow, Store, StoreError};
use std::sync::Arc;

use mitra_bm25::scorer::{ScoredField, ScoringStats};
use tantivy::columnar::StrColumn;

/// Errors of the BM25 index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// tantivy failed.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The Lance store failed while syncing.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// File system error.
    #[error("index directory {path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// Result alias for the index.
pub type Result<T> = std::result::Result<T, IndexError>;

const FORMAT: u32 = 5;
const WRITER_HEAP: usize = 64 * 1024 * 1024;

/// BM25 parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Length normalisation.
    pub b: f32,
}

/// What the index recorded at its last commit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IndexMeta {
    /// Index format version.
    pub format: u32,
    /// The `chunks` Lance version the index reflects.
    pub chunks_version: u64,
    /// Analyzer options the index was built with.
    pub analyzer: AnalyzerOptions,
}

/// How opening the index went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncOutcome {
    /// The index already matched the store.
    UpToDate,
    /// The index was behind and was caught up.
    CaughtUp {
        /// Chunks added.
        added: usize,
        /// Chunks removed.
        removed: usize,
    },
    /// The index was rebuilt from Lance, with the reason.
    Rebuilt(String),
}

/// One BM25 result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub doc_id: String,
    /// BM25 score.
    pub score: f32,
}

#[derive(Clone, Copy)]
struct Fields {
    chunk_id: Field,
    doc_id: Field,
    analysis_id: Field,
    text: Field,
    symbols: Field,
    len_text: Field,
    len_symbols: Field,
}

impl Fields {
    fn len_of(&self, stream: Stream) -> &'static str {
        match stream {
            Stream::Words => "len_text",
            Stream::Symbols => "len_symbols",
        }
    }
}

fn schema() -> (Schema, Fields) {
    let mut sb = Schema::builder();
    let chunk_id = sb.add_text_field("chunk_id", STRING | FAST);
    let doc_id = sb.add_text_field("doc_id", STRING | FAST);
    // Scoping and access filter postings by analysis (absent for chunks without one).
    let analysis_id = sb.add_text_field("analysis_id", STRING | FAST);
    let indexed = |tokenizer: &str| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqs),
        )
    };
    let text = sb.add_text_field("text", indexed(WORDS_TOKENIZER));
    let symbols = sb.add_text_field("symbols", indexed(SYMBOLS_TOKENIZER));
    // Exact token counts: BM25 length normalisation without one-byte norm quantisation.
    let len_text = sb.add_u64_field("len_text", FAST);
    let len_symbols = sb.add_u64_field("len_symbols", FAST);
    (
        sb.build(),
        Fields {
            chunk_id,
            doc_id,
            analysis_id,
            text,
            symbols,
            len_text,
            len_symbols,
        },
    )
}

/// Strings stored back to back, addressed by ordinal.
#[derive(Default)]
struct Strings {
    buf: String,
    ends: Vec<u32>,
}

impl Strings {
    fn get(&self, ord: u32) -> &str {
        let end = self.ends[ord as usize] as usize;
        let start = if ord == 0 {
            0
        } else {
            self.ends[ord as usize - 1] as usize
        };
        &self.buf[start..end]
    }
}

/// The chunk and document ids of one immutable segment, in memory (decoding tantivy's compressed
/// dictionary blocks per hit dominated query time).
#[derive(Default)]
struct SegmentIds {
    chunk_ids: Strings,
    doc_ids: Strings,
    analysis_ids: Strings,
    /// Per document: (chunk id ordinal, doc id ordinal).
    ords: Vec<(u32, u32)>,
    /// Per document: analysis ordinal, [`NO_ANALYSIS`] when the chunk has none.
    analysis_ords: Vec<u32>,
}

/// A predicate over a chunk's analysis id (`None`: a chunk without analysis).
pub type AnalysisPredicate<'a> = &'a dyn Fn(Option<&str>) -> bool;

/// A result filter and a statistics filter over analysis ids (see [`Bm25Index::search_scoped`]).
type AnalysisFilters<'a> = (AnalysisPredicate<'a>, Option<AnalysisPredicate<'a>>);

/// Analysis ordinal of a chunk without an analysis.
const NO_ANALYSIS: u32 = u32::MAX;

fn load_strings(col: &StrColumn) -> std::io::Result<Strings> {
    let mut out = Strings::default();
    let mut stream = col.dictionary().stream()?;
    while stream.advance() {
        out.buf.push_str(&String::from_utf8_lossy(stream.key()));
        out.ends.push(out.buf.len() as u32);
    }
    Ok(out)
}

impl SegmentIds {
    fn load(seg: &tantivy::SegmentReader) -> Result<Self> {
        let io = |source| IndexError::Io {
            path: PathBuf::new(),
            source,
        };
        let (Some(c), Some(d)) = (
            seg.fast_fields().str("chunk_id")?,
            seg.fast_fields().str("doc_id")?,
        ) else {
            return Ok(Self::default());
        };
        let chunk_ids = load_strings(&c).map_err(io)?;
        let doc_ids = load_strings(&d).map_err(io)?;
        let (analysis_ids, analysis_ords) = match seg.fast_fields().str("analysis_id")? {
            Some(a) => (
                load_strings(&a).map_err(io)?,
                (0..seg.max_doc())
                    .map(|doc| a.term_ords(doc).next().map_or(NO_ANALYSIS, |o| o as u32))
                    .collect(),
            ),
            None => (
                Strings::default(),
                vec![NO_ANALYSIS; seg.max_doc() as usize],
            ),
        };
        let ords = (0..seg.max_doc())
            .map(|doc| {
                (
                    c.term_ords(doc).next().unwrap_or(0) as u32,
                    d.term_ords(doc).next().unwrap_or(0) as u32,
                )
            })
            .collect();
        Ok(Self {
            chunk_ids,
            doc_ids,
            analysis_ids,
            ords,
            analysis_ords,
        })
    }
}

/// Columns and statistics opened once per searcher generation.
struct SearcherCache {
    generation: u64,
    searcher: tantivy::Searcher,
    stats: ScoringStats,
    ids: Vec<Arc<SegmentIds>>,
    /// Documents and token totals per analysis (by name; `None`: chunks without one), for
    /// statistics over a scope without a pass over the documents per query.
    analysis_totals: Vec<AnalysisTotals>,
}

/// One analysis' share of the collection: its name, documents and token totals per field.
type AnalysisTotals = (Option<String>, (u64, Vec<f64>));

/// Documents and token totals of every analysis in the segments (one pass per generation).
fn analysis_totals(stats: &ScoringStats, ids: &[Arc<SegmentIds>]) -> Vec<AnalysisTotals> {
    let mut names: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let maps: Vec<Vec<usize>> = ids
        .iter()
        .map(|t| {
            (0..t.analysis_ids.ends.len() as u32)
                .map(|o| {
                    let name = t.analysis_ids.get(o);
                    *index.entry(name.to_string()).or_insert_with(|| {
                        names.push(name.to_string());
                        names.len() - 1
                    })
                })
                .collect()
        })
        .collect();
    let none = names.len();
    let totals = stats.group_totals(none + 1, |seg, doc| {
        match ids[seg as usize].analysis_ords[doc as usize] {
            NO_ANALYSIS => none,
            o => maps[seg as usize][o as usize],
        }
    });
    names
        .into_iter()
        .map(Some)
        .chain(std::iter::once(None))
        .zip(totals)
        .collect()
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index").field("dir", &self.dir).finish()
    }
}

/// The BM25 index of one data directory.
pub struct Bm25Index {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    writer: Option<IndexWriter>,
    fields: Fields,
    analyzer: PhysicsAnalyzer,
    params: Bm25Params,
    cache: std::sync::Mutex<Option<Arc<SearcherCache>>>,
}

impl Bm25Index {
    /// Opens (or creates) the index in `dir` and brings it in line with `store`.
    pub async fn open_synced(
        dir: &Path,
        store: &Store,
        analyzer: AnalyzerOptions,
        params: Bm25Params,
    ) -> Result<(Self, SyncOutcome)> {
        let (mut idx, reason) = match Self::open_existing(dir, analyzer, params) {
            Ok(idx) => match idx.meta() {
                Some(m) if m.format != FORMAT => (idx, Some("index format changed".to_string())),
                Some(m) if m.analyzer != analyzer => {
                    (idx, Some("analyzer options changed".to_string()))
                }
                Some(m) if m.chunks_version > store.chunks_version() => (
                    idx,
                    Some(format!(
                        "index reflects chunks v{} but the store is at v{}",
                        m.chunks_version,
                        store.chunks_version()
                    )),
                ),
                Some(_) => (idx, None),
                None if idx.num_docs() == 0 => (idx, Some("new index".to_string())),
                None => (idx, Some("index has no commit record".to_string())),
            },
            Err(e) => {
                tracing::warn!(error = %e, "BM25 index unreadable; rebuilding");
                let _ = std::fs::remove_dir_all(dir);
                (
                    Self::open_existing(dir, analyzer, params)?,
                    Some(format!("index unreadable: {e}")),
                )
            }
        };
        if let Some(reason) = reason {
            idx.rebuild(store).await?;
            return Ok((idx, SyncOutcome::Rebuilt(reason)));
        }
        let behind = idx.meta().map(|m| m.chunks_version) != Some(store.chunks_version());
        if behind {
            let (added, removed) = idx.catch_up(store).await?;
            return Ok((idx, SyncOutcome::CaughtUp { added, removed }));
        }
        let lance_rows = store
            .chunks()
            .count_rows(None)
            .await
            .map_err(StoreError::from)?;
        if lance_rows as u64 != idx.num_docs() {
            let reason = format!(
                "index holds {} chunks but Lance holds {lance_rows} at the same version",
                idx.num_docs()
            );
            idx.rebuild(store).await?;
            return Ok((idx, SyncOutcome::Rebuilt(reason)));
        }
        Ok((idx, SyncOutcome::UpToDate))
    }

    /// Opens the index for searching only, without syncing (used by tests and benchmarks).
    pub fn open_existing(
        dir: &Path,
        analyzer: AnalyzerOptions,
        params: Bm25Params,
    ) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let (schema, _) = schema();
        let index = if dir.join("meta.json").exists() {
            let index = Index::open_in_dir(dir)?;
            if index.schema() != schema {
                return Err(IndexError::Tantivy(tantivy::TantivyError::SchemaError(
                    "index schema differs from this build".into(),
                )));
            }
            index
        } else {
            Index::create_in_dir(dir, schema)?
        };
        Self::with_index(dir.to_path_buf(), index, analyzer, params)
    }

    /// A new index in memory (small collections: tier 1 over analysis abstracts).
    pub fn in_ram(analyzer: AnalyzerOptions, params: Bm25Params) -> Result<Self> {
        let index = Index::create_in_ram(schema().0);
        Self::with_index(PathBuf::new(), index, analyzer, params)
    }

    fn with_index(
        dir: PathBuf,
        index: Index,
        analyzer: AnalyzerOptions,
        params: Bm25Params,
    ) -> Result<Self> {
        let fields = schema().1;
        let analyzer = PhysicsAnalyzer::new(analyzer);
        for (name, stream) in [
            (WORDS_TOKENIZER, Stream::Words),
            (SYMBOLS_TOKENIZER, Stream::Symbols),
        ] {
            index
                .tokenizers()
                .register(name, TextAnalyzer::from(analyzer.for_stream(stream)));
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        // Touch every segment so that missing or truncated files surface now, not at query time.
        let searcher = reader.searcher();
        for seg in searcher.segment_readers() {
            seg.inverted_index(fields.text)?;
            seg.fast_fields().str("chunk_id")?;
        }
        Ok(Self {
            dir,
            index,
            reader,
            writer: None,
            fields,
            analyzer,
            params,
            cache: std::sync::Mutex::new(None),
        })
    }

    /// The commit record of the index, if it has one.
    pub fn meta(&self) -> Option<IndexMeta> {
        let metas = self.index.load_metas().ok()?;
        serde_json::from_str(metas.payload.as_deref()?).ok()
    }

    /// Live (non-deleted) chunks in the index.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The analyzer used for documents and queries.
    pub fn analyzer(&self) -> &PhysicsAnalyzer {
        &self.analyzer
    }

    fn writer(&mut self) -> Result<&mut IndexWriter> {
        if self.writer.is_none() {
            let threads = std::thread::available_parallelism()
                .map(|n| n.get().min(4))
                .unwrap_or(1);
            self.writer = Some(
                self.index
                    .writer_with_num_threads::<TantivyDocument>(threads, WRITER_HEAP * threads)?,
            );
        }
        Ok(self.writer.as_mut().expect("writer just created"))
    }

    /// Releases the writer lock (so that another process may write).
    pub fn close_writer(&mut self) -> Result<()> {
        if let Some(w) = self.writer.take() {
            w.wait_merging_threads()?;
        }
        Ok(())
    }

    /// Stages a chunk for indexing (visible after [`Bm25Index::commit`]).
    pub fn add_chunk(
        &mut self,
        chunk_id: &str,
        doc_id: &str,
        analysis_id: Option<&str>,
        text: &str,
    ) -> Result<()> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.chunk_id, chunk_id);
        doc.add_text(f.doc_id, doc_id);
        if let Some(a) = analysis_id {
            doc.add_text(f.analysis_id, a);
        }
        // Analyse once: the token streams feed both the postings and the exact lengths.
        let (mut words, mut symbols) = (Vec::new(), Vec::new());
        self.analyzer.analyze(text, &mut words, &mut symbols);
        doc.add_u64(f.len_text, words.len() as u64);
        doc.add_u64(f.len_symbols, symbols.len() as u64);
        for (field, tokens) in [(f.text, words), (f.symbols, symbols)] {
            // Fields are not stored, so the original text is not needed here.
            doc.add_pre_tokenized_text(
                field,
                PreTokenizedString {
                    text: String::new(),
                    tokens,
                },
            );
        }
        self.writer()?.add_document(doc)?;
        Ok(())
    }

    /// Stages the removal of every chunk of a document.
    pub fn delete_doc(&mut self, doc_id: &str) -> Result<()> {
        let t = Term::from_field_text(self.fields.doc_id, doc_id);
        self.writer()?.delete_term(t);
        Ok(())
    }

    /// Stages a batch of chunk rows.
    pub fn add_rows(&mut self, rows: &[ChunkRow]) -> Result<()> {
        for r in rows {
            self.add_chunk(&r.chunk_id, &r.doc_id, r.analysis_id.as_deref(), &r.text)?;
        }
        Ok(())
    }

    /// Commits staged changes, recording that the index now reflects `chunks_version`.
    pub fn commit(&mut self, chunks_version: u64) -> Result<()> {
        let meta = IndexMeta {
            format: FORMAT,
            chunks_version,
            analyzer: self.analyzer.options(),
        };
        let payload = serde_json::to_string(&meta).expect("meta serialises");
        let w = self.writer()?;
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload(&payload);
        prepared.commit()?;
        self.reader.reload()?;
        Ok(())
    }

    /// Merges the searchable segments into one and removes files no segment uses; the
    /// segment counts before and after.
    pub fn merge_segments(&mut self) -> Result<(usize, usize)> {
        let ids = self.index.searchable_segment_ids()?;
        if ids.len() > 1 {
            self.writer()?.merge(&ids).wait()?;
        }
        self.writer()?.garbage_collect_files().wait()?;
        self.reader.reload()?;
        Ok((ids.len(), self.index.searchable_segment_ids()?.len()))
    }

    /// Drops everything and re-indexes all chunks from Lance.
    pub async fn rebuild(&mut self, store: &Store) -> Result<()> {
        tracing::info!(dir = %self.dir.display(), "rebuilding BM25 index from Lance");
        self.writer()?.delete_all_documents()?;
        self.index_matching(store, None).await?;
        self.commit(store.chunks_version())
    }

    async fn index_matching(
        &mut self,
        store: &Store,
        only: Option<&HashSet<String>>,
    ) -> Result<usize> {
        let mut scan = store.chunks().scan();
        scan.project(&["chunk_id", "doc_id", "text", "analysis_id"])
            .map_err(StoreError::from)?;
        let mut stream = scan.try_into_stream().await.map_err(StoreError::from)?;
        let mut n = 0;
        while let Some(batch) = stream.try_next().await.map_err(StoreError::from)? {
            let (ids, docs, texts) = (str_col(&batch, 0), str_col(&batch, 1), str_col(&batch, 2));
            let analyses = str_col(&batch, 3);
            for i in 0..batch.num_rows() {
                if only.is_none_or(|s| s.contains(ids.value(i))) {
                    let a = (!arrow_array::Array::is_null(analyses, i)).then(|| analyses.value(i));
                    self.add_chunk(ids.value(i), docs.value(i), a, texts.value(i))?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }

    /// Chunk ids of every live document in the index.
    pub fn indexed_chunk_ids(&self) -> Result<HashSet<String>> {
        let cache = self.cached()?;
        let mut out = HashSet::new();
        for (seg, ids) in cache.searcher.segment_readers().iter().zip(&cache.ids) {
            let alive = seg.alive_bitset();
            for (doc, (c, _)) in ids.ords.iter().enumerate() {
                if alive.is_none_or(|a| a.is_alive(doc as u32)) {
                    out.insert(ids.chunk_ids.get(*c).to_string());
                }
            }
        }
        Ok(out)
    }

    /// Adds chunks Lance has and the index lacks, removes the reverse. Returns (added, removed).
    pub async fn catch_up(&mut self, store: &Store) -> Result<(usize, usize)> {
        let indexed = self.indexed_chunk_ids()?;
        let mut in_lance = HashSet::new();
        let mut scan = store.chunks().scan();
        scan.project(&["chunk_id"]).map_err(StoreError::from)?;
        let mut stream = scan.try_into_stream().await.map_err(StoreError::from)?;
        while let Some(batch) = stream.try_next().await.map_err(StoreError::from)? {
            let ids = str_col(&batch, 0);
            for i in 0..batch.num_rows() {
                in_lance.insert(ids.value(i).to_string());
            }
        }
        let missing: HashSet<String> = in_lance.difference(&indexed).cloned().collect();
        let extra: Vec<String> = indexed.difference(&in_lance).cloned().collect();
        for id in &extra {
            let t = Term::from_field_text(self.fields.chunk_id, id);
            self.writer()?.delete_term(t);
        }
        let added = if missing.is_empty() {
            0
        } else {
            self.index_matching(store, Some(&missing)).await?
        };
        self.commit(store.chunks_version())?;
        tracing::info!(
            added,
            removed = extra.len(),
            "BM25 index caught up with Lance"
        );
        Ok((added, extra.len()))
    }

    /// Top-`k` chunks for `query` by BM25; ties are broken by chunk id.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<Hit>> {
        let terms = self.analyzer.terms(query);
        self.search_terms(&terms, k)
    }

    fn scored_fields(&self) -> [ScoredField; 2] {
        [
            ScoredField {
                field: self.fields.text,
                len_field: self.fields.len_of(Stream::Words),
            },
            ScoredField {
                field: self.fields.symbols,
                len_field: self.fields.len_of(Stream::Symbols),
            },
        ]
    }

    /// The current searcher with its statistics and id columns, opened once per generation.
    fn cached(&self) -> Result<Arc<SearcherCache>> {
        let searcher = self.reader.searcher();
        let generation = searcher.generation().generation_id();
        let mut guard = self.cache.lock().expect("cache lock");
        if let Some(c) = guard.as_ref().filter(|c| c.generation == generation) {
            return Ok(c.clone());
        }
        let stats = ScoringStats::new(&searcher, &self.scored_fields())?;
        // Segments are immutable: reuse the id tables of segments the previous generation had.
        let previous: std::collections::HashMap<tantivy::index::SegmentId, Arc<SegmentIds>> = guard
            .as_ref()
            .map(|c| {
                c.searcher
                    .segment_readers()
                    .iter()
                    .map(|s| s.segment_id())
                    .zip(c.ids.iter().cloned())
                    .collect()
            })
            .unwrap_or_default();
        let mut ids = Vec::new();
        for seg in searcher.segment_readers() {
            ids.push(match previous.get(&seg.segment_id()) {
                Some(t) => t.clone(),
                None => Arc::new(SegmentIds::load(seg)?),
            });
        }
        let analysis_totals = analysis_totals(&stats, &ids);
        let c = Arc::new(SearcherCache {
            generation,
            searcher,
            stats,
            ids,
            analysis_totals,
        });
        *guard = Some(c.clone());
        Ok(c)
    }

    /// Top-`k` chunks for already-analyzed query terms (duplicates count twice, as in Lucene).
    pub fn search_terms(&self, terms: &[(Stream, String)], k: usize) -> Result<Vec<Hit>> {
        self.search_where(terms, k, None)
    }

    /// Top-`k` chunks among those whose analysis `keep` accepts (`None`: a chunk without
    /// analysis). A pre-filter: `k` results come from the accepted chunks however many others
    /// would outrank them. N, document frequencies and average lengths are computed over the
    /// chunks `stats` accepts (`None`: the whole index).
    pub fn search_scoped(
        &self,
        terms: &[(Stream, String)],
        k: usize,
        keep: AnalysisPredicate<'_>,
        stats: Option<AnalysisPredicate<'_>>,
    ) -> Result<Vec<Hit>> {
        self.search_where(terms, k, Some((keep, stats)))
    }

    fn search_where(
        &self,
        terms: &[(Stream, String)],
        k: usize,
        filter: Option<AnalysisFilters<'_>>,
    ) -> Result<Vec<Hit>> {
        let cache = self.cached()?;
        // Per segment: which analysis ordinals pass, and whether chunks without one do.
        let table = |keep: &dyn Fn(Option<&str>) -> bool| -> Vec<(Vec<bool>, bool)> {
            cache
                .ids
                .iter()
                .map(|t| {
                    let n = t.analysis_ids.ends.len() as u32;
                    (
                        (0..n).map(|o| keep(Some(t.analysis_ids.get(o)))).collect(),
                        keep(None),
                    )
                })
                .collect()
        };
        let (allowed, stats_allowed) = match filter {
            Some((keep, stats)) => (table(keep), stats.map(table)),
            None => (Vec::new(), None),
        };
        let lookup = |tables: &[(Vec<bool>, bool)], seg: u32, doc: u32| -> bool {
            let (ords, none) = &tables[seg as usize];
            match cache.ids[seg as usize].analysis_ords[doc as usize] {
                NO_ANALYSIS => *none,
                o => ords[o as usize],
            }
        };
        let keep_doc = |seg: u32, doc: u32| lookup(&allowed, seg, doc);
        let stats_doc =
            |seg: u32, doc: u32| lookup(stats_allowed.as_deref().unwrap_or(&[]), seg, doc);
        let doc_filter = filter.map(|(_, stats)| mitra_bm25::scorer::DocFilter {
            keep: &keep_doc,
            stats: stats.map(|member| {
                let (mut docs, mut tokens) = (0u64, vec![0f64; self.scored_fields().len()]);
                for (name, (n, t)) in &cache.analysis_totals {
                    if member(name.as_deref()) {
                        docs += n;
                        tokens.iter_mut().zip(t).for_each(|(a, b)| *a += b);
                    }
                }
                mitra_bm25::scorer::SubsetStats {
                    member: &stats_doc,
                    docs,
                    tokens,
                }
            }),
        });
        let Bm25Params { k1, b } = self.params;
        let terms: Vec<(usize, &str)> = terms
            .iter()
            .map(|(s, t)| (usize::from(*s == Stream::Symbols), t.as_str()))
            .collect();
        let candidates = mitra_bm25::scorer::top_k(
            &cache.searcher,
            &cache.stats,
            &self.scored_fields(),
            &terms,
            (k1, b),
            k,
            doc_filter.as_ref(),
        )?;
        let hits: Vec<Hit> = candidates
            .into_iter()
            .map(|(score, addr)| {
                let t = &cache.ids[addr.segment_ord as usize];
                let (c, d) = t.ords[addr.doc_id as usize];
                Hit {
                    chunk_id: t.chunk_ids.get(c).to_string(),
                    doc_id: t.doc_ids.get(d).to_string(),
                    score,
                }
            })
            .collect();
        let mut hits = hits;
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.chunk_id.cmp(&b.chunk_id))
        });
        hits.truncate(k);
        Ok(hits)
    }
}
