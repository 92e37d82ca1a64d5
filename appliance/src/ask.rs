//! `mitra ask`: the two-tier flow in a terminal — pick the analysis, then search only it.
//!
//! The first question is matched against the readable analyses' abstracts (`abstracts()`); the
//! user confirms the first or picks another; the following questions search only that
//! analysis (`hybrid()` with the scope argument, `bm25()` when no encoder is available) until
//! `:switch` (choose again at the next question) or `:all` (every readable analysis).
//! With a language model (`[llm]`), the answer is streamed token by token, then its citations
//! are printed with document titles, pages and headings; without one (or with `--passages`),
//! the passages themselves are printed with their citations.

use std::io::{BufRead, Write};

use arrow::array::{Array, AsArray};
use datafusion::prelude::SessionContext;

use crate::error::AppError;

/// Options of the flow.
#[derive(Debug, Clone)]
pub struct AskOptions {
    /// Passages per question.
    pub k: usize,
    /// Analyses offered for confirmation.
    pub choices: usize,
    /// Start inside this analysis.
    pub analysis: Option<String>,
    /// Answer with this language model (streamed); `None` prints the passages.
    pub llm: Option<std::sync::Arc<mitra_sql::llm::Llm>>,
}

/// The scope of the conversation.
#[derive(Debug, Clone, PartialEq)]
enum Scope {
    /// Not chosen yet: the next question goes through tier 1 first.
    Unchosen,
    /// Every readable analysis.
    All,
    /// One analysis.
    One(String),
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn io(source: std::io::Error) -> AppError {
    AppError::Io {
        context: "terminal".into(),
        source,
    }
}

async fn rows(ctx: &SessionContext, sql: &str) -> Result<Vec<Vec<Option<String>>>, AppError> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let mut out = Vec::new();
    for b in batches {
        let cols: Vec<_> = b
            .columns()
            .iter()
            .map(|c| arrow::compute::cast(c, &arrow_schema::DataType::Utf8))
            .collect::<Result<_, _>>()
            .map_err(|e| AppError::Sql(e.into()))?;
        for r in 0..b.num_rows() {
            out.push(
                cols.iter()
                    .map(|c| {
                        let s = c.as_string::<i32>();
                        s.is_valid(r).then(|| s.value(r).to_string())
                    })
                    .collect(),
            );
        }
    }
    Ok(out)
}

fn cell(r: &[Option<String>], i: usize) -> &str {
    r.get(i).and_then(|c| c.as_deref()).unwrap_or("")
}

/// Tier 1 for `question`: shows the top analyses and reads the user's choice.
async fn choose(
    ctx: &SessionContext,
    question: &str,
    opts: &AskOptions,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Scope, AppError> {
    let found = rows(
        ctx,
        &format!(
            "SELECT analysis_id, title, status, score FROM abstracts({}, {}) ORDER BY rank",
            quote(question),
            opts.choices.max(1)
        ),
    )
    .await?;
    if found.is_empty() {
        writeln!(
            out,
            "No analysis matches; searching every analysis you may read."
        )
        .map_err(io)?;
        return Ok(Scope::All);
    }
    writeln!(out, "Which analysis is this about?").map_err(io)?;
    for (i, r) in found.iter().enumerate() {
        let score: f64 = cell(r, 3).parse().unwrap_or(0.0);
        writeln!(
            out,
            "  [{}] {}  ({}, {}, score {:.4})",
            i + 1,
            cell(r, 1),
            cell(r, 0),
            cell(r, 2),
            score
        )
        .map_err(io)?;
    }
    writeln!(out, "  [0] none of these: search every analysis").map_err(io)?;
    loop {
        write!(out, "choice [1]> ").map_err(io)?;
        out.flush().map_err(io)?;
        let mut line = String::new();
        if input.read_line(&mut line).map_err(io)? == 0 {
            return Ok(Scope::One(cell(&found[0], 0).to_string()));
        }
        match line.trim() {
            "" | "y" | "yes" => return Ok(Scope::One(cell(&found[0], 0).to_string())),
            "0" => return Ok(Scope::All),
            t => match t.parse::<usize>() {
                Ok(n) if (1..=found.len()).contains(&n) => {
                    return Ok(Scope::One(cell(&found[n - 1], 0).to_string()))
                }
                _ => writeln!(out, "Type a number from 0 to {}.", found.len()).map_err(io)?,
            },
        }
    }
}

/// Retrieves and prints the passages for `question` inside `scope`; with the model, prints
/// ask()'s plan, retrieves each sub-query into one pool and streams the answer over it.
async fn answer(
    ctx: &SessionContext,
    question: &str,
    scope: &Scope,
    k: usize,
    llm: Option<&mitra_sql::llm::Llm>,
    out: &mut dyn Write,
) -> Result<(), AppError> {
    let scope_arg = match scope {
        Scope::One(a) => quote(a),
        _ => quote("*"),
    };
    let select = |f: &str, q: &str| {
        format!(
            "SELECT r.rank, r.chunk_id, d.title, c.page, c.heading, c.text, r.score \
             FROM {f}({}, {k}, {scope_arg}) r JOIN chunks c USING (chunk_id) \
             JOIN documents d ON d.doc_id = c.doc_id AND d.version = c.version ORDER BY r.rank",
            quote(q)
        )
    };
    let retrieve = |q: String| async move {
        match rows(ctx, &select("hybrid", &q)).await {
            Ok(r) => Ok(r),
            // No encoder here: BM25 alone.
            Err(AppError::Sql(e)) if mitra_pg::classify(&e).0 == "55000" => {
                rows(ctx, &select("bm25", &q)).await
            }
            Err(e) => Err(e),
        }
    };
    let Some(llm) = llm else {
        let found = retrieve(question.to_string()).await?;
        if found.is_empty() {
            writeln!(out, "No passage found.").map_err(io)?;
        }
        for r in &found {
            let text: String = cell(r, 5).chars().take(300).collect();
            writeln!(out, "[{}] {}", cell(r, 0), text.replace('\n', " ")).map_err(io)?;
            writeln!(out, "{}", citation(r)).map_err(io)?;
        }
        return Ok(());
    };
    // With the model: ask()'s plan and pool (`ask_plan`, the server's rules and budgets),
    // then the answer streamed over the pool.
    const SEP: &str = "\u{1f}";
    let planned = rows(
        ctx,
        &format!(
            "SELECT class, array_to_string(tags, ', '), array_to_string(sub_queries, '{SEP}'), \
             array_to_string(pool, '{SEP}') FROM ask_plan({}, {k}, {scope_arg})",
            quote(question)
        ),
    )
    .await;
    let found = match planned {
        Ok(plan) => {
            let p = plan.first().map(Vec::as_slice).unwrap_or_default();
            let tags = cell(p, 1);
            writeln!(
                out,
                "plan: {} · tags: {} · searches: {}",
                cell(p, 0),
                if tags.is_empty() { "-" } else { tags },
                cell(p, 2).replace(SEP, " | ")
            )
            .map_err(io)?;
            let ids: Vec<&str> = cell(p, 3).split(SEP).filter(|s| !s.is_empty()).collect();
            pooled_rows(ctx, &ids).await?
        }
        // No encoder here: BM25 alone, unplanned.
        Err(AppError::Sql(e)) if mitra_pg::classify(&e).0 == "55000" => {
            writeln!(out, "plan: none (no sentence encoder; BM25 alone)").map_err(io)?;
            retrieve(question.to_string()).await?
        }
        Err(e) => return Err(e),
    };
    if found.is_empty() {
        writeln!(out, "No passage found.").map_err(io)?;
    }
    generate(llm, question, &found, out).await
}

/// The rows (rank, chunk id, title, page, heading, text, score) of the pooled chunks `ids`,
/// in pool order.
async fn pooled_rows(
    ctx: &SessionContext,
    ids: &[&str],
) -> Result<Vec<Vec<Option<String>>>, AppError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = ids.iter().map(|i| quote(i)).collect::<Vec<_>>().join(", ");
    let mut by_id: std::collections::HashMap<String, Vec<Option<String>>> = rows(
        ctx,
        &format!(
            "SELECT 0, c.chunk_id, d.title, c.page, c.heading, c.text, 0.0 FROM chunks c \
             JOIN documents d ON d.doc_id = c.doc_id AND d.version = c.version \
             WHERE c.chunk_id IN ({list})"
        ),
    )
    .await?
    .into_iter()
    .map(|r| (cell(&r, 1).to_string(), r))
    .collect();
    Ok(ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| {
            by_id.remove(*id).map(|mut r| {
                r[0] = Some((i + 1).to_string());
                r
            })
        })
        .collect())
}

fn citation(r: &[Option<String>]) -> String {
    let mut cite = format!("    — {}", cell(r, 2));
    if !cell(r, 3).is_empty() {
        cite.push_str(&format!(", p. {}", cell(r, 3)));
    }
    if !cell(r, 4).is_empty() {
        cite.push_str(&format!(", § {}", cell(r, 4)));
    }
    cite.push_str(&format!("  ({})", cell(r, 1)));
    cite
}

/// Streams the model's answer over the passages `found`, then prints what it cites.
async fn generate(
    llm: &mitra_sql::llm::Llm,
    question: &str,
    found: &[Vec<Option<String>>],
    out: &mut dyn Write,
) -> Result<(), AppError> {
    let passages = found
        .iter()
        .map(|r| mitra_llm::Passage {
            chunk_id: cell(r, 1).to_string(),
            title: Some(cell(r, 2).to_string()).filter(|t| !t.is_empty()),
            heading: Some(cell(r, 4).to_string()).filter(|t| !t.is_empty()),
            page: cell(r, 3).parse().ok(),
            text: cell(r, 5).to_string(),
        })
        .collect();
    let ev = mitra_sql::llm::Evidence {
        passages,
        ..Default::default()
    };
    let llm_err = |e: mitra_llm::LlmError| AppError::Config(format!("language model: {e}"));
    let mut pending = mitra_sql::llm::submit(llm, question, ev).map_err(llm_err)?;
    while let Some(piece) = pending.next_text().await.map_err(llm_err)? {
        write!(out, "{piece}").map_err(io)?;
        out.flush().map_err(io)?;
    }
    writeln!(out).map_err(io)?;
    let row = pending.finish().await.map_err(llm_err)?;
    if row.abstained {
        let unmentioned = format!(
            " (no passage found mentions {})",
            row.unmentioned.join(", ")
        );
        let why = match row.abstention {
            mitra_sql::llm::Abstention::Uncited => {
                " (the model's answer cited no passage it was given)"
            }
            mitra_sql::llm::Abstention::Unmentioned => unmentioned.as_str(),
            mitra_sql::llm::Abstention::NoEvidence => " (no passage was found)",
            mitra_sql::llm::Abstention::Gate => {
                " (the passages are not close enough to the question)"
            }
            mitra_sql::llm::Abstention::NotRelevant => {
                " (no passage gives the requested fact, as the model judged them)"
            }
            mitra_sql::llm::Abstention::Unsupported => {
                " (no sentence of the answer is supported by the passages it cites)"
            }
            mitra_sql::llm::Abstention::Unanswered => {
                " (the answer only restated the question, or gave no number of the kind asked)"
            }
            _ => "",
        };
        writeln!(out, "=> {}{why}", row.answer).map_err(io)?;
    } else if row.unsupported > 0 {
        writeln!(
            out,
            "=> {}\n   ({} sentence(s) not supported by the passages they cite were removed)",
            row.answer, row.unsupported
        )
        .map_err(io)?;
    }
    for id in &row.citations {
        if let Some(r) = found.iter().find(|r| cell(r, 1) == id) {
            writeln!(out, "{}", citation(r)).map_err(io)?;
        }
    }
    if row.invalid_citations > 0 {
        writeln!(
            out,
            "    ({} citation(s) named no passage given and were dropped)",
            row.invalid_citations
        )
        .map_err(io)?;
    }
    writeln!(
        out,
        "    [{} · {} prompt + {} generated tokens · {:.1}s]",
        row.model,
        row.prompt_tokens,
        row.completion_tokens,
        (row.ms_prefill + row.ms_decode) / 1000.0
    )
    .map_err(io)?;
    Ok(())
}

const HELP: &str = "Commands: :switch (choose the analysis again at the next question), :all \
(search every analysis), :use ID, :scope (show it), :quit";

/// Runs the conversation until end of input or `:quit`.
pub async fn run(
    ctx: &SessionContext,
    opts: &AskOptions,
    first: Option<String>,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), AppError> {
    let mut scope = match &opts.analysis {
        Some(a) => Scope::One(a.clone()),
        None => Scope::Unchosen,
    };
    writeln!(out, "{HELP}").map_err(io)?;
    let mut pending = first;
    loop {
        let line = match pending.take() {
            Some(q) => q,
            None => {
                write!(out, "question> ").map_err(io)?;
                out.flush().map_err(io)?;
                let mut l = String::new();
                if input.read_line(&mut l).map_err(io)? == 0 {
                    return Ok(());
                }
                l.trim().to_string()
            }
        };
        match line.as_str() {
            "" => continue,
            ":quit" | ":q" => return Ok(()),
            ":switch" => {
                scope = Scope::Unchosen;
                writeln!(out, "The next question chooses the analysis again.").map_err(io)?;
                continue;
            }
            ":all" => {
                scope = Scope::All;
                writeln!(out, "Searching every analysis you may read.").map_err(io)?;
                continue;
            }
            ":scope" => {
                let s = match &scope {
                    Scope::Unchosen => "not chosen yet".to_string(),
                    Scope::All => "every readable analysis".to_string(),
                    Scope::One(a) => a.clone(),
                };
                writeln!(out, "scope: {s}").map_err(io)?;
                continue;
            }
            l if l.starts_with(":use ") => {
                scope = Scope::One(l[5..].trim().to_string());
                writeln!(out, "scope: {}", &l[5..].trim()).map_err(io)?;
                continue;
            }
            l if l.starts_with(':') => {
                writeln!(out, "{HELP}").map_err(io)?;
                continue;
            }
            _ => {}
        }
        if scope == Scope::Unchosen {
            scope = match choose(ctx, &line, opts, input, out).await {
                Ok(s) => s,
                Err(e) => {
                    writeln!(out, "error: {e}").map_err(io)?;
                    continue;
                }
            };
            if let Scope::One(a) = &scope {
                writeln!(out, "Searching only {a} (:switch to change).").map_err(io)?;
            }
        }
        if let Err(e) = answer(ctx, &line, &scope, opts.k.max(1), opts.llm.as_deref(), out).await {
            match e {
                AppError::Sql(e) => {
                    let (code, msg) = mitra_pg::classify(&e);
                    writeln!(out, "error [{code}]: {msg}").map_err(io)?
                }
                e => writeln!(out, "error: {e}").map_err(io)?,
            }
        }
    }
}
