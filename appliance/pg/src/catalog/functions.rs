//! Mitra's SQL functions (`mitra_sql::registry`) as the catalog writes them, and the catalog functions psql, pgjdbc,
//! asyncpg and SQLAlchemy call that datafusion-pg-catalog does not provide.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, StringArray};
use arrow_schema::DataType;
use datafusion::common::cast::as_int64_array;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{create_udf, ColumnarValue, Signature, SimpleScalarUDF, Volatility};
use datafusion::prelude::SessionContext;
use datafusion::scalar::ScalarValue;

use super::types::pg_type;
pub use mitra_sql::registry::{MitraFunction, Returns, FUNCTIONS};

/// How the catalog writes a function's signature, as PostgreSQL's functions do.
pub trait PgSignature {
    /// `pg_get_function_arguments`: `query text, k bigint`.
    fn arguments(&self) -> String;
    /// `pg_get_function_result`: `TABLE(chunk_id text, ...)` or a type name.
    fn result(&self) -> String;
    /// `pg_proc.prorettype`: `record` for table functions and aggregates.
    fn result_oid(&self) -> i32;
}

impl PgSignature for MitraFunction {
    fn arguments(&self) -> String {
        self.args
            .iter()
            .map(|(n, t)| format!("{n} {}", pg_type(&t()).name))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn result(&self) -> String {
        match self.returns {
            Returns::Table(schema) => format!(
                "TABLE({})",
                schema()
                    .fields()
                    .iter()
                    .map(|f| format!("{} {}", f.name(), pg_type(f.data_type()).name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Returns::Scalar(t) => pg_type(&t()).name.to_string(),
            Returns::Aggregate => "record".to_string(),
        }
    }

    fn result_oid(&self) -> i32 {
        match self.returns {
            Returns::Table(_) | Returns::Aggregate => 2249,
            Returns::Scalar(t) => pg_type(&t()).oid,
        }
    }
}

fn by_oid(oid: i64) -> Option<&'static MitraFunction> {
    FUNCTIONS.iter().find(|f| i64::from(f.oid) == oid)
}

/// A one-argument function of an oid, answering NULL for oids that are not Mitra's.
fn oid_text_udf(
    name: &str,
    f: fn(&MitraFunction) -> String,
) -> datafusion::logical_expr::ScalarUDF {
    create_udf(
        name,
        vec![DataType::Int64],
        DataType::Utf8,
        Volatility::Stable,
        Arc::new(move |args: &[ColumnarValue]| {
            let arr = args[0].to_array(1)?;
            let arr = arrow::compute::cast(&arr, &DataType::Int64)?;
            let oids = as_int64_array(&arr)?;
            let out: StringArray = oids.iter().map(|o| o.and_then(by_oid).map(f)).collect();
            let out: ArrayRef = Arc::new(out);
            shaped(args, out)
        }),
    )
}

/// The settings `current_setting` knows (and `pg_settings` lists).
pub const SETTING_NAMES: &[&str] = &[
    "server_version",
    "server_version_num",
    "server_encoding",
    "client_encoding",
    "standard_conforming_strings",
    "default_transaction_read_only",
    "transaction_read_only",
    "is_superuser",
    "jit",
    "max_identifier_length",
    "search_path",
    "timezone",
    "datestyle",
    "integer_datetimes",
    "transaction_isolation",
    "default_transaction_isolation",
];

/// The value `current_setting(name)` reports (read-only, per server).
pub fn setting(name: &str) -> Option<String> {
    Some(match name.to_ascii_lowercase().as_str() {
        "server_version" => crate::server_version(),
        "server_version_num" => "160006".into(),
        "server_encoding" | "client_encoding" => "UTF8".into(),
        "standard_conforming_strings" => "on".into(),
        "default_transaction_read_only" | "transaction_read_only" => "on".into(),
        "is_superuser" => "off".into(),
        "jit" => "off".into(),
        "max_identifier_length" => "63".into(),
        "search_path" => "public".into(),
        "timezone" => "UTC".into(),
        "datestyle" => "ISO, MDY".into(),
        "integer_datetimes" => "on".into(),
        "transaction_isolation" | "default_transaction_isolation" => "read committed".into(),
        _ => return None,
    })
}

fn current_setting_udf() -> datafusion::logical_expr::ScalarUDF {
    create_udf(
        "current_setting",
        vec![DataType::Utf8],
        DataType::Utf8,
        Volatility::Stable,
        Arc::new(|args: &[ColumnarValue]| {
            let ColumnarValue::Scalar(s) = &args[0] else {
                return Err(DataFusionError::NotImplemented(
                    "current_setting() of a column".into(),
                ));
            };
            let name = match s {
                ScalarValue::Utf8(Some(n)) | ScalarValue::Utf8View(Some(n)) => n.clone(),
                _ => return Ok(ColumnarValue::Scalar(ScalarValue::Utf8(None))),
            };
            match setting(&name) {
                Some(v) => Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(v)))),
                None => Err(DataFusionError::Plan(format!(
                    "unrecognized configuration parameter \"{name}\""
                ))),
            }
        }),
    )
}

/// `set_config(name, value, is_local)`: drivers switch settings such as `jit` off around their
/// type introspection; nothing here depends on them, so the value is echoed and not kept.
fn set_config_udf() -> datafusion::logical_expr::ScalarUDF {
    create_udf(
        "set_config",
        vec![DataType::Utf8, DataType::Utf8, DataType::Boolean],
        DataType::Utf8,
        Volatility::Volatile,
        Arc::new(|args: &[ColumnarValue]| Ok(args[1].clone())),
    )
}

/// The core types by name (`pg_type.typname` or SQL spelling).
fn type_oid(name: &str) -> Option<i32> {
    let n = name
        .trim()
        .trim_start_matches("pg_catalog.")
        .to_ascii_lowercase();
    Some(match n.as_str() {
        "bool" | "boolean" => 16,
        "bytea" => 17,
        "int8" | "bigint" => 20,
        "int2" | "smallint" => 21,
        "int4" | "integer" | "int" => 23,
        "text" => 25,
        "oid" => 26,
        "float4" | "real" => 700,
        "float8" | "double precision" => 701,
        "varchar" | "character varying" => 1043,
        "date" => 1082,
        "time" => 1083,
        "timestamp" | "timestamp without time zone" => 1114,
        "timestamptz" | "timestamp with time zone" => 1184,
        "interval" => 1186,
        "numeric" => 1700,
        "_float4" | "real[]" => 1021,
        "_text" | "text[]" => 1009,
        "_int8" | "bigint[]" => 1016,
        "json" => 114,
        "jsonb" => 3802,
        "uuid" => 2950,
        _ => return None,
    })
}

/// `to_regtype(name)`: the oid of a type, NULL for types Mitra does not have (SQLAlchemy asks
/// for `hstore` at connect).
fn to_regtype_udf() -> datafusion::logical_expr::ScalarUDF {
    create_udf(
        "to_regtype",
        vec![DataType::Utf8],
        DataType::Int32,
        Volatility::Stable,
        Arc::new(|args: &[ColumnarValue]| {
            let arr = args[0].to_array(1)?;
            let arr = arrow::compute::cast(&arr, &DataType::Utf8)?;
            let out: arrow::array::Int32Array = arr
                .as_any()
                .downcast_ref::<StringArray>()
                .map(|a| a.iter().map(|v| v.and_then(type_oid)).collect())
                .unwrap_or_else(|| arrow::array::Int32Array::from(vec![None; arr.len()]));
            let out: ArrayRef = Arc::new(out);
            shaped(args, out)
        }),
    )
}

/// `pg_typeof(any)`: the PostgreSQL name of the value's type (`integer`, `text`, `real[]`).
fn pg_typeof_udf() -> datafusion::logical_expr::ScalarUDF {
    #[derive(Debug, PartialEq, Eq, Hash)]
    struct PgTypeof(Signature);
    impl datafusion::logical_expr::ScalarUDFImpl for PgTypeof {
        fn name(&self) -> &str {
            "pg_typeof"
        }
        fn signature(&self) -> &Signature {
            &self.0
        }
        fn return_type(&self, _: &[DataType]) -> Result<DataType> {
            Ok(DataType::Utf8)
        }
        fn invoke_with_args(
            &self,
            args: datafusion::logical_expr::ScalarFunctionArgs,
        ) -> Result<ColumnarValue> {
            let name = pg_type(&args.args[0].data_type()).name;
            Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(
                name.to_string(),
            ))))
        }
    }
    datafusion::logical_expr::ScalarUDF::new_from_impl(PgTypeof(Signature::any(
        1,
        Volatility::Immutable,
    )))
}

/// `regtype_names(oid[])`: `x::regtype[]` as Postgres prints it, each oid as its type's name
/// (`format_type(oid, NULL)`); the statement rewrites call it for that cast.
fn regtype_names_udf() -> datafusion::logical_expr::ScalarUDF {
    use arrow::array::{AsArray, ListArray};
    use arrow_schema::Field;
    let item = Arc::new(Field::new("item", DataType::Utf8, true));
    let list = DataType::List(item.clone());
    create_udf(
        "regtype_names",
        vec![DataType::List(Arc::new(Field::new(
            "item",
            DataType::Int32,
            true,
        )))],
        list,
        Volatility::Stable,
        Arc::new(move |args: &[ColumnarValue]| {
            let arr = args[0].to_array(1)?;
            let lists = arr.as_list::<i32>();
            let oids = lists.values().clone();
            let format = datafusion_postgres::datafusion_pg_catalog::pg_catalog::format_type::create_format_type_udf();
            let n = oids.len();
            let names = format
                .invoke_with_args(datafusion::logical_expr::ScalarFunctionArgs {
                    args: vec![
                        ColumnarValue::Array(oids),
                        ColumnarValue::Scalar(ScalarValue::Int32(None)),
                    ],
                    arg_fields: vec![
                        Arc::new(Field::new("oid", DataType::Int32, true)),
                        Arc::new(Field::new("typmod", DataType::Int32, true)),
                    ],
                    number_rows: n,
                    return_field: Arc::new(Field::new("name", DataType::Utf8, true)),
                    config_options: Arc::new(datafusion::config::ConfigOptions::default()),
                })?
                .to_array(n)?;
            let names = arrow::compute::cast(&names, &DataType::Utf8)?;
            let out = ListArray::try_new(
                item.clone(),
                lists.offsets().clone(),
                names,
                lists.nulls().cloned(),
            )?;
            let out: ArrayRef = Arc::new(out);
            shaped(args, out)
        }),
    )
}

/// The row count of the arguments, `None` when every one is a scalar.
pub(crate) fn rows_of(args: &[ColumnarValue]) -> Option<usize> {
    args.iter().find_map(|a| match a {
        ColumnarValue::Array(a) => Some(a.len()),
        ColumnarValue::Scalar(_) => None,
    })
}

/// A computed column as the result: a scalar when every argument was one.
pub(crate) fn shaped(args: &[ColumnarValue], out: ArrayRef) -> Result<ColumnarValue> {
    Ok(match rows_of(args) {
        Some(_) => ColumnarValue::Array(out),
        None => ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?),
    })
}

/// A function of `signature` that answers the same value for every row.
fn constant_udf(
    name: &str,
    signature: Signature,
    value: ScalarValue,
) -> datafusion::logical_expr::ScalarUDF {
    let dt = value.data_type();
    datafusion::logical_expr::ScalarUDF::from(SimpleScalarUDF::new_with_signature(
        name,
        signature,
        dt,
        Arc::new(move |args: &[ColumnarValue]| {
            Ok(match rows_of(args) {
                Some(n) => ColumnarValue::Array(value.to_array_of_size(n)?),
                None => ColumnarValue::Scalar(value.clone()),
            })
        }),
    ))
}

/// The signature of a stable function of exactly these argument types.
fn exact(args: Vec<DataType>) -> Signature {
    Signature::exact(args, Volatility::Stable)
}

/// Registers the catalog functions on the server's base session.
pub fn register(ctx: &SessionContext) {
    ctx.register_udf(oid_text_udf(
        "pg_get_function_result",
        MitraFunction::result,
    ));
    ctx.register_udf(oid_text_udf(
        "pg_get_function_arguments",
        MitraFunction::arguments,
    ));
    ctx.register_udf(oid_text_udf(
        "pg_get_function_identity_arguments",
        MitraFunction::arguments,
    ));
    ctx.register_udf(constant_udf(
        "pg_function_is_visible",
        exact(vec![DataType::Int64]),
        ScalarValue::Boolean(Some(true)),
    ));
    // Pools reset sessions with these (asyncpg); a read-only session holds no locks.
    ctx.register_udf(constant_udf(
        "pg_advisory_unlock_all",
        exact(vec![]),
        ScalarValue::Boolean(Some(true)),
    ));
    // Mitra's tables have no indexes, and the catalog's own are not described: NULL, as
    // Postgres answers for an oid that is not an index.
    ctx.register_udf(constant_udf(
        "pg_get_indexdef",
        Signature::variadic_any(Volatility::Stable),
        ScalarValue::Utf8(None),
    ));
    ctx.register_udf(current_setting_udf());
    ctx.register_udf(set_config_udf());
    ctx.register_udf(to_regtype_udf());
    ctx.register_udf(super::json_fn::JsonBuildObject::udf());
    ctx.register_udf(constant_udf(
        "pg_collation_is_visible",
        exact(vec![DataType::Int64]),
        ScalarValue::Boolean(Some(true)),
    ));
    ctx.register_udf(constant_udf(
        "pg_type_is_visible",
        exact(vec![DataType::Int64]),
        ScalarValue::Boolean(Some(true)),
    ));
    // Read rights are decided per row by the session's reader (groups and analyses), and
    // nothing can be written: every object a client sees it may use, as `has_table_privilege`
    // and `has_schema_privilege` (datafusion-pg-catalog's) already answer.
    for name in [
        "has_function_privilege",
        "has_column_privilege",
        "has_sequence_privilege",
        "has_type_privilege",
        "has_tablespace_privilege",
        "has_foreign_data_wrapper_privilege",
        "has_server_privilege",
        "has_language_privilege",
    ] {
        ctx.register_udf(constant_udf(
            name,
            Signature::variadic_any(Volatility::Stable),
            ScalarValue::Boolean(Some(true)),
        ));
    }
    // The owner of every object (what `\dt` and `\l` show); any integer oid type.
    ctx.register_udf(constant_udf(
        "pg_get_userbyid",
        Signature::one_of(
            vec![
                datafusion::logical_expr::TypeSignature::Exact(vec![DataType::Int32]),
                datafusion::logical_expr::TypeSignature::Exact(vec![DataType::Int64]),
            ],
            Volatility::Stable,
        ),
        ScalarValue::Utf8(Some("postgres".into())),
    ));
    // Every table lives in the default tablespace, whose location PostgreSQL gives as ''
    // (psql's `\db`).
    ctx.register_udf(constant_udf(
        "pg_tablespace_location",
        Signature::variadic_any(Volatility::Stable),
        ScalarValue::Utf8(Some(String::new())),
    ));
    ctx.register_udf(pg_typeof_udf());
    // No function has an SQL-standard body (psql's `\df+` asks since PostgreSQL 14).
    ctx.register_udf(constant_udf(
        "pg_get_function_sqlbody",
        Signature::variadic_any(Volatility::Stable),
        ScalarValue::Utf8(None),
    ));
    ctx.register_udf(regtype_names_udf());
    ctx.register_udf(crate::number_format::udf());
    // No serial columns (SQLAlchemy's column reflection asks).
    ctx.register_udf(constant_udf(
        "pg_get_serial_sequence",
        exact(vec![DataType::Utf8, DataType::Utf8]),
        ScalarValue::Utf8(None),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_read_as_postgres_writes_them() {
        let bm25 = &FUNCTIONS[0];
        assert_eq!(bm25.arguments(), "query text, k bigint");
        assert_eq!(
            bm25.result(),
            "TABLE(chunk_id text, doc_id text, score real, rank bigint)"
        );
        assert_eq!(FUNCTIONS[3].result(), "real[]");
        assert_eq!(FUNCTIONS[3].result_oid(), 1021);
    }
}
