//! Results in types the wire encoder and every client know: fixed-size vectors (`embedding`)
//! travel as `real[]` (Arrow `List`), the type the catalog reports for them.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::error::Result;
use datafusion::logical_expr::{cast, Expr, LogicalPlan, LogicalPlanBuilder};

/// The wire type of an Arrow type: fixed-size lists become lists, recursively.
pub fn wire_type(dt: &DataType) -> DataType {
    match dt {
        DataType::FixedSizeList(f, _) | DataType::LargeList(f) | DataType::ListView(f) => {
            DataType::List(Arc::new(Field::new(
                f.name(),
                wire_type(f.data_type()),
                f.is_nullable(),
            )))
        }
        other => other.clone(),
    }
}

/// The schema a result has on the wire.
pub fn wire_schema(schema: &Schema) -> Schema {
    Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_data_type(wire_type(f.data_type())))
            .collect::<Vec<_>>(),
    )
}

/// Casts the columns whose wire type differs; a no-op for most results.
pub fn normalize(df: DataFrame) -> Result<DataFrame> {
    let needs = df
        .schema()
        .fields()
        .iter()
        .any(|f| &wire_type(f.data_type()) != f.data_type());
    if !needs {
        return Ok(df);
    }
    let exprs: Vec<Expr> = df
        .schema()
        .iter()
        .map(|(q, f)| {
            let c = Expr::Column(Column::new(q.cloned(), f.name()));
            let wt = wire_type(f.data_type());
            if &wt == f.data_type() {
                c
            } else {
                cast(c, wt).alias_qualified(q.cloned(), f.name())
            }
        })
        .collect();
    df.select(exprs)
}

/// Renames result columns to the names Postgres would give them (see
/// [`super::rewrite::pg_column_names`]); unchanged when counts differ or names would collide.
pub fn rename(plan: LogicalPlan, names: Option<&[Option<String>]>) -> Result<LogicalPlan> {
    let Some(names) = names else {
        return Ok(plan);
    };
    let fields: Vec<_> = plan
        .schema()
        .iter()
        .map(|(q, f)| (q.cloned(), f.clone()))
        .collect();
    if fields.len() != names.len() {
        return Ok(plan);
    }
    let target: Vec<String> = fields
        .iter()
        .zip(names)
        .map(|((_, f), n)| n.clone().unwrap_or_else(|| f.name().clone()))
        .collect();
    let unique: std::collections::HashSet<&String> = target.iter().collect();
    if unique.len() != target.len() || fields.iter().zip(&target).all(|((_, f), t)| f.name() == t) {
        return Ok(plan);
    }
    let exprs: Vec<Expr> = fields
        .iter()
        .zip(&target)
        .map(|((q, f), t)| {
            let c = Expr::Column(Column::new(q.clone(), f.name()));
            if f.name() == t {
                c
            } else {
                c.alias(t)
            }
        })
        .collect();
    LogicalPlanBuilder::from(plan).project(exprs)?.build()
}

/// Result column names as the client sees them (RowDescription): Postgres' names for an
/// unaliased select list, duplicates included (`SELECT 7 / 2, 1` has two `?column?`), which a
/// plan's schema cannot hold.
pub fn wire_names(
    fields: &[pgwire::api::results::FieldInfo],
    names: Option<&[Option<String>]>,
) -> Option<Vec<pgwire::api::results::FieldInfo>> {
    use pgwire::api::results::FieldInfo;
    let names = names.filter(|n| n.len() == fields.len())?;
    if fields
        .iter()
        .zip(names)
        .all(|(f, n)| n.as_deref().is_none_or(|n| n == f.name()))
    {
        return None;
    }
    Some(
        fields
            .iter()
            .zip(names)
            .map(|(f, n)| {
                FieldInfo::new(
                    n.clone().unwrap_or_else(|| f.name().to_string()),
                    f.table_id(),
                    f.column_id(),
                    f.datatype().clone(),
                    f.format(),
                )
                .with_format_options(f.format_options().clone())
                .with_type_size(f.type_size())
                .with_type_modifier(f.type_modifier())
            })
            .collect(),
    )
}
