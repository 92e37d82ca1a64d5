//! Catalog columns that PostgreSQL types as arrays (`int2vector`, `oidvector`, `int2[]`,
//! `oid[]`, `char[]`, `text[]`, `aclitem[]`) and datafusion-pg-catalog keeps as text (`"1 2"`,
//! `"[2, 3]"`, `"['v']"`), as arrays: SQLAlchemy's `attnum = ANY(conkey)`, Harlequin's
//! `unnest(conkey)`, pgcli's `proargtypes::regtype[]` and psql's `array_to_string(nspacl, …)`
//! need them so.

use std::sync::Arc;

use arrow::array::{new_empty_array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::Result;
use datafusion::scalar::ScalarValue;

use super::overlay::{collect, strings, Rows};

/// The array columns of each catalog table, with their element types.
const ARRAY_COLUMNS: &[(&str, &[(&str, DataType)])] = &[
    (
        "pg_index",
        &[
            ("indkey", DataType::Int16),
            ("indoption", DataType::Int16),
            ("indclass", DataType::Int32),
            ("indcollation", DataType::Int32),
        ],
    ),
    (
        "pg_constraint",
        &[
            ("conkey", DataType::Int16),
            ("confkey", DataType::Int16),
            ("conpfeqop", DataType::Int32),
            ("conppeqop", DataType::Int32),
            ("conffeqop", DataType::Int32),
            ("conexclop", DataType::Int32),
        ],
    ),
    (
        "pg_proc",
        &[
            ("proargtypes", DataType::Int32),
            ("proallargtypes", DataType::Int32),
            ("proargmodes", DataType::Utf8),
            ("proargnames", DataType::Utf8),
            ("proacl", DataType::Utf8),
        ],
    ),
    ("pg_namespace", &[("nspacl", DataType::Utf8)]),
    ("pg_policy", &[("polroles", DataType::Int32)]),
    ("pg_type", &[("typacl", DataType::Utf8)]),
    ("pg_attribute", &[("attacl", DataType::Utf8)]),
];

/// The array columns of `table`, if it has any.
pub fn columns_of(table: &str) -> Option<&'static [(&'static str, DataType)]> {
    ARRAY_COLUMNS
        .iter()
        .find(|(t, _)| *t == table)
        .map(|(_, c)| *c)
}

/// A catalog table with its array columns as arrays.
#[derive(Debug)]
pub struct Arrays {
    schema: SchemaRef,
    inner: Arc<dyn TableProvider>,
    columns: &'static [(&'static str, DataType)],
}

impl Arrays {
    /// `inner` with `columns` (those of them it keeps as text) as arrays.
    pub fn new(
        inner: Arc<dyn TableProvider>,
        columns: &'static [(&'static str, DataType)],
    ) -> Self {
        let schema = inner.schema();
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| match array_item(columns, f) {
                Some(item) => Field::new(
                    f.name(),
                    DataType::List(Arc::new(Field::new("item", item.clone(), true))),
                    true,
                ),
                None => f.as_ref().clone(),
            })
            .collect();
        Self {
            schema: Arc::new(Schema::new(fields)),
            inner,
            columns,
        }
    }
}

/// The element type of `field` when it is one of `columns` kept as text.
fn array_item<'a>(columns: &'a [(&str, DataType)], field: &Field) -> Option<&'a DataType> {
    let text = matches!(field.data_type(), DataType::Utf8 | DataType::Utf8View);
    columns
        .iter()
        .find(|(n, _)| text && n == field.name())
        .map(|(_, t)| t)
}

/// The elements of an array as datafusion-pg-catalog writes it: `1 2`, `[2, 3]`, `{a,b}`,
/// `['v']`.
pub fn elements(text: &str) -> Vec<String> {
    let t = text.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .or_else(|| t.strip_prefix('{').and_then(|t| t.strip_suffix('}')))
        .unwrap_or(t);
    t.split(|c: char| c == ',' || c.is_whitespace())
        .map(|p| p.trim().trim_matches(|c| c == '\'' || c == '"'))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

#[async_trait]
impl Rows for Arrays {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let rows = collect(&self.inner, state).await?;
        let mut cols = rows.columns().to_vec();
        let inner_schema = rows.schema();
        for (i, field) in inner_schema.fields().iter().enumerate() {
            let Some(item) = array_item(self.columns, field) else {
                continue;
            };
            let values: Vec<ScalarValue> = strings(&rows, field.name())?
                .into_iter()
                .map(|v| match v {
                    None => ScalarValue::try_from(self.schema.field(i).data_type())
                        .unwrap_or(ScalarValue::Null),
                    Some(v) => {
                        let items: Vec<ScalarValue> = elements(&v)
                            .into_iter()
                            .map(|n| {
                                ScalarValue::Utf8(Some(n)).cast_to(item).unwrap_or(
                                    ScalarValue::try_from(item).unwrap_or(ScalarValue::Null),
                                )
                            })
                            .collect();
                        ScalarValue::List(ScalarValue::new_list_nullable(&items, item))
                    }
                })
                .collect();
            cols[i] = if values.is_empty() {
                new_empty_array(self.schema.field(i).data_type())
            } else {
                ScalarValue::iter_to_array(values)?
            };
        }
        Ok(RecordBatch::try_new(self.schema.clone(), cols)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_an_array_reads_as_its_elements() {
        assert_eq!(elements("1 2"), ["1", "2"]);
        assert_eq!(elements("[2, 20, 3]"), ["2", "20", "3"]);
        assert_eq!(elements("['v', 'i']"), ["v", "i"]);
        assert_eq!(elements("{a,b}"), ["a", "b"]);
        assert!(elements("").is_empty());
        assert!(elements("[]").is_empty());
    }
}
