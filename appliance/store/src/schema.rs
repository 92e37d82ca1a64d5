//! Table schemas, parsed from the JSON files under `schemas/` (the single source of truth).

use std::sync::{Arc, LazyLock};

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use serde::Deserialize;

/// A table definition as written in `schemas/<table>.json`.
#[derive(Debug, Deserialize)]
pub struct TableDef {
    /// Table name.
    pub table: String,
    /// What the table holds.
    pub description: String,
    /// Columns in order.
    pub fields: Vec<FieldDef>,
    /// Columns that later features add through schema evolution; present or absent is fine.
    #[serde(default)]
    pub reserved: Vec<FieldDef>,
}

/// One column definition.
#[derive(Debug, Deserialize)]
pub struct FieldDef {
    /// Column name.
    pub name: String,
    /// Logical type name: utf8, int32, int64, float32, boolean, timestamp_us_utc, list_utf8.
    #[serde(rename = "type")]
    pub ty: String,
    /// Whether NULL is allowed.
    #[serde(default)]
    pub nullable: bool,
    /// What the column means.
    pub description: String,
    /// Added after the table's first release: stores created before get it (all NULL) through
    /// Lance schema evolution when a writer opens them; readers accept its absence.
    #[serde(default)]
    pub evolved: bool,
}

/// The `documents` table definition.
pub static DOCUMENTS: LazyLock<TableDef> =
    LazyLock::new(|| parse(include_str!("../../../schemas/documents.json")));
/// The `chunks` table definition.
pub static CHUNKS: LazyLock<TableDef> =
    LazyLock::new(|| parse(include_str!("../../../schemas/chunks.json")));
/// The `analyses` table definition.
pub static ANALYSES: LazyLock<TableDef> =
    LazyLock::new(|| parse(include_str!("../../../schemas/analyses.json")));
/// The `ingest_runs` table definition.
pub static INGEST_RUNS: LazyLock<TableDef> =
    LazyLock::new(|| parse(include_str!("../../../schemas/ingest_runs.json")));

/// `answers`: the opt-in audit log of answers.
pub static ANSWERS: LazyLock<TableDef> =
    LazyLock::new(|| parse(include_str!("../../../schemas/answers.json")));

/// The definition of the table called `name`, if it is one of Mitra's.
pub fn by_name(name: &str) -> Option<&'static TableDef> {
    [&DOCUMENTS, &CHUNKS, &ANALYSES, &INGEST_RUNS, &ANSWERS]
        .into_iter()
        .map(|t| &**t)
        .find(|t| t.table == name)
}

impl TableDef {
    /// What `schemas/` says of the column `name` (a field or a reserved one).
    pub fn describe(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .chain(&self.reserved)
            .find(|f| f.name == name)
            .map(|f| f.description.as_str())
    }
}

fn parse(text: &str) -> TableDef {
    serde_json::from_str(text).expect("schemas/*.json is valid (checked by unit test)")
}

fn data_type(ty: &str) -> DataType {
    match ty {
        "utf8" => DataType::Utf8,
        "int32" => DataType::Int32,
        "int64" => DataType::Int64,
        "float32" => DataType::Float32,
        "boolean" => DataType::Boolean,
        "timestamp_us_utc" => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        "list_utf8" => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
        other => panic!("schemas/*.json uses unknown type {other}"),
    }
}

impl TableDef {
    /// The Arrow schema of the table.
    pub fn arrow_schema(&self) -> SchemaRef {
        let fields: Vec<Field> = self
            .fields
            .iter()
            .map(|f| Field::new(&f.name, data_type(&f.ty), f.nullable))
            .collect();
        Arc::new(Schema::new(fields))
    }

    /// Checks that a stored table has every defined column with the defined type.
    /// Reserved columns and extra columns added by schema evolution are allowed.
    pub fn check(&self, actual: &Schema) -> Result<(), String> {
        for f in &self.fields {
            match actual.field_with_name(&f.name) {
                Ok(a) if a.data_type() == &data_type(&f.ty) => {}
                Ok(a) => {
                    return Err(format!(
                        "table {}: column {} has type {} but schemas/{}.json says {}",
                        self.table,
                        f.name,
                        a.data_type(),
                        self.table,
                        f.ty
                    ))
                }
                Err(_) if f.evolved => {}
                Err(_) => {
                    return Err(format!(
                        "table {}: column {} is missing (schemas/{}.json)",
                        self.table, f.name, self.table
                    ))
                }
            }
        }
        Ok(())
    }

    /// Evolved columns a stored table lacks (to be added all NULL by a writer).
    pub fn missing_evolved(&self, actual: &Schema) -> Vec<Field> {
        self.fields
            .iter()
            .filter(|f| f.evolved && actual.field_with_name(&f.name).is_err())
            .map(|f| Field::new(&f.name, data_type(&f.ty), true))
            .collect()
    }

    /// Index of a column by name; panics if the schema file lacks it (caught by tests).
    pub fn col(&self, name: &str) -> usize {
        self.fields
            .iter()
            .position(|f| f.name == name)
            .unwrap_or_else(|| panic!("schemas/{}.json has no column {name}", self.table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_parse_and_have_the_columns_the_code_uses() {
        for c in [
            "doc_id",
            "version",
            "title",
            "source_uri",
            "content_sha256",
            "ingested_at",
            "analysis_id",
            "metadata",
        ] {
            DOCUMENTS.col(c);
        }
        for c in [
            "chunk_id",
            "doc_id",
            "version",
            "ordinal",
            "heading",
            "text",
            "page",
            "kind",
            "analysis_id",
        ] {
            CHUNKS.col(c);
        }
        assert_eq!(CHUNKS.reserved[0].name, "embedding");
        for c in ["source", "deleted_at"] {
            assert!(DOCUMENTS.fields[DOCUMENTS.col(c)].evolved);
        }
        for c in [
            "run_id",
            "source",
            "crawler",
            "extractors",
            "started_at",
            "finished_at",
            "status",
            "listed",
            "added",
            "updated",
            "unchanged",
            "tombstoned",
            "failed",
            "chunks",
            "errors",
            "documents_version",
            "chunks_version",
        ] {
            INGEST_RUNS.col(c);
        }
        INGEST_RUNS.check(&INGEST_RUNS.arrow_schema()).unwrap();
        for c in [
            "analysis_id",
            "title",
            "abstract",
            "tags",
            "status",
            "groups",
            "updated_at",
        ] {
            ANALYSES.col(c);
        }
        ANALYSES.check(&ANALYSES.arrow_schema()).unwrap();
        ANSWERS.check(&ANSWERS.arrow_schema()).unwrap();
        for c in [
            "question",
            "answer",
            "citations",
            "evidence",
            "model",
            "chunks_version",
        ] {
            ANSWERS.col(c);
        }
        assert_eq!(ANALYSES.reserved[0].name, "embedding");
        let s = DOCUMENTS.arrow_schema();
        DOCUMENTS.check(&s).unwrap();
        assert!(CHUNKS.check(&s).is_err());
    }
}
