//! Relations as the catalog functions see them: which oid names which table (as `pg_class`
//! listed it), what `schemas/` says of it, and the bytes its Lance dataset takes on disk.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use datafusion::catalog::{CatalogProviderList, TableProvider};
use mitra_sql::LiveLanceTable;

/// The bytes of one relation, as PostgreSQL's size functions split them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sizes {
    /// `pg_relation_size`: the data files of every version kept (time travel keeps them).
    pub data: u64,
    /// `pg_table_size`: the dataset without its indexes (data, manifests, transactions,
    /// deletion files).
    pub table: u64,
    /// `pg_indexes_size`: the dataset's vector indexes and, for `chunks`, the BM25 index.
    pub indexes: u64,
}

/// The relations of one server's catalog.
#[derive(Debug)]
pub struct Relations {
    by_oid: RwLock<HashMap<i32, (String, String)>>,
    catalogs: Arc<dyn CatalogProviderList>,
    catalog: String,
}

impl Relations {
    /// The relations of `catalog`; oids are learnt as `pg_class` is read.
    pub fn new(catalogs: Arc<dyn CatalogProviderList>, catalog: &str) -> Self {
        Self {
            by_oid: RwLock::new(HashMap::new()),
            catalogs,
            catalog: catalog.to_string(),
        }
    }

    /// Records that `oid` is `schema.name` (each read of `pg_class` calls this).
    pub fn record(&self, oid: i32, schema: &str, name: &str) {
        if let Ok(mut m) = self.by_oid.write() {
            m.insert(oid, (schema.to_string(), name.to_string()));
        }
    }

    /// `schema.name` of the relation `oid`, if `pg_class` listed it.
    pub fn name_of(&self, oid: i64) -> Option<(String, String)> {
        let oid = i32::try_from(oid).ok()?;
        self.by_oid.read().ok()?.get(&oid).cloned()
    }

    /// A relation named as a `regclass` literal names it: `name` (in `public`) or
    /// `schema.name`, unquoted parts folded to lower case.
    pub fn parse_name(text: &str) -> (String, String) {
        let unquote = |p: &str| match p.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
            Some(q) => q.replace("\"\"", "\""),
            None => p.to_lowercase(),
        };
        match text.split_once('.') {
            Some((s, n)) if !text.starts_with('"') || s.ends_with('"') => (unquote(s), unquote(n)),
            _ => ("public".to_string(), unquote(text)),
        }
    }

    /// The table provider of `schema.name` in this catalog.
    pub fn table(&self, schema: &str, name: &str) -> Option<Arc<dyn TableProvider>> {
        let schema = self.catalogs.catalog(&self.catalog)?.schema(schema)?;
        if !schema.table_exist(name) {
            return None;
        }
        // Mitra's tables live in an in-memory schema whose lookups complete at once; the
        // catalog schemas answer from memory too. Nothing here waits on I/O.
        futures::executor::block_on(schema.table(name))
            .ok()
            .flatten()
    }

    /// The sizes of `schema.name`: zero for relations that are not Lance datasets (catalog
    /// tables and views), `None` for a relation that does not exist.
    pub fn sizes(&self, schema: &str, name: &str) -> Option<Sizes> {
        let table = self.table(schema, name)?;
        let Some(live) = table.downcast_ref::<LiveLanceTable>() else {
            return Some(Sizes::default());
        };
        let dir = live.path();
        let all = bytes_under(dir);
        let vector_indexes = bytes_under(&dir.join("_indices"));
        let bm25 = if name == "chunks" {
            dir.parent()
                .map(|d| bytes_under(&d.join(mitra_store::BM25_DIR)))
                .unwrap_or(0)
        } else {
            0
        };
        Some(Sizes {
            data: bytes_under(&dir.join("data")),
            table: all.saturating_sub(vector_indexes),
            indexes: vector_indexes + bm25,
        })
    }
}

/// The bytes of every file under `dir` (0 when it does not exist); links are not followed.
fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => bytes_under(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// `pg_size_pretty(bigint)` as PostgreSQL writes it: bytes below 10 kB, then kB, MB, GB, TB
/// and PB, each below 20 480 of its unit, rounded half away from zero.
pub fn size_pretty(size: i64) -> String {
    // (unit, limit, half-rounded, bits)
    const UNITS: [(&str, i64, bool, u32); 6] = [
        ("bytes", 10 * 1024, false, 0),
        ("kB", 20 * 1024 - 1, true, 10),
        ("MB", 20 * 1024 - 1, true, 20),
        ("GB", 20 * 1024 - 1, true, 30),
        ("TB", 20 * 1024 - 1, true, 40),
        ("PB", 20 * 1024 - 1, true, 50),
    ];
    let half_rounded = |x: i64| (x + if x < 0 { -1 } else { 1 }) / 2;
    let mut size = size;
    for (i, &(name, limit, round, bits)) in UNITS.iter().enumerate() {
        let last = i + 1 == UNITS.len();
        if last || size.abs() < limit {
            if round {
                size = half_rounded(size);
            }
            return format!("{size} {name}");
        }
        let (_, _, next_round, next_bits) = UNITS[i + 1];
        let shift = next_bits - bits - u32::from(next_round) + u32::from(round);
        size /= 1i64 << shift;
    }
    unreachable!("the last unit always answers")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_postgres_writes_them() {
        // Values from PostgreSQL 15's pg_size_pretty.
        for (n, s) in [
            (0, "0 bytes"),
            (10239, "10239 bytes"),
            (10240, "10 kB"),
            (12345, "12 kB"),
            (-12345, "-12 kB"),
            (10_485_247, "10239 kB"),
            (10_485_248, "10 MB"),
            (1_000_000_000, "954 MB"),
            (1 << 40, "1024 GB"),
            (i64::MAX, "8192 PB"),
        ] {
            assert_eq!(size_pretty(n), s, "{n}");
        }
    }

    #[test]
    fn regclass_names_fold_as_postgres_folds_them() {
        let p = |s: &str| Relations::parse_name(s);
        assert_eq!(p("Chunks"), ("public".into(), "chunks".into()));
        assert_eq!(p("public.chunks"), ("public".into(), "chunks".into()));
        assert_eq!(p("\"Odd.Name\""), ("public".into(), "Odd.Name".into()));
        assert_eq!(
            p("pg_catalog.pg_class"),
            ("pg_catalog".into(), "pg_class".into())
        );
    }
}
