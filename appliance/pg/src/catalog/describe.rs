//! What psql's `\d+`, `\dt+`, `\df+` and `\sf`, pgcli and SQLAlchemy ask of relations and
//! functions: descriptions (`pg_description`, `obj_description`, `col_description`), sizes
//! (`pg_relation_size` and its kin, `pg_size_pretty`) and `pg_get_functiondef`.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarUDF, Signature, SimpleScalarUDF, TypeSignature, Volatility,
};
use datafusion::prelude::SessionContext;

use super::functions::{rows_of, shaped, MitraFunction, PgSignature, FUNCTIONS};
use super::overlay::{append_rows, collect, ints, strings, Rows};
use super::relations::{size_pretty, Relations, Sizes};

/// `pg_class.oid` as `classoid` of a relation's description.
const PG_CLASS: i32 = 1259;
/// `pg_proc.oid` as `classoid` of a function's description.
const PG_PROC: i32 = 1255;

/// `pg_class`, read through: every read records the oid of each relation in `relations`.
#[derive(Debug)]
pub struct Classes<R> {
    /// The rows as read (with the columns the overlay adds).
    pub inner: R,
    /// `pg_namespace`, to name each relation's schema.
    pub namespaces: Arc<dyn TableProvider>,
    /// Where the oids are recorded.
    pub relations: Arc<Relations>,
}

/// The `schema.name` of every relation of `classes`, by oid.
pub(super) async fn relation_names(
    classes: &RecordBatch,
    namespaces: &Arc<dyn TableProvider>,
    state: &dyn Session,
) -> Result<Vec<(i32, String, String)>> {
    let namespaces = collect(namespaces, state).await?;
    let ns: HashMap<i32, String> = ints(&namespaces, "oid")?
        .into_iter()
        .zip(strings(&namespaces, "nspname")?)
        .filter_map(|(o, n)| Some((o?, n?)))
        .collect();
    Ok(ints(classes, "oid")?
        .into_iter()
        .zip(strings(classes, "relname")?)
        .zip(ints(classes, "relnamespace")?)
        .filter_map(|((o, r), n)| Some((o?, ns.get(&n?)?.clone(), r?)))
        .collect())
}

#[async_trait]
impl<R: Rows> Rows for Classes<R> {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let rows = self.inner.rows(state).await?;
        for (oid, schema, name) in relation_names(&rows, &self.namespaces, state).await? {
            self.relations.record(oid, &schema, &name);
        }
        Ok(rows)
    }
}

/// `pg_description`: the catalog's own rows, then Mitra's tables and columns (from
/// `schemas/`) and functions.
#[derive(Debug)]
pub struct Descriptions {
    /// The catalog's `pg_description`.
    pub inner: Arc<dyn TableProvider>,
    /// `pg_class`, for the tables' oids.
    pub classes: Arc<dyn TableProvider>,
    /// `pg_namespace`, for the tables' schemas.
    pub namespaces: Arc<dyn TableProvider>,
    /// The relations' oids and tables.
    pub relations: Arc<Relations>,
}

/// The description of relation `oid` (`column` 0) or of its column number `column`.
fn relation_description(relations: &Relations, oid: i64, column: i32) -> Option<String> {
    let (schema, name) = relations.name_of(oid)?;
    if schema != "public" {
        return None;
    }
    let def = mitra_store::schema::by_name(&name)?;
    if column == 0 {
        return Some(def.description.clone());
    }
    let table = relations.table(&schema, &name)?;
    let index = usize::try_from(column).ok()?.checked_sub(1)?;
    let field = table.schema().fields().get(index)?.clone();
    def.describe(field.name()).map(str::to_string)
}

#[async_trait]
impl Rows for Descriptions {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let base = collect(&self.inner, state).await?;
        let classes = collect(&self.classes, state).await?;
        let (mut objoid, mut classoid, mut objsubid, mut text) = (vec![], vec![], vec![], vec![]);
        let mut push = |o: i32, c: i32, s: i32, d: String| {
            objoid.push(o);
            classoid.push(c);
            objsubid.push(s);
            text.push(d);
        };
        for (oid, schema, name) in relation_names(&classes, &self.namespaces, state).await? {
            self.relations.record(oid, &schema, &name);
            let Some(table) = (schema == "public")
                .then(|| self.relations.table(&schema, &name))
                .flatten()
            else {
                continue;
            };
            let Some(def) = mitra_store::schema::by_name(&name) else {
                continue;
            };
            push(oid, PG_CLASS, 0, def.description.clone());
            for (i, field) in table.schema().fields().iter().enumerate() {
                if let Some(d) = def.describe(field.name()) {
                    push(oid, PG_CLASS, i as i32 + 1, d.to_string());
                }
            }
        }
        for f in FUNCTIONS {
            push(f.oid, PG_PROC, 0, f.description.to_string());
        }
        let ours = RecordBatch::try_new(
            base.schema(),
            vec![
                Arc::new(Int32Array::from(objoid)),
                Arc::new(Int32Array::from(classoid)),
                Arc::new(Int32Array::from(objsubid)),
                Arc::new(StringArray::from(text)),
            ],
        )?;
        Ok(arrow::compute::concat_batches(
            &base.schema(),
            [&base, &ours],
        )?)
    }
}

/// `pg_settings`: the catalog's rows, then every setting `current_setting` reports and the
/// session's `statement_timeout` (SET and SHOW), as Harlequin and pgcli complete `SET` from it.
#[derive(Debug)]
pub struct Settings {
    /// The catalog's `pg_settings`.
    pub inner: Arc<dyn TableProvider>,
}

#[async_trait]
impl Rows for Settings {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        use datafusion::scalar::ScalarValue;
        let base = collect(&self.inner, state).await?;
        let listed: std::collections::HashSet<String> =
            strings(&base, "name")?.into_iter().flatten().collect();
        let mut rows: Vec<(String, String, &str, Option<&str>)> = super::functions::SETTING_NAMES
            .iter()
            .filter(|n| !listed.contains(**n))
            .filter_map(|n| {
                let v = super::functions::setting(n)?;
                let kind = if matches!(v.as_str(), "on" | "off") {
                    "bool"
                } else {
                    "string"
                };
                Some((n.to_string(), v, kind, None))
            })
            .collect();
        if !listed.contains("statement_timeout") {
            rows.push((
                "statement_timeout".into(),
                "0".into(),
                "integer",
                Some("ms"),
            ));
        }
        append_rows(&base, &rows, |(name, value, kind, unit), column| {
            let text = |t: &str| Some(ScalarValue::Utf8(Some(t.to_string())));
            match column {
                "name" => text(name),
                "setting" | "reset_val" | "boot_val" => text(value),
                "unit" => unit.and_then(text),
                "vartype" => text(kind),
                "context" if name == "statement_timeout" => text("user"),
                "context" => text("internal"),
                "source" => text("default"),
                "category" => text("Mitra"),
                "pending_restart" => Some(ScalarValue::Boolean(Some(false))),
                _ => None,
            }
        })
    }
}

/// The login of a connection (its startup user), kept in its session for `pg_roles`.
#[derive(Debug, Default)]
pub struct SessionLogin(std::sync::Mutex<Option<String>>);

impl SessionLogin {
    /// Records the connection's login.
    pub fn set(&self, user: &str) {
        if let Ok(mut l) = self.0.lock() {
            *l = Some(user.to_string());
        }
    }

    fn get(&self) -> Option<String> {
        self.0.lock().ok()?.clone()
    }
}

/// The oid of the owner of every object (`postgres`, as in every PostgreSQL cluster).
const OWNER_OID: i32 = 10;
/// The oid `pg_roles` gives the connection's own login.
const LOGIN_OID: i32 = 2_100_001_000;

/// `pg_roles`: the catalog's rows, then the owner of every object (`postgres`) and the
/// connection's login (psql's and pgcli's `\du`). Mitra's roles are its logins and their
/// groups (the users file); none may create, replicate or bypass row rules.
#[derive(Debug)]
pub struct Roles {
    /// The catalog's `pg_roles`.
    pub inner: Arc<dyn TableProvider>,
}

#[async_trait]
impl Rows for Roles {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        use datafusion::scalar::ScalarValue;
        let base = collect(&self.inner, state).await?;
        let listed: std::collections::HashSet<String> =
            strings(&base, "rolname")?.into_iter().flatten().collect();
        let login = state
            .config()
            .get_extension::<SessionLogin>()
            .and_then(|l| l.get());
        let mut roles = vec![(OWNER_OID, "postgres".to_string(), false)];
        if let Some(l) = login.filter(|l| l != "postgres") {
            roles.push((LOGIN_OID, l, true));
        }
        roles.retain(|(_, n, _)| !listed.contains(n));
        append_rows(&base, &roles, |(oid, name, login), column| {
            Some(match column {
                "oid" => ScalarValue::Int32(Some(*oid)),
                "rolname" => ScalarValue::Utf8(Some(name.clone())),
                "rolinherit" => ScalarValue::Boolean(Some(true)),
                "rolcanlogin" => ScalarValue::Boolean(Some(*login)),
                "rolsuper" | "rolcreaterole" | "rolcreatedb" | "rolreplication"
                | "rolbypassrls" => ScalarValue::Boolean(Some(false)),
                "rolconnlimit" => ScalarValue::Int32(Some(-1)),
                "rolpassword" => ScalarValue::Utf8(Some("********".into())),
                _ => return None,
            })
        })
    }
}

/// An oid or a relation's name, as the size functions take it (`regclass` or text).
fn relation_arg(arr: &ArrayRef, i: usize, relations: &Relations) -> Option<(String, String)> {
    if arr.is_null(i) {
        return None;
    }
    match arr.data_type() {
        DataType::Utf8 => Some(Relations::parse_name(arr.as_string::<i32>().value(i))),
        DataType::Utf8View => Some(Relations::parse_name(arr.as_string_view().value(i))),
        DataType::LargeUtf8 => Some(Relations::parse_name(arr.as_string::<i64>().value(i))),
        _ => {
            let oids = arrow::compute::cast(arr, &DataType::Int64).ok()?;
            let oids = oids.as_primitive::<arrow::datatypes::Int64Type>();
            relations.name_of(oids.value(i))
        }
    }
}

/// Every argument as an array of the call's row count.
fn arrays(args: &[ColumnarValue]) -> Result<Vec<ArrayRef>> {
    let n = rows_of(args).unwrap_or(1);
    args.iter().map(|a| a.to_array(n)).collect()
}

/// A function of a relation (an oid or a name), with an optional fork name when `fork`.
fn relation_signature(fork: bool) -> Signature {
    let mut sigs = Vec::new();
    for first in [DataType::Int32, DataType::Int64, DataType::Utf8] {
        sigs.push(TypeSignature::Exact(vec![first.clone()]));
        if fork {
            sigs.push(TypeSignature::Exact(vec![first, DataType::Utf8]));
        }
    }
    Signature::one_of(sigs, Volatility::Volatile)
}

/// A size function: the bytes `pick` takes from a relation's [`Sizes`]; NULL for an oid that
/// names no relation, as PostgreSQL answers.
fn size_udf(
    name: &str,
    fork: bool,
    pick: fn(Sizes, &[ArrayRef], usize) -> u64,
    rel: &Arc<Relations>,
) -> ScalarUDF {
    let rel = rel.clone();
    ScalarUDF::from(SimpleScalarUDF::new_with_signature(
        name,
        relation_signature(fork),
        DataType::Int64,
        Arc::new(move |args: &[ColumnarValue]| {
            let arrays = arrays(args)?;
            let n = arrays[0].len();
            let out: Int64Array = (0..n)
                .map(|i| {
                    let (schema, name) = relation_arg(&arrays[0], i, &rel)?;
                    let sizes = rel.sizes(&schema, &name)?;
                    i64::try_from(pick(sizes, &arrays, i)).ok()
                })
                .collect();
            shaped(args, Arc::new(out))
        }),
    ))
}

/// `pg_relation_size(rel, fork)`: only the main fork has bytes.
fn main_fork(sizes: Sizes, arrays: &[ArrayRef], i: usize) -> u64 {
    let fork = arrays
        .get(1)
        .and_then(|a| a.as_string_opt::<i32>())
        .map(|a| a.value(i));
    match fork {
        None | Some("main") => sizes.data,
        Some(_) => 0,
    }
}

/// `pg_size_pretty(bigint)` and `pg_size_pretty(numeric)`.
fn size_pretty_udf() -> ScalarUDF {
    ScalarUDF::from(SimpleScalarUDF::new_with_signature(
        "pg_size_pretty",
        Signature::one_of(
            vec![
                TypeSignature::Exact(vec![DataType::Int64]),
                TypeSignature::Exact(vec![DataType::Float64]),
            ],
            Volatility::Immutable,
        ),
        DataType::Utf8,
        Arc::new(|args: &[ColumnarValue]| {
            let arrays = arrays(args)?;
            let v = arrow::compute::cast(&arrays[0], &DataType::Float64)?;
            let v = v.as_primitive::<arrow::datatypes::Float64Type>();
            let out: StringArray = v
                .iter()
                .map(|x| x.map(|x| size_pretty(x.round() as i64)))
                .collect();
            shaped(args, Arc::new(out))
        }),
    ))
}

/// `obj_description(oid, catalog)` and `obj_description(oid)`: Mitra's tables and
/// functions; NULL for anything else.
fn obj_description_udf(rel: &Arc<Relations>) -> ScalarUDF {
    let rel = rel.clone();
    let sig = |extra: Vec<DataType>| {
        [DataType::Int32, DataType::Int64]
            .into_iter()
            .map(|t| {
                let mut v = vec![t];
                v.extend(extra.clone());
                TypeSignature::Exact(v)
            })
            .collect::<Vec<_>>()
    };
    let mut sigs = sig(vec![]);
    sigs.extend(sig(vec![DataType::Utf8]));
    ScalarUDF::from(SimpleScalarUDF::new_with_signature(
        "obj_description",
        Signature::one_of(sigs, Volatility::Stable),
        DataType::Utf8,
        Arc::new(move |args: &[ColumnarValue]| {
            let arrays = arrays(args)?;
            let oids = arrow::compute::cast(&arrays[0], &DataType::Int64)?;
            let oids = oids.as_primitive::<arrow::datatypes::Int64Type>();
            let catalogs = arrays.get(1).and_then(|a| a.as_string_opt::<i32>());
            let out: StringArray = (0..oids.len())
                .map(|i| {
                    if oids.is_null(i) {
                        return None;
                    }
                    let oid = oids.value(i);
                    let catalog = catalogs.map(|c| c.value(i));
                    if matches!(catalog, None | Some("pg_proc")) {
                        if let Some(f) = FUNCTIONS.iter().find(|f| i64::from(f.oid) == oid) {
                            return Some(f.description.to_string());
                        }
                    }
                    match catalog {
                        None | Some("pg_class") => relation_description(&rel, oid, 0),
                        _ => None,
                    }
                })
                .collect();
            shaped(args, Arc::new(out))
        }),
    ))
}

/// `col_description(table oid, column number)`.
fn col_description_udf(rel: &Arc<Relations>) -> ScalarUDF {
    let rel = rel.clone();
    ScalarUDF::from(SimpleScalarUDF::new_with_signature(
        "col_description",
        Signature::one_of(
            vec![
                TypeSignature::Exact(vec![DataType::Int32, DataType::Int32]),
                TypeSignature::Exact(vec![DataType::Int64, DataType::Int64]),
            ],
            Volatility::Stable,
        ),
        DataType::Utf8,
        Arc::new(move |args: &[ColumnarValue]| {
            let arrays = arrays(args)?;
            let oids = arrow::compute::cast(&arrays[0], &DataType::Int64)?;
            let oids = oids.as_primitive::<arrow::datatypes::Int64Type>();
            let cols = arrow::compute::cast(&arrays[1], &DataType::Int32)?;
            let cols = cols.as_primitive::<arrow::datatypes::Int32Type>();
            let out: StringArray = (0..oids.len())
                .map(|i| {
                    if oids.is_null(i) || cols.is_null(i) || cols.value(i) <= 0 {
                        return None;
                    }
                    relation_description(&rel, oids.value(i), cols.value(i))
                })
                .collect();
            shaped(args, Arc::new(out))
        }),
    ))
}

/// `pg_get_functiondef(oid)`: a readable definition of a Mitra function, its description
/// as the function's comment; NULL for other oids.
fn functiondef(f: &MitraFunction) -> String {
    let identity = format!("public.{}({})", f.name, f.arguments());
    format!(
        "CREATE OR REPLACE FUNCTION {identity}\n RETURNS {}\n LANGUAGE internal\n STABLE\nAS $function${}$function$;\n\
         COMMENT ON FUNCTION {identity} IS '{}';\n",
        f.result(),
        f.name,
        f.description.replace('\'', "''"),
    )
}

fn functiondef_udf() -> ScalarUDF {
    ScalarUDF::from(SimpleScalarUDF::new_with_signature(
        "pg_get_functiondef",
        Signature::one_of(
            vec![
                TypeSignature::Exact(vec![DataType::Int32]),
                TypeSignature::Exact(vec![DataType::Int64]),
            ],
            Volatility::Stable,
        ),
        DataType::Utf8,
        Arc::new(|args: &[ColumnarValue]| {
            let arrays = arrays(args)?;
            let oids = arrow::compute::cast(&arrays[0], &DataType::Int64)?;
            let oids = oids.as_primitive::<arrow::datatypes::Int64Type>();
            let out: StringArray = oids
                .iter()
                .map(|o| {
                    let o = o?;
                    FUNCTIONS
                        .iter()
                        .find(|f| i64::from(f.oid) == o)
                        .map(functiondef)
                })
                .collect();
            shaped(args, Arc::new(out))
        }),
    ))
}

/// Registers the description and size functions over `relations`.
pub fn register(ctx: &SessionContext, relations: &Arc<Relations>) {
    ctx.register_udf(size_udf("pg_relation_size", true, main_fork, relations));
    ctx.register_udf(size_udf(
        "pg_table_size",
        false,
        |s, _, _| s.table,
        relations,
    ));
    ctx.register_udf(size_udf(
        "pg_indexes_size",
        false,
        |s, _, _| s.indexes,
        relations,
    ));
    let total = |s: Sizes, _: &[ArrayRef], _| s.table + s.indexes;
    ctx.register_udf(size_udf("pg_total_relation_size", false, total, relations));
    ctx.register_udf(size_pretty_udf());
    ctx.register_udf(obj_description_udf(relations));
    ctx.register_udf(col_description_udf(relations));
    ctx.register_udf(functiondef_udf());
}
