//! Results in types the wire encoder and every client know: fixed-size vectors (`embedding`)
//! travel as `real[]` (Arrow `List`), the type the catalog reports for them, and catalog oids as
//! `oid`; the RowDescription and the rows are built from the same fields.

use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Schema};
use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::error::Result;
use datafusion::logical_expr::{cast, Expr};
use datafusion_postgres::arrow_pg;
use datafusion_postgres::datafusion_pg_catalog::pg_catalog::oid_field::OID_ALIAS_KEY;
use futures::StreamExt;
use pgwire::api::portal::Format;
use pgwire::api::results::{FieldInfo, QueryResponse};
use pgwire::api::Type;
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::data::DataRow;
use pgwire::types::format::FormatOptions;

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

/// The Postgres type of a result or parameter field: arrow-pg's, except that oid columns
/// (datafusion-pg-catalog marks them with `pg.oid_alias`) and lists of them are `oid` and
/// `oid[]`, as in Postgres. asyncpg decodes its own type-introspection query only with those
/// (an `int4[]` there would send it introspecting `int4[]` without end).
pub fn pg_type(field: &FieldRef) -> PgWireResult<Type> {
    let is_oid = |f: &Field| f.metadata().contains_key(OID_ALIAS_KEY);
    match field.data_type() {
        DataType::Int32 if is_oid(field) => Ok(Type::OID),
        DataType::List(inner) if inner.data_type() == &DataType::Int32 && is_oid(inner) => {
            Ok(Type::OID_ARRAY)
        }
        _ => arrow_pg::datatypes::field_into_pg_type(field),
    }
}

/// The RowDescription of a result in `format`: [`pg_type`]s, and Postgres' names for an
/// unaliased select list where `names` gives them, duplicates included (`SELECT 7 / 2, 1` has
/// two `?column?`), which a plan's schema cannot hold.
pub fn pg_fields(
    schema: &Schema,
    format: &Format,
    options: Option<Arc<FormatOptions>>,
    names: Option<&[Option<String>]>,
) -> PgWireResult<Vec<FieldInfo>> {
    let names = names.filter(|n| n.len() == schema.fields().len());
    schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let name = names
                .and_then(|n| n[i].clone())
                .unwrap_or_else(|| f.name().clone());
            let info = FieldInfo::new(name, None, None, pg_type(f)?, format.format_for(i));
            Ok(match &options {
                Some(o) => info.with_format_options(o.clone()),
                None => info,
            })
        })
        .collect()
}

/// Executes `df` and encodes its rows as `fields` describe them.
pub async fn encode(df: DataFrame, fields: Vec<FieldInfo>) -> PgWireResult<QueryResponse> {
    let fields = Arc::new(fields);
    let batches = df
        .execute_stream()
        .await
        .map_err(|e| PgWireError::ApiError(Box::new(e)))?;
    let encoding = fields.clone();
    let rows = batches
        .map(
            move |batch| -> Box<dyn Iterator<Item = PgWireResult<DataRow>> + Send + Sync> {
                match batch {
                    Ok(b) => arrow_pg::datatypes::encode_recordbatch(encoding.clone(), b),
                    Err(e) => Box::new(std::iter::once(Err(PgWireError::ApiError(Box::new(e))))),
                }
            },
        )
        .flat_map(futures::stream::iter);
    Ok(QueryResponse::new(fields, rows))
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
