//! Results in types the wire encoder and every client know: fixed-size vectors (`embedding`)
//! travel as `real[]` (Arrow `List`), the type the catalog reports for them.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::error::Result;
use datafusion::logical_expr::{cast, Expr};

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

/// The fields of a DataRow payload: `None` for NULL. Stops at a truncated field.
pub fn row_fields(data: &[u8]) -> Vec<Option<&[u8]>> {
    let mut out = Vec::new();
    let mut rest = data;
    while rest.len() >= 4 {
        let len = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
        rest = &rest[4..];
        if len < 0 {
            out.push(None);
        } else {
            let len = (len as usize).min(rest.len());
            out.push(Some(&rest[..len]));
            rest = &rest[len..];
        }
    }
    out
}
