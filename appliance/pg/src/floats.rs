//! Infinite floats in Postgres' text form: `Infinity` and `-Infinity` (pgwire writes `inf`,
//! which pgjdbc refuses with "Bad value for type double"), in scalars and in `real[]` arrays.

use bytes::{BufMut, BytesMut};
use futures::StreamExt;
use pgwire::api::results::{FieldFormat, FieldInfo, QueryResponse};
use pgwire::api::Type;
use pgwire::messages::data::DataRow;

use super::wire_types::row_fields as fields;

/// How a column's text needs mending.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mend {
    None,
    Scalar,
    Array,
}

fn mend_of(f: &FieldInfo) -> Mend {
    if f.format() != FieldFormat::Text {
        return Mend::None;
    }
    match *f.datatype() {
        Type::FLOAT4 | Type::FLOAT8 => Mend::Scalar,
        Type::FLOAT4_ARRAY | Type::FLOAT8_ARRAY => Mend::Array,
        _ => Mend::None,
    }
}

/// The text of one value, mended.
fn mended(v: &[u8], how: Mend) -> Option<Vec<u8>> {
    let word = |w: &[u8]| -> Option<&'static [u8]> {
        match w {
            b"inf" => Some(b"Infinity"),
            b"-inf" => Some(b"-Infinity"),
            _ => None,
        }
    };
    match how {
        Mend::None => None,
        Mend::Scalar => word(v).map(<[u8]>::to_vec),
        Mend::Array => {
            if !v.windows(3).any(|w| w == b"inf") {
                return None;
            }
            let mut out = Vec::with_capacity(v.len() + 16);
            let mut start = 0;
            for (i, b) in v.iter().enumerate() {
                if matches!(b, b'{' | b'}' | b',') {
                    let token = &v[start..i];
                    out.extend_from_slice(word(token).unwrap_or(token));
                    out.push(*b);
                    start = i + 1;
                }
            }
            let token = &v[start..];
            out.extend_from_slice(word(token).unwrap_or(token));
            Some(out)
        }
    }
}

fn mend_row(row: DataRow, how: &[Mend]) -> DataRow {
    let fields = fields(&row.data);
    let changed: Vec<Option<Vec<u8>>> = fields
        .iter()
        .zip(how)
        .map(|(f, h)| f.and_then(|v| mended(v, *h)))
        .collect();
    if changed.iter().all(Option::is_none) {
        return row;
    }
    let mut data = BytesMut::with_capacity(row.data.len() + 16);
    for (f, new) in fields
        .iter()
        .zip(changed.iter().chain(std::iter::repeat(&None)))
    {
        match new.as_deref().or(*f) {
            Some(v) => {
                data.put_i32(v.len() as i32);
                data.put_slice(v);
            }
            None => data.put_i32(-1),
        }
    }
    DataRow::new(data, row.field_count)
}

/// The response with infinite floats spelled as Postgres spells them; unchanged (and not
/// wrapped) when no column is a float in text form.
pub fn postgres_infinity(mut resp: QueryResponse) -> QueryResponse {
    let how: Vec<Mend> = resp.row_schema.iter().map(mend_of).collect();
    if how.iter().all(|m| *m == Mend::None) {
        return resp;
    }
    let rows = std::mem::replace(resp.data_rows(), Box::pin(futures::stream::empty()));
    let mended = rows.map(move |r| r.map(|row| mend_row(row, &how)));
    let mut out = QueryResponse::new(resp.row_schema.clone(), mended);
    out.set_command_tag(resp.command_tag());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinities_are_spelled_as_postgres_does() {
        assert_eq!(mended(b"inf", Mend::Scalar).unwrap(), b"Infinity");
        assert_eq!(mended(b"-inf", Mend::Scalar).unwrap(), b"-Infinity");
        assert!(mended(b"1.5", Mend::Scalar).is_none());
        assert!(mended(b"NaN", Mend::Scalar).is_none());
        assert_eq!(
            mended(b"{1,inf,-inf,NULL}", Mend::Array).unwrap(),
            b"{1,Infinity,-Infinity,NULL}"
        );
        assert!(mended(b"{1,2}", Mend::Array).is_none());
        let mut row = BytesMut::new();
        for v in [Some(&b"inf"[..]), None, Some(b"2")] {
            match v {
                Some(v) => {
                    row.put_i32(v.len() as i32);
                    row.put_slice(v);
                }
                None => row.put_i32(-1),
            }
        }
        let out = mend_row(
            DataRow::new(row, 3),
            &[Mend::Scalar, Mend::Scalar, Mend::Scalar],
        );
        assert_eq!(
            fields(&out.data),
            vec![Some(&b"Infinity"[..]), None, Some(&b"2"[..])]
        );
    }
}
