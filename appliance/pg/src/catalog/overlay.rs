//! Schema overlays over datafusion-pg-catalog's `pg_catalog` and DataFusion's
//! `information_schema`: the same tables, with a few rewritten as they are read.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::concat_batches;
use arrow::datatypes::{Int16Type, Int32Type};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{CatalogProviderList, SchemaProvider, Session, TableProvider};
use datafusion::datasource::{MemTable, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::scalar::ScalarValue;

use super::arrays;
use super::describe::{relation_names, Classes, Descriptions, Roles, Settings};
use super::functions::{MitraFunction, PgSignature, Returns, FUNCTIONS};
use super::relations::Relations;
use super::types::pg_type;

/// Rows computed at scan time from other tables.
#[async_trait]
pub(super) trait Rows: Send + Sync + Debug {
    fn schema(&self) -> SchemaRef;
    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch>;
}

#[derive(Debug)]
struct Computed<R>(R);

#[async_trait]
impl<R: Rows + 'static> TableProvider for Computed<R> {
    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let batch = self.0.rows(state).await?;
        MemTable::try_new(self.schema(), vec![vec![batch]])?
            .scan(state, projection, &[], limit)
            .await
    }
}

/// `base` with one row appended per item of `rows`: `value(item, column)` gives a column's
/// value (cast to the column's type), `None` leaves it NULL.
pub(super) fn append_rows<T>(
    base: &RecordBatch,
    rows: &[T],
    value: impl Fn(&T, &str) -> Option<ScalarValue>,
) -> Result<RecordBatch> {
    let schema = base.schema();
    let mut cols: Vec<ArrayRef> = Vec::new();
    for field in schema.fields() {
        let values = rows
            .iter()
            .map(|r| match value(r, field.name()) {
                Some(v) => v.cast_to(field.data_type()),
                None => ScalarValue::try_from(field.data_type()),
            })
            .collect::<Result<Vec<_>>>()?;
        cols.push(if values.is_empty() {
            arrow::array::new_empty_array(field.data_type())
        } else {
            ScalarValue::iter_to_array(values)?
        });
    }
    let ours = RecordBatch::try_new(schema.clone(), cols)?;
    Ok(concat_batches(&schema, [base, &ours])?)
}

/// All rows of a table, in its declared schema.
pub(super) async fn collect(
    table: &Arc<dyn TableProvider>,
    state: &dyn Session,
) -> Result<RecordBatch> {
    let plan = table.scan(state, None, &[], None).await?;
    let schema = plan.schema();
    let batches = datafusion::physical_plan::collect(plan, state.task_ctx()).await?;
    Ok(concat_batches(&schema, &batches)?)
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| DataFusionError::Internal(format!("catalog table lacks column {name}")))
}

pub(super) fn strings(batch: &RecordBatch, name: &str) -> Result<Vec<Option<String>>> {
    let a = arrow::compute::cast(column(batch, name)?, &DataType::Utf8)?;
    Ok(a.as_string::<i32>()
        .iter()
        .map(|v| v.map(str::to_string))
        .collect())
}

pub(super) fn ints(batch: &RecordBatch, name: &str) -> Result<Vec<Option<i32>>> {
    let a = arrow::compute::cast(column(batch, name)?, &DataType::Int32)?;
    Ok(a.as_primitive::<Int32Type>().iter().collect())
}

/// Replaces named columns of a batch, casting each new column to the old one's type.
fn replace(batch: &RecordBatch, new: Vec<(&str, ArrayRef)>) -> Result<RecordBatch> {
    let schema = batch.schema();
    let mut cols = batch.columns().to_vec();
    for (name, arr) in new {
        let (i, f) = schema
            .column_with_name(name)
            .ok_or_else(|| DataFusionError::Internal(format!("no column {name}")))?;
        cols[i] = arrow::compute::cast(&arr, f.data_type())?;
    }
    Ok(RecordBatch::try_new(schema, cols)?)
}

/// Arrow schemas of the catalog's tables, looked up once per scan.
struct Schemas<'a> {
    catalogs: &'a Arc<dyn CatalogProviderList>,
    catalog: &'a str,
    cache: HashMap<(String, String), Option<SchemaRef>>,
}

impl<'a> Schemas<'a> {
    fn new(catalogs: &'a Arc<dyn CatalogProviderList>, catalog: &'a str) -> Self {
        Self {
            catalogs,
            catalog,
            cache: HashMap::new(),
        }
    }

    async fn field(&mut self, schema: &str, table: &str, column: &str) -> Option<Field> {
        let key = (schema.to_string(), table.to_string());
        if !self.cache.contains_key(&key) {
            let found = match self
                .catalogs
                .catalog(self.catalog)
                .and_then(|c| c.schema(schema))
            {
                Some(s) if !matches!(schema, "pg_catalog" | "information_schema") => {
                    s.table(table).await.ok().flatten().map(|t| t.schema())
                }
                _ => None,
            };
            self.cache.insert(key.clone(), found);
        }
        self.cache
            .get(&key)
            .cloned()
            .flatten()
            .and_then(|s| s.field_with_name(column).ok().cloned())
    }
}

/// Which schema an [`Overlay`] stands in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `pg_catalog`: `pg_attribute` typed like the results, Mitra's rows in `pg_proc`.
    PgCatalog,
    /// `information_schema`: Postgres type names in `columns.data_type`, Mitra's table
    /// functions in `routines` (DataFusion's built-ins listed under `pg_catalog`).
    InformationSchema,
}

/// A catalog schema whose tables are the inner schema's, a few of them rewritten as read.
#[derive(Debug)]
pub struct Overlay {
    kind: Kind,
    inner: Arc<dyn SchemaProvider>,
    catalogs: Arc<dyn CatalogProviderList>,
    catalog: String,
    relations: Arc<Relations>,
}

impl Overlay {
    /// Wraps `inner`, the schema of `kind` in `catalog`.
    pub fn new(
        kind: Kind,
        inner: Arc<dyn SchemaProvider>,
        catalogs: Arc<dyn CatalogProviderList>,
        catalog: &str,
        relations: Arc<Relations>,
    ) -> Self {
        Self {
            kind,
            inner,
            catalogs,
            catalog: catalog.to_string(),
            relations,
        }
    }

    async fn inner_table(&self, name: &str) -> Result<Arc<dyn TableProvider>> {
        let table =
            self.inner.table(name).await?.ok_or_else(|| {
                DataFusionError::Internal(format!("catalog table {name} missing"))
            })?;
        Ok(match (self.kind, arrays::columns_of(name)) {
            (Kind::PgCatalog, Some(columns)) => {
                Arc::new(Computed(arrays::Arrays::new(table, columns)))
            }
            _ => table,
        })
    }
}

#[async_trait]
impl SchemaProvider for Overlay {
    fn table_names(&self) -> Vec<String> {
        self.inner.table_names()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let rewritten: Arc<dyn TableProvider> = match (self.kind, name) {
            (Kind::PgCatalog, "pg_attribute") => {
                let attributes = self.inner_table("pg_attribute").await?;
                Arc::new(Computed(Attributes {
                    schema: attributes.schema(),
                    attributes,
                    classes: self.inner_table("pg_class").await?,
                    namespaces: self.inner_table("pg_namespace").await?,
                    catalogs: self.catalogs.clone(),
                    catalog: self.catalog.clone(),
                }))
            }
            (Kind::PgCatalog, "pg_proc") => {
                let procs = self.inner_table("pg_proc").await?;
                Arc::new(Computed(Procs {
                    schema: all_nullable(&procs.schema()),
                    procs,
                    namespaces: self.inner_table("pg_namespace").await?,
                }))
            }
            (Kind::PgCatalog, "pg_class") => {
                let inner = self.inner_table(name).await?;
                let text_array = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
                let extra = ["relacl", "reloptions"]
                    .into_iter()
                    .filter(|c| inner.schema().column_with_name(c).is_none())
                    .map(|c| Field::new(c, text_array.clone(), true))
                    .collect::<Vec<_>>();
                Arc::new(Computed(Classes {
                    inner: WithNulls::new(inner, extra),
                    namespaces: self.inner_table("pg_namespace").await?,
                    relations: self.relations.clone(),
                }))
            }
            (Kind::PgCatalog, "pg_roles") => Arc::new(Computed(Roles {
                inner: self.inner_table(name).await?,
            })),
            (Kind::PgCatalog, "pg_settings") => Arc::new(Computed(Settings {
                inner: self.inner_table(name).await?,
            })),
            (Kind::PgCatalog, "pg_description") => Arc::new(Computed(Descriptions {
                inner: self.inner_table(name).await?,
                classes: self.inner_table("pg_class").await?,
                namespaces: self.inner_table("pg_namespace").await?,
                relations: self.relations.clone(),
            })),
            (Kind::InformationSchema, "columns") => Arc::new(Computed(Columns {
                inner: self.inner_table(name).await?,
                catalogs: self.catalogs.clone(),
                catalog: self.catalog.clone(),
            })),
            (Kind::InformationSchema, "routines") => Arc::new(Computed(Routines {
                inner: self.inner_table(name).await?,
                catalog: self.catalog.clone(),
            })),
            (Kind::PgCatalog, _) if arrays::columns_of(name).is_some() => {
                self.inner_table(name).await?
            }
            _ => return self.inner.table(name).await,
        };
        Ok(Some(rewritten))
    }

    fn table_exist(&self, name: &str) -> bool {
        self.inner.table_exist(name)
    }
}

fn all_nullable(schema: &Schema) -> SchemaRef {
    Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect::<Vec<_>>(),
    ))
}

#[derive(Debug)]
struct Attributes {
    schema: SchemaRef,
    attributes: Arc<dyn TableProvider>,
    classes: Arc<dyn TableProvider>,
    namespaces: Arc<dyn TableProvider>,
    catalogs: Arc<dyn CatalogProviderList>,
    catalog: String,
}

#[async_trait]
impl Rows for Attributes {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let attrs = collect(&self.attributes, state).await?;
        let classes = collect(&self.classes, state).await?;
        let rel: HashMap<i32, (String, String)> = relation_names(&classes, &self.namespaces, state)
            .await?
            .into_iter()
            .map(|(oid, schema, name)| (oid, (schema, name)))
            .collect();
        let relids = ints(&attrs, "attrelid")?;
        let names = strings(&attrs, "attname")?;
        let old_types = ints(&attrs, "atttypid")?;
        let old_len = arrow::compute::cast(column(&attrs, "attlen")?, &DataType::Int16)?;
        let old_len = old_len.as_primitive::<Int16Type>();
        let old_dims = ints(&attrs, "attndims")?;
        let mut schemas = Schemas::new(&self.catalogs, &self.catalog);
        let (mut types, mut lens, mut dims) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..attrs.num_rows() {
            let field = match (relids[i].and_then(|r| rel.get(&r)), &names[i]) {
                (Some((s, t)), Some(c)) => schemas.field(s, t, c).await,
                _ => None,
            };
            match field {
                Some(f) => {
                    let t = pg_type(f.data_type());
                    types.push(Some(t.oid));
                    lens.push(Some(t.len));
                    dims.push(Some(t.ndims));
                }
                None => {
                    types.push(old_types[i]);
                    lens.push(old_len.is_valid(i).then(|| old_len.value(i)));
                    dims.push(old_dims[i]);
                }
            }
        }
        replace(
            &attrs,
            vec![
                ("atttypid", Arc::new(arrow::array::Int32Array::from(types))),
                ("attlen", Arc::new(arrow::array::Int16Array::from(lens))),
                ("attndims", Arc::new(arrow::array::Int32Array::from(dims))),
            ],
        )
    }
}

/// A table with columns Postgres has and datafusion-pg-catalog lacks, all NULL (SQLAlchemy's
/// index reflection reads `pg_class.reloptions`).
#[derive(Debug)]
struct WithNulls {
    schema: SchemaRef,
    inner: Arc<dyn TableProvider>,
}

impl WithNulls {
    fn new(inner: Arc<dyn TableProvider>, extra: Vec<Field>) -> Self {
        let inner_schema = inner.schema();
        let fields = inner_schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .chain(extra)
            .collect::<Vec<_>>();
        Self {
            schema: Arc::new(Schema::new(fields)),
            inner,
        }
    }
}

#[async_trait]
impl Rows for WithNulls {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let rows = collect(&self.inner, state).await?;
        let mut cols = rows.columns().to_vec();
        for f in self.schema.fields().iter().skip(cols.len()) {
            cols.push(arrow::array::new_null_array(f.data_type(), rows.num_rows()));
        }
        Ok(RecordBatch::try_new(self.schema.clone(), cols)?)
    }
}

#[derive(Debug)]
struct Procs {
    schema: SchemaRef,
    procs: Arc<dyn TableProvider>,
    namespaces: Arc<dyn TableProvider>,
}

/// The value of one `pg_proc` column for a Mitra function, before casting to its type.
fn proc_value(f: &MitraFunction, column: &str, public: i32) -> Option<ProcValue> {
    let in_oids: Vec<i64> = f
        .args
        .iter()
        .map(|(_, t)| i64::from(pg_type(&t()).oid))
        .collect();
    let out: Vec<(String, i64)> = match f.returns {
        Returns::Table(s) => s()
            .fields()
            .iter()
            .map(|c| (c.name().clone(), i64::from(pg_type(c.data_type()).oid)))
            .collect(),
        Returns::Scalar(_) | Returns::Aggregate => vec![],
    };
    let set = matches!(f.returns, Returns::Table(_));
    let text = |s: &str| Some(ProcValue::Text(s.to_string()));
    match column {
        "oid" => Some(ProcValue::Int(f.oid.into())),
        "proname" | "prosrc" => text(f.name),
        "pronamespace" => Some(ProcValue::Int(public.into())),
        "proowner" => Some(ProcValue::Int(10)),
        "prolang" => Some(ProcValue::Int(12)),
        "procost" => Some(ProcValue::Int(1)),
        "prorows" => Some(ProcValue::Int(if set { 1000 } else { 0 })),
        "provariadic" | "prosupport" => Some(ProcValue::Int(0)),
        "pronargdefaults" => Some(ProcValue::Int(f.defaults as i64)),
        "prokind" => text(if matches!(f.returns, Returns::Aggregate) {
            "a"
        } else {
            "f"
        }),
        "prosecdef" | "proleakproof" => Some(ProcValue::Bool(false)),
        "proisstrict" => Some(ProcValue::Bool(false)),
        "proretset" => Some(ProcValue::Bool(set)),
        "provolatile" | "proparallel" => text("s"),
        "pronargs" => Some(ProcValue::Int(f.args.len() as i64)),
        "prorettype" => Some(ProcValue::Int(f.result_oid().into())),
        "proargtypes" => Some(ProcValue::Ints(in_oids)),
        "proallargtypes" if set => Some(ProcValue::Ints(
            in_oids
                .iter()
                .copied()
                .chain(out.iter().map(|o| o.1))
                .collect(),
        )),
        "proargmodes" if set => Some(ProcValue::Texts(
            std::iter::repeat_n("i".to_string(), f.args.len())
                .chain(std::iter::repeat_n("t".to_string(), out.len()))
                .collect(),
        )),
        "proargnames" => Some(ProcValue::Texts(
            f.args
                .iter()
                .map(|a| a.0.to_string())
                .chain(out.iter().map(|o| o.0.clone()))
                .collect(),
        )),
        _ => None,
    }
}

enum ProcValue {
    Int(i64),
    Bool(bool),
    Text(String),
    Ints(Vec<i64>),
    Texts(Vec<String>),
}

impl ProcValue {
    /// As a value of `dt` (NULL where the column's type cannot hold it).
    fn to_scalar(&self, dt: &DataType) -> ScalarValue {
        let null = ScalarValue::try_from(dt).unwrap_or(ScalarValue::Null);
        let list = |items: Vec<ScalarValue>| -> Option<ScalarValue> {
            let inner = match dt {
                DataType::List(f) => f.data_type().clone(),
                _ => return None,
            };
            let items: Option<Vec<ScalarValue>> =
                items.iter().map(|v| v.cast_to(&inner).ok()).collect();
            Some(ScalarValue::List(ScalarValue::new_list_nullable(
                &items?, &inner,
            )))
        };
        let joined = |v: &[String]| format!("{{{}}}", v.join(","));
        let v = match self {
            ProcValue::Int(i) => ScalarValue::Int64(Some(*i)).cast_to(dt).ok(),
            ProcValue::Bool(b) => ScalarValue::Boolean(Some(*b)).cast_to(dt).ok(),
            ProcValue::Text(s) => ScalarValue::Utf8(Some(s.clone())).cast_to(dt).ok(),
            ProcValue::Ints(v) => match dt {
                DataType::List(_) => list(v.iter().map(|i| ScalarValue::Int64(Some(*i))).collect()),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                    let s = v.iter().map(|i| i.to_string()).collect::<Vec<_>>();
                    ScalarValue::Utf8(Some(s.join(" "))).cast_to(dt).ok()
                }
                _ => None,
            },
            ProcValue::Texts(v) => match dt {
                DataType::List(_) => list(
                    v.iter()
                        .map(|s| ScalarValue::Utf8(Some(s.clone())))
                        .collect(),
                ),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                    ScalarValue::Utf8(Some(joined(v))).cast_to(dt).ok()
                }
                _ => None,
            },
        };
        v.unwrap_or(null)
    }
}

/// The oid of a namespace.
fn namespace_oid(namespaces: &RecordBatch, name: &str) -> Result<i32> {
    Ok(ints(namespaces, "oid")?
        .into_iter()
        .zip(strings(namespaces, "nspname")?)
        .find_map(|(o, n)| (n.as_deref() == Some(name)).then_some(o).flatten())
        .unwrap_or(2200))
}

#[async_trait]
impl Rows for Procs {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let procs = collect(&self.procs, state).await?;
        let namespaces = collect(&self.namespaces, state).await?;
        let public = namespace_oid(&namespaces, "public")?;
        let procs = RecordBatch::try_new(self.schema.clone(), procs.columns().to_vec())?;
        let mut cols: Vec<ArrayRef> = Vec::new();
        for field in self.schema.fields() {
            let values: Vec<ScalarValue> = FUNCTIONS
                .iter()
                .map(|f| match proc_value(f, field.name(), public) {
                    Some(v) => v.to_scalar(field.data_type()),
                    None => ScalarValue::try_from(field.data_type()).unwrap_or(ScalarValue::Null),
                })
                .collect();
            let arr = ScalarValue::iter_to_array(values)?;
            cols.push(arrow::compute::cast(&arr, field.data_type())?);
        }
        let ours = RecordBatch::try_new(self.schema.clone(), cols)?;
        Ok(concat_batches(&self.schema, &[procs, ours])?)
    }
}

#[derive(Debug)]
struct Columns {
    inner: Arc<dyn TableProvider>,
    catalogs: Arc<dyn CatalogProviderList>,
    catalog: String,
}

#[async_trait]
impl Rows for Columns {
    fn schema(&self) -> SchemaRef {
        let inner = self.inner.schema();
        let fields: Vec<Field> = inner
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .chain(
                COLUMNS_EXTRA
                    .iter()
                    .map(|n| Field::new(*n, DataType::Utf8, true)),
            )
            .collect();
        Arc::new(Schema::new(fields))
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let cols = collect(&self.inner, state).await?;
        let schemas_ = strings(&cols, "table_schema")?;
        let tables = strings(&cols, "table_name")?;
        let names = strings(&cols, "column_name")?;
        let old = strings(&cols, "data_type")?;
        let mut schemas = Schemas::new(&self.catalogs, &self.catalog);
        let mut out = Vec::with_capacity(cols.num_rows());
        let mut udt = Vec::with_capacity(cols.num_rows());
        for i in 0..cols.num_rows() {
            let f = match (&schemas_[i], &tables[i], &names[i]) {
                (Some(s), Some(t), Some(c)) => schemas.field(s, t, c).await,
                _ => None,
            };
            out.push(match &f {
                Some(f) => Some(pg_type(f.data_type()).sql_name.to_string()),
                None => old[i].clone(),
            });
            udt.push(f.map(|f| pg_type(f.data_type()).udt_name.to_string()));
        }
        let cols = replace(
            &cols,
            vec![("data_type", Arc::new(arrow::array::StringArray::from(out)))],
        )?;
        let n = cols.num_rows();
        let known = |v: &str| {
            udt.iter()
                .map(|u| u.as_ref().map(|_| v.to_string()))
                .collect::<arrow::array::StringArray>()
        };
        let constant = |v: &str| arrow::array::StringArray::from(vec![Some(v); n]);
        let mut columns = cols.columns().to_vec();
        for name in COLUMNS_EXTRA {
            let arr: ArrayRef = match *name {
                "udt_catalog" => Arc::new(known(&self.catalog)),
                "udt_schema" => Arc::new(known("pg_catalog")),
                "udt_name" => Arc::new(arrow::array::StringArray::from(udt.clone())),
                "is_identity" | "is_updatable" => Arc::new(constant("NO")),
                "is_generated" => Arc::new(constant("NEVER")),
                _ => arrow::array::new_null_array(&DataType::Utf8, n),
            };
            columns.push(arr);
        }
        Ok(RecordBatch::try_new(self.schema(), columns)?)
    }
}

/// `information_schema.columns` columns PostgreSQL has and DataFusion's lacks (the type's
/// own name, read by DBeaver, Metabase and migration tools; nothing is writable or generated).
const COLUMNS_EXTRA: &[&str] = &[
    "udt_catalog",
    "udt_schema",
    "udt_name",
    "is_identity",
    "is_generated",
    "is_updatable",
];

#[derive(Debug)]
struct Routines {
    inner: Arc<dyn TableProvider>,
    catalog: String,
}

#[async_trait]
impl Rows for Routines {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    async fn rows(&self, state: &dyn Session) -> Result<RecordBatch> {
        let rows = collect(&self.inner, state).await?;
        let names = strings(&rows, "routine_name")?;
        let ours = |n: &Option<String>| {
            n.as_deref()
                .and_then(|n| FUNCTIONS.iter().find(|f| f.name == n))
        };
        let schema_of = |n: &Option<String>| {
            Some(
                if ours(n).is_some() {
                    "public"
                } else {
                    "pg_catalog"
                }
                .to_string(),
            )
        };
        let schemas: Vec<Option<String>> = names.iter().map(schema_of).collect();
        let old_types = strings(&rows, "data_type")?;
        let types: Vec<Option<String>> = names
            .iter()
            .zip(old_types)
            .map(|(n, old)| match ours(n) {
                Some(f) => Some(f.result()),
                None => old,
            })
            .collect();
        let schema_col: ArrayRef = Arc::new(arrow::array::StringArray::from(schemas));
        let rows = replace(
            &rows,
            vec![
                ("routine_schema", schema_col.clone()),
                ("specific_schema", schema_col),
                (
                    "data_type",
                    Arc::new(arrow::array::StringArray::from(types)),
                ),
            ],
        )?;
        // Table functions are not in DataFusion's list: add them.
        let listed: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
        let missing: Vec<&MitraFunction> = FUNCTIONS
            .iter()
            .filter(|f| !listed.contains(&f.name))
            .collect();
        let schema = rows.schema();
        let mut cols: Vec<ArrayRef> = Vec::new();
        for field in schema.fields() {
            let values: Vec<ScalarValue> = missing
                .iter()
                .map(|f| {
                    let s = match field.name().as_str() {
                        "specific_catalog" | "routine_catalog" => Some(self.catalog.clone()),
                        "specific_schema" | "routine_schema" => Some("public".into()),
                        "specific_name" | "routine_name" => Some(f.name.to_string()),
                        "routine_type" => Some("FUNCTION".into()),
                        "data_type" => Some(f.result()),
                        "function_type" => Some("TABLE".into()),
                        "description" => Some(f.description.to_string()),
                        "syntax_example" => Some(format!("{}({})", f.name, f.arguments())),
                        _ => None,
                    };
                    match (s, field.data_type()) {
                        (Some(s), _) => ScalarValue::Utf8(Some(s)),
                        (None, DataType::Boolean) => ScalarValue::Boolean(Some(false)),
                        (None, dt) => ScalarValue::try_from(dt).unwrap_or(ScalarValue::Null),
                    }
                })
                .collect();
            let arr = if values.is_empty() {
                arrow::array::new_empty_array(field.data_type())
            } else {
                ScalarValue::iter_to_array(values)?
            };
            cols.push(arrow::compute::cast(&arr, field.data_type())?);
        }
        let extra = RecordBatch::try_new(schema.clone(), cols)?;
        Ok(concat_batches(&schema, &[rows, extra])?)
    }
}
