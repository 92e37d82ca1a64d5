//! The Postgres catalog as clients read it: datafusion-pg-catalog's `pg_catalog`, with column
//! types that match what results carry (`real[]`, `timestamptz`) and Mitra's functions in
//! `pg_proc`; and `information_schema` with Postgres type names and the table functions.

mod arrays;
mod describe;
mod functions;
mod json_fn;
mod overlay;
mod relations;
mod types;

use std::sync::Arc;

use datafusion::catalog::SchemaProvider;
use datafusion::prelude::SessionContext;

pub use describe::SessionLogin;
pub(crate) use functions::{rows_of, shaped};
pub use functions::{MitraFunction, FUNCTIONS};
pub use types::{pg_type, PgType};

use crate::errors::ServerError;

/// Replaces `pg_catalog` and `information_schema` of `catalog` by Mitra's overlays and
/// registers the catalog functions psql and drivers call (`\df`, JDBC metadata).
pub fn install(ctx: &SessionContext, catalog: &str) -> Result<(), ServerError> {
    let err = |m: String| ServerError(format!("catalog setup: {m}"));
    let cat = ctx
        .catalog(catalog)
        .ok_or_else(|| err(format!("no catalog {catalog}")))?;
    let pg = cat
        .schema("pg_catalog")
        .ok_or_else(|| err("pg_catalog is not set up".into()))?;
    let catalogs = ctx.state().catalog_list().clone();
    let relations = Arc::new(relations::Relations::new(catalogs.clone(), catalog));
    let pg_overlay: Arc<dyn SchemaProvider> = Arc::new(overlay::Overlay::new(
        overlay::Kind::PgCatalog,
        pg.clone(),
        catalogs.clone(),
        catalog,
        relations.clone(),
    ));
    cat.register_schema("pg_catalog", pg_overlay)
        .map_err(|e| err(e.to_string()))?;
    let info =
        datafusion::catalog::information_schema::InformationSchemaProvider::new(catalogs.clone());
    let info_overlay: Arc<dyn SchemaProvider> = Arc::new(overlay::Overlay::new(
        overlay::Kind::InformationSchema,
        Arc::new(info),
        catalogs,
        catalog,
        relations.clone(),
    ));
    cat.register_schema("information_schema", info_overlay)
        .map_err(|e| err(e.to_string()))?;
    functions::register(ctx);
    describe::register(ctx, &relations);
    Ok(())
}
