//! Result caps: a statement's rows stop with SQLSTATE 54000 once they pass
//! `limits.max_result_rows` or `limits.max_result_mb` (the rows before it are sent).

use futures::StreamExt;
use mitra_sql::memory::ResultCaps;
use pgwire::api::results::QueryResponse;

use super::errors::FrontError;

/// The response's rows up to the caps; then one 54000 error ends them.
pub fn capped(resp: QueryResponse, caps: ResultCaps) -> QueryResponse {
    if caps.rows == 0 && caps.bytes == 0 {
        return resp;
    }
    let QueryResponse {
        command_tag,
        row_schema,
        data_rows,
        ..
    } = resp;
    let mut rows = 0u64;
    let mut bytes = 0u64;
    let mut over = false;
    let limited = data_rows
        .map(move |row| {
            let row = row?;
            rows += 1;
            bytes += row.data.len() as u64;
            let message = if caps.rows > 0 && rows > caps.rows {
                format!(
                    "the result has more than {} rows (limits.max_result_rows): add a LIMIT, \
                     or page with a cursor",
                    caps.rows
                )
            } else if caps.bytes > 0 && bytes > caps.bytes {
                format!(
                    "the result is larger than {} MiB (limits.max_result_mb): select fewer \
                     columns or rows",
                    caps.bytes / (1024 * 1024)
                )
            } else {
                return Ok(row);
            };
            Err(FrontError::ResultTooLarge(message).into_pg())
        })
        // Nothing after the error.
        .take_while(move |r| {
            let go = !over;
            over |= r.is_err();
            futures::future::ready(go)
        });
    let mut out = QueryResponse::new(row_schema, limited);
    out.command_tag = command_tag;
    out
}
