//! Optimizer rule: a join between a `bm25()` result and a Lance table on `chunk_id` or `doc_id`
//! pushes `key IN (<result ids>)` into the Lance scan, so the table is not read in full.

use datafusion::common::tree_node::Transformed;
use datafusion::common::Result;
use datafusion::datasource::source_as_provider;
use datafusion::logical_expr::{col, lit, Expr, JoinType, LogicalPlan, TableScan};
use datafusion::optimizer::optimizer::ApplyOrder;
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

use super::bm25_fn::RankedTable;
use super::dense_fn::HybridTable;
use super::live_table::LiveLanceTable;

/// Largest id list pushed into a scan; longer results join without the hint.
const MAX_IDS: usize = 2000;

/// See the module documentation.
#[derive(Debug, Default)]
pub struct RetrievalJoinPushdown;

/// The table scan under aliases and filters (which keep column names).
fn scan_of(plan: &LogicalPlan) -> Option<&TableScan> {
    match plan {
        LogicalPlan::TableScan(s) => Some(s),
        LogicalPlan::SubqueryAlias(a) => scan_of(&a.input),
        LogicalPlan::Filter(f) => scan_of(&f.input),
        _ => None,
    }
}

/// Rebuilds `plan` with `filter` added to its table scan's pushed-down filters.
fn with_scan_filter(plan: &LogicalPlan, filter: &Expr) -> Option<LogicalPlan> {
    match plan {
        LogicalPlan::TableScan(s) => {
            if s.filters.contains(filter) {
                return None;
            }
            let mut s = s.clone();
            s.filters.push(filter.clone());
            Some(LogicalPlan::TableScan(s))
        }
        LogicalPlan::SubqueryAlias(_) | LogicalPlan::Filter(_) => {
            let input = plan.inputs()[0];
            let new_input = with_scan_filter(input, filter)?;
            plan.with_new_exprs(plan.expressions(), vec![new_input])
                .ok()
        }
        _ => None,
    }
}

fn bm25_ids(plan: &LogicalPlan, key: &str) -> Option<Vec<String>> {
    let provider = source_as_provider(&scan_of(plan)?.source).ok()?;
    let pairs: Vec<(&str, &str)> = if let Some(t) = provider.downcast_ref::<RankedTable>() {
        t.rows()?
            .iter()
            .map(|r| (r.0.as_str(), r.1.as_str()))
            .collect()
    } else {
        let t = provider.downcast_ref::<HybridTable>()?;
        t.rows()?
            .iter()
            .map(|r| (r.chunk_id.as_str(), r.doc_id.as_str()))
            .collect()
    };
    let mut ids: Vec<String> = match key {
        "chunk_id" => pairs.iter().map(|r| r.0.to_string()).collect(),
        "doc_id" => pairs.iter().map(|r| r.1.to_string()).collect(),
        _ => return None,
    };
    ids.sort();
    ids.dedup();
    (!ids.is_empty() && ids.len() <= MAX_IDS).then_some(ids)
}

fn is_lance(plan: &LogicalPlan) -> bool {
    scan_of(plan)
        .and_then(|s| source_as_provider(&s.source).ok())
        .is_some_and(|p| p.downcast_ref::<LiveLanceTable>().is_some())
}

/// `target` (a Lance table side) with `key IN (ids of the bm25 result in `retrieval`)` pushed
/// into its scan, or `None` when the pattern does not apply.
fn pushed(retrieval: &LogicalPlan, target: &LogicalPlan, key: &str) -> Option<LogicalPlan> {
    if !is_lance(target) {
        return None;
    }
    let ids = bm25_ids(retrieval, key)?;
    let filter = col(key).in_list(ids.into_iter().map(lit).collect(), false);
    with_scan_filter(target, &filter)
}

fn key_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Column(c) => Some(c.name.as_str()),
        _ => None,
    }
}

impl OptimizerRule for RetrievalJoinPushdown {
    fn name(&self) -> &str {
        "mitra_retrieval_join_pushdown"
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::BottomUp)
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Join(join) = &plan else {
            return Ok(Transformed::no(plan));
        };
        // Which side may be filtered without changing the result: the side whose unmatched rows
        // the join drops.
        let (left_ok, right_ok) = match join.join_type {
            JoinType::Inner => (true, true),
            JoinType::Left | JoinType::LeftSemi => (false, true),
            JoinType::Right | JoinType::RightSemi => (true, false),
            _ => (false, false),
        };
        for (l, r) in &join.on {
            let (Some(lk), Some(rk)) = (key_name(l), key_name(r)) else {
                continue;
            };
            if lk != rk {
                continue;
            }
            if right_ok {
                if let Some(new_right) = pushed(&join.left, &join.right, lk) {
                    let mut j = join.clone();
                    j.right = new_right.into();
                    return Ok(Transformed::yes(LogicalPlan::Join(j)));
                }
            }
            if left_ok {
                if let Some(new_left) = pushed(&join.right, &join.left, rk) {
                    let mut j = join.clone();
                    j.left = new_left.into();
                    return Ok(Transformed::yes(LogicalPlan::Join(j)));
                }
            }
        }
        Ok(Transformed::no(plan))
    }
}
