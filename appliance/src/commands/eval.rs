//! `mitra eval`: retrievers on a BEIR collection (trec_eval metrics, run files, sweeps), and
//! answers (baseline or the language model) on a question file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mitra::config::Config;
use mitra::store::Store;
use mitra::{eval, sql, AppError};

/// Arguments of `mitra eval`.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// BEIR collection folder (corpus.jsonl, queries.jsonl, qrels/test.tsv).
    #[arg(long, required_unless_present = "questions")]
    dataset: Option<PathBuf>,
    /// Retrievers, comma-separated; one row each.
    #[arg(long, default_value = "bm25", value_delimiter = ',')]
    retriever: Vec<String>,
    /// Extra cutoff reported as nDCG@k, P@k and R@k.
    #[arg(long, default_value_t = 10)]
    k: usize,
    /// Documents retrieved per query (run depth).
    #[arg(long, default_value_t = 100)]
    depth: usize,
    /// Query files (repeatable); each is reported separately. Default DATASET/queries.jsonl.
    #[arg(long = "queries")]
    queries: Vec<PathBuf>,
    /// Qrels file. Default DATASET/qrels/test.tsv.
    #[arg(long)]
    qrels: Option<PathBuf>,
    /// Write a TREC run file (qid Q0 docid rank score tag).
    #[arg(long)]
    run: Option<PathBuf>,
    /// Write every metric, per retriever, query set and query, as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Sweep fusion weights and K over the first two retrievers.
    #[arg(long)]
    sweep: bool,
    /// Question file for answer evaluation (abstention, key-point coverage).
    #[arg(long)]
    questions: Option<PathBuf>,
    /// The baseline answerer abstains when the best BM25 score is below this.
    #[arg(long, default_value_t = 5.0)]
    abstain_below: f32,
    /// Who answers `--questions`: `baseline` (retrieval threshold) or `llm` (answer() with
    /// the configured language model).
    #[arg(long, default_value = "baseline")]
    answerer: String,
    /// Passages per answer (`--answerer llm`). Default: `llm.k`, as `answer(q)`.
    #[arg(long)]
    answer_k: Option<usize>,
    /// Only the questions of this part of the set (their `split` field: `tune`, `measure`).
    #[arg(long)]
    split: Option<String>,
    /// Write one JSON line per question (`--answerer llm`): evidence, relevance scores, the
    /// raw and the checked answer, support of each sentence, timings.
    #[arg(long)]
    traces: Option<PathBuf>,
}

/// Runs `mitra eval`; `explicit_data`: a store was named (`--data`, `MITRA_DATA`), else a
/// scratch store is used and removed.
pub async fn run(mut cfg: Config, args: EvalArgs, explicit_data: bool) -> Result<(), AppError> {
    super::init_logs("warn");
    if !matches!(args.answerer.as_str(), "baseline" | "llm") {
        return Err(AppError::Config(format!(
            "--answerer must be baseline or llm, not {:?}",
            args.answerer
        )));
    }
    if args.dataset.is_some() && args.answerer == "llm" {
        return Err(AppError::Config(
            "--answerer llm answers on the configured store: give --questions without --dataset"
                .into(),
        ));
    }
    let Some(dataset) = args.dataset.clone() else {
        // Answers on the configured store (e.g. the demo corpus).
        return answers_on_store(&cfg, args).await;
    };
    let EvalArgs {
        retriever,
        k,
        depth,
        queries,
        qrels,
        run,
        json,
        sweep,
        questions,
        abstain_below,
        ..
    } = args;
    let retrievers = retriever
        .iter()
        .map(|r| eval::Retriever::parse(r))
        .collect::<Result<Vec<_>, _>>()?;
    let distinct: std::collections::HashSet<_> = retrievers.iter().collect();
    if sweep && distinct.len() < 2 {
        return Err(AppError::Config(
            "--sweep fuses the first two retrievers with weighted RRF: give two, e.g. --retriever dense,bm25"
                .into(),
        ));
    }
    if k == 0 || depth == 0 {
        return Err(AppError::Config(
            "--k and --depth must be at least 1".into(),
        ));
    }
    // A scratch store unless one was named with --data or MITRA_DATA.
    let scratch = tempdir_for_eval(explicit_data);
    if let Some(dir) = &scratch {
        cfg.data_dir = dir.clone();
    }
    let (mut store, mut index) = super::open(&cfg).await?;
    let req = eval::EvalRequest {
        dataset: dataset.clone(),
        retrievers,
        k,
        depth,
        query_files: queries,
        qrels,
    };
    let (rows, qrels) = eval::run(&mut store, &mut index, &cfg, &req).await?;
    println!(
        "dataset {}  store {}  analyzer {:?}  k1 {} b {}",
        dataset.display(),
        if scratch.is_some() {
            "scratch".to_string()
        } else {
            cfg.data_dir.display().to_string()
        },
        index.analyzer().options(),
        cfg.bm25.k1,
        cfg.bm25.b
    );
    print!("{}", eval::render_table(&rows));
    if sweep {
        println!(
            "sweep: {} + {} (weighted RRF)",
            rows[0].retriever, rows[1].retriever
        );
        println!(
            "{:>5} {:>5} {:>5} {:>8} {:>8} {:>8}",
            "w_a", "w_b", "K", "nDCG@10", "MRR", "P@1"
        );
        for p in eval::sweep(&rows[0], &rows[1], &qrels, depth) {
            println!(
                "{:>5.1} {:>5.1} {:>5} {:>8.4} {:>8.4} {:>8.4}",
                p.w_a, p.w_b, p.k, p.mean.ndcg_10, p.mean.mrr, p.mean.p_1
            );
        }
    }
    if let Some(path) = &run {
        if rows.len() == 1 {
            eval::write_run(path, &[&rows[0]])?;
        } else {
            for r in &rows {
                let p = path.with_extension(format!(
                    "{}.{}.run",
                    r.retriever,
                    r.query_set.trim_end_matches(".jsonl")
                ));
                eval::write_run(&p, &[r])?;
            }
        }
    }
    let answers = match &questions {
        Some(qpath) => {
            let qs = eval::answers::read_questions(qpath)?;
            let rep = baseline_answers(&store, &index, abstain_below, &qs).await?;
            print_answers(qpath, "baseline", &cfg, &rep);
            Some(rep)
        }
        None => None,
    };
    if let Some(path) = &json {
        let doc = serde_json::json!({
            "dataset": dataset.display().to_string(),
            "analyzer": index.analyzer().options(),
            "bm25": {"k1": cfg.bm25.k1, "b": cfg.bm25.b},
            "rows": rows,
            "answers": answers,
        });
        write_json(path, &doc)?;
    }
    index.close_writer()?;
    drop(index);
    drop(store);
    if let Some(dir) = scratch {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

/// Answers on the configured store: the questions of `--questions` (one split of them, if named).
async fn answers_on_store(cfg: &Config, args: EvalArgs) -> Result<(), AppError> {
    let EvalArgs {
        questions,
        answerer,
        answer_k,
        split,
        traces,
        json,
        abstain_below,
        ..
    } = args;
    let qpath = questions.expect("clap: --questions when no --dataset");
    let mut qs = eval::answers::read_questions(&qpath)?;
    if let Some(part) = &split {
        qs.retain(|q| q.split.as_deref() == Some(part.as_str()));
        if qs.is_empty() {
            return Err(AppError::Config(format!(
                "no question of {} is in split {part:?}",
                qpath.display()
            )));
        }
    }
    let (store, mut index) = super::open_reader(cfg).await?;
    index.close_writer()?;
    let analyzer = index.analyzer().clone();
    let rep = if answerer == "llm" {
        drop(store);
        let ctx = sql::build_session(cfg, Arc::new(index)).await?;
        let llm = mitra::llm::Llm::new(cfg);
        let a = eval::answers::LlmAnswerer {
            ctx: &ctx,
            llm: &llm,
            data_dir: &cfg.data_dir,
            k: answer_k.unwrap_or(cfg.llm.k),
        };
        let mut file = match &traces {
            Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p).map_err(
                |source| AppError::Io {
                    context: format!("creating {}", p.display()),
                    source,
                },
            )?)),
            None => None,
        };
        eval::answers::evaluate(
            &a,
            &analyzer,
            &qs,
            file.as_mut().map(|f| f as &mut dyn std::io::Write),
        )?
    } else {
        baseline_answers(&store, &index, abstain_below, &qs).await?
    };
    print_answers(&qpath, &answerer, cfg, &rep);
    if let Some(path) = &json {
        write_json(path, &rep)?;
    }
    Ok(())
}

/// A fresh scratch data directory for `mitra eval`, unless a store was named explicitly.
fn tempdir_for_eval(explicit: bool) -> Option<PathBuf> {
    if explicit {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("mitra-eval-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Some(dir)
}

/// Chunk texts by id (for quoting answers).
async fn chunk_texts(store: &Store) -> Result<std::collections::HashMap<String, String>, AppError> {
    use futures::TryStreamExt;
    let mut out = std::collections::HashMap::new();
    let mut scan = store.chunks().scan();
    scan.project(&["chunk_id", "text"])
        .map_err(mitra::store::StoreError::from)?;
    let mut stream = scan
        .try_into_stream()
        .await
        .map_err(mitra::store::StoreError::from)?;
    while let Some(b) = stream
        .try_next()
        .await
        .map_err(mitra::store::StoreError::from)?
    {
        let (ids, texts) = (mitra::store::str_col(&b, 0), mitra::store::str_col(&b, 1));
        for i in 0..b.num_rows() {
            out.insert(ids.value(i).to_string(), texts.value(i).to_string());
        }
    }
    Ok(out)
}

/// Writes `value` as pretty JSON to `path`.
fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), AppError> {
    std::fs::write(
        path,
        serde_json::to_string_pretty(value).expect("serialisable"),
    )
    .map_err(|source| AppError::Io {
        context: format!("writing {}", path.display()),
        source,
    })
}

/// The retrieval-threshold baseline over `questions`.
async fn baseline_answers(
    store: &Store,
    index: &mitra::index::Bm25Index,
    abstain_below: f32,
    questions: &[eval::answers::Question],
) -> Result<eval::answers::AnswerReport, AppError> {
    let a = eval::answers::RetrievalThresholdAnswerer {
        index,
        texts: chunk_texts(store).await?,
        threshold: abstain_below,
        top: 3,
    };
    Ok(eval::answers::evaluate(
        &a,
        index.analyzer(),
        questions,
        None,
    )?)
}

/// Prints the answer figures of one question file.
fn print_answers(qpath: &Path, answerer: &str, cfg: &Config, rep: &eval::answers::AnswerReport) {
    let who = if answerer == "llm" {
        format!(
            "llm {}",
            cfg.llm
                .model_path
                .as_ref()
                .map_or(cfg.llm.model.clone(), |p| p.display().to_string())
        )
    } else {
        "retrieval-threshold baseline".to_string()
    };
    println!(
        "answers ({}: {who}): {} questions, abstention accuracy {:.4}, answered when answerable {:.4}, abstained when unanswerable {:.4}, answered unanswerable {:.4}, key-point coverage {:.4}, citation precision {:.4}, cited answers {:.4}, support rate {:.4}, shown sentences with an unsupported number {:.4}, {:.1} s per answer (max {:.1})",
        qpath.display(),
        rep.questions,
        rep.abstention_accuracy,
        rep.answered_when_answerable,
        rep.abstained_when_unanswerable,
        rep.answered_unanswerable,
        rep.key_point_coverage,
        rep.citation_precision,
        rep.cited_answers,
        rep.support_rate,
        rep.shown_unsupported_numbers,
        rep.mean_seconds,
        rep.max_seconds
    );
}
