//! What Mitra says it is: `version()` and `server_version` in the form Postgres clients parse.

use std::sync::Arc;

use arrow_schema::DataType;
use datafusion::logical_expr::{create_udf, ColumnarValue, Volatility};
use datafusion::prelude::SessionContext;
use datafusion::scalar::ScalarValue;

/// The Postgres release whose protocol and catalog Mitra follows.
pub const PG_VERSION: &str = "16.6";

/// `server_version`, e.g. `16.6 (Mitra 0.1.0)` (drivers read the leading number).
pub fn server_version() -> String {
    format!("{PG_VERSION} (Mitra {})", env!("CARGO_PKG_VERSION"))
}

/// `version()`, e.g. `PostgreSQL 16.6 (Mitra 0.1.0; DataFusion 54.1.0) on x86_64-pc-linux-gnu`.
pub fn version_string() -> String {
    format!(
        "PostgreSQL {PG_VERSION} (Mitra {}; DataFusion {}) on {}-pc-{}-gnu, 64-bit",
        env!("CARGO_PKG_VERSION"),
        datafusion::DATAFUSION_VERSION,
        std::env::consts::ARCH,
        std::env::consts::OS,
    )
}

/// Registers `version()` (also reachable as `pg_catalog.version()`), replacing DataFusion's.
pub fn register(ctx: &SessionContext) {
    let v = version_string();
    let udf = create_udf(
        "version",
        vec![],
        DataType::Utf8,
        Volatility::Stable,
        Arc::new(move |_args: &[ColumnarValue]| {
            Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(v.clone()))))
        }),
    );
    ctx.register_udf(udf);
}
