//! `EXPLAIN` as PostgreSQL answers it: one `QUERY PLAN` column, an operator of the physical
//! plan on each line with an estimate `(cost=S..T rows=N width=W)`, its details on the next
//! (what Superset's cost estimate and pgAdmin-style tools read).
//!
//! The estimates are DataFusion's statistics: `rows` the operator's estimated output rows
//! (the Lance tables know their row counts), `width` the average bytes of a row of its output
//! schema, and the cost a count of rows handled: an operator's total cost is its own output
//! rows plus its inputs' total costs; blocking operators (sorts, aggregates, joins' build
//! sides) start after their inputs, the others at once. `EXPLAIN ANALYZE` stays DataFusion's.

use std::sync::Arc;

use arrow_schema::{DataType, Schema};
use datafusion::common::stats::Precision;
use datafusion::error::Result;
use datafusion::logical_expr::{col, lit, LogicalPlan, LogicalPlanBuilder};
use datafusion::physical_plan::{displayable, ExecutionPlan};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::Statement as DfStatement;
use datafusion::sql::sqlparser::ast::{AnalyzeFormat, AnalyzeFormatKind, Statement};

/// The plan of `statement` when it is an `EXPLAIN` Mitra answers as PostgreSQL does: a
/// statement without `ANALYZE`, in the text format.
pub async fn plan(ctx: &SessionContext, statement: &Statement) -> Option<Result<LogicalPlan>> {
    let Statement::Explain {
        analyze: false,
        statement: inner,
        format,
        options,
        ..
    } = statement
    else {
        return None;
    };
    let text = match format {
        None => true,
        Some(AnalyzeFormatKind::Keyword(f) | AnalyzeFormatKind::Assignment(f)) => {
            matches!(f, AnalyzeFormat::TEXT)
        }
    };
    let analyze = options.iter().flatten().any(|o| {
        o.name.value.eq_ignore_ascii_case("analyze")
            && o.arg
                .as_ref()
                .is_none_or(|a| !matches!(a.to_string().to_lowercase().as_str(), "false" | "off"))
    });
    if !text || analyze {
        return None;
    }
    Some(lines(ctx, inner).await.and_then(|lines| {
        let rows = lines.into_iter().map(|l| vec![lit(l)]).collect();
        LogicalPlanBuilder::values(rows)?
            .project(vec![col("column1").alias("QUERY PLAN")])?
            .build()
    }))
}

async fn lines(ctx: &SessionContext, inner: &Statement) -> Result<Vec<String>> {
    let state = ctx.state();
    let logical = state
        .statement_to_plan(DfStatement::Statement(Box::new(inner.clone())))
        .await?;
    crate::guard::check_plan(&logical)
        .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
    let physical = state.create_physical_plan(&logical).await?;
    let mut out = Vec::new();
    node(&physical, 0, &mut out)?;
    Ok(out)
}

/// Appends the lines of `plan` at `depth`; its (startup, total) cost and rows.
fn node(
    plan: &Arc<dyn ExecutionPlan>,
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(f64, f64, usize)> {
    let at = out.len();
    let detail_indent = if depth == 0 { 2 } else { 6 * depth + 2 };
    let one_line = displayable(plan.as_ref()).one_line().to_string();
    let detail = one_line
        .split_once(": ")
        .map(|(_, d)| {
            // A dataset's location is the server's business, not the plan's.
            let d = d.trim();
            match d.strip_prefix("uri=") {
                Some(rest) => rest.split_once(", ").map_or("", |(_, r)| r).to_string(),
                None => d.to_string(),
            }
        })
        .filter(|d| !d.is_empty());
    if let Some(d) = &detail {
        out.push(format!("{}{d}", " ".repeat(detail_indent)));
    }
    let mut children_total = 0.0;
    let mut children_rows = 0usize;
    for child in plan.children() {
        let (_, total, rows) = node(child, depth + 1, out)?;
        children_total += total;
        children_rows = children_rows.max(rows);
    }
    let rows = match plan.partition_statistics(None)?.num_rows {
        Precision::Exact(n) | Precision::Inexact(n) => n,
        Precision::Absent => children_rows,
    };
    let name = plan.name();
    let blocking = ["Sort", "Aggregate", "HashJoin", "Window", "Collect"]
        .iter()
        .any(|b| name.contains(b) && !name.contains("Preserving"));
    let total = children_total + rows as f64;
    let startup = if blocking { children_total } else { 0.0 };
    let arrow = if depth == 0 {
        String::new()
    } else {
        format!("{}->  ", " ".repeat(6 * depth - 4))
    };
    let head = format!(
        "{arrow}{}  (cost={startup:.2}..{total:.2} rows={rows} width={})",
        name.trim_end_matches("Exec"),
        width(&plan.schema())
    );
    out.insert(at, head);
    Ok((startup, total, rows))
}

/// The average bytes of a row of `schema`, as PostgreSQL estimates a tuple's width.
fn width(schema: &Schema) -> usize {
    schema.fields().iter().map(|f| bytes(f.data_type())).sum()
}

fn bytes(dt: &DataType) -> usize {
    match dt {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => 32,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => 32,
        DataType::FixedSizeList(f, n) => bytes(f.data_type()) * usize::try_from(*n).unwrap_or(0),
        DataType::List(f) | DataType::LargeList(f) => 10 * bytes(f.data_type()),
        DataType::Struct(fields) => fields.iter().map(|f| bytes(f.data_type())).sum(),
        other => other.primitive_width().unwrap_or(8),
    }
}
