//! Postgres types of Arrow types, as the catalog reports them (the wire encoder's mapping).

use arrow_schema::DataType;

/// A Postgres type as `pg_attribute`, `information_schema` and `format_type` show it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PgType {
    /// `pg_type.oid`.
    pub oid: i32,
    /// `format_type()` spelling, e.g. `real[]`, `timestamp with time zone`.
    pub name: &'static str,
    /// `information_schema.columns.data_type` (`ARRAY` for arrays).
    pub sql_name: &'static str,
    /// `pg_type.typname`, e.g. `_float4`.
    pub udt_name: &'static str,
    /// `attlen`: fixed size in bytes, or -1 for variable length.
    pub len: i16,
    /// Array dimensions (`attndims`).
    pub ndims: i32,
}

const fn t(
    oid: i32,
    name: &'static str,
    sql_name: &'static str,
    udt_name: &'static str,
    len: i16,
) -> PgType {
    PgType {
        oid,
        name,
        sql_name,
        udt_name,
        len,
        ndims: 0,
    }
}

const fn array(oid: i32, name: &'static str, udt_name: &'static str) -> PgType {
    PgType {
        oid,
        name,
        sql_name: "ARRAY",
        udt_name,
        len: -1,
        ndims: 1,
    }
}

const TEXT: PgType = t(25, "text", "text", "text", -1);

/// The Postgres type of an Arrow type (text for anything without a counterpart).
pub fn pg_type(dt: &DataType) -> PgType {
    match dt {
        DataType::Boolean => t(16, "boolean", "boolean", "bool", 1),
        DataType::Int8 | DataType::Int16 | DataType::UInt8 => {
            t(21, "smallint", "smallint", "int2", 2)
        }
        DataType::Int32 | DataType::UInt16 => t(23, "integer", "integer", "int4", 4),
        DataType::Int64 | DataType::UInt32 => t(20, "bigint", "bigint", "int8", 8),
        DataType::UInt64 | DataType::Decimal128(..) | DataType::Decimal256(..) => {
            t(1700, "numeric", "numeric", "numeric", -1)
        }
        DataType::Float16 | DataType::Float32 => t(700, "real", "real", "float4", 4),
        DataType::Float64 => t(701, "double precision", "double precision", "float8", 8),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => TEXT,
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => t(17, "bytea", "bytea", "bytea", -1),
        DataType::Date32 | DataType::Date64 => t(1082, "date", "date", "date", 4),
        DataType::Time32(_) | DataType::Time64(_) => t(
            1083,
            "time without time zone",
            "time without time zone",
            "time",
            8,
        ),
        DataType::Timestamp(_, None) => t(
            1114,
            "timestamp without time zone",
            "timestamp without time zone",
            "timestamp",
            8,
        ),
        DataType::Timestamp(_, Some(_)) => t(
            1184,
            "timestamp with time zone",
            "timestamp with time zone",
            "timestamptz",
            8,
        ),
        DataType::Interval(_) | DataType::Duration(_) => {
            t(1186, "interval", "interval", "interval", 16)
        }
        DataType::List(f)
        | DataType::FixedSizeList(f, _)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => match pg_type(f.data_type()).oid {
            16 => array(1000, "boolean[]", "_bool"),
            21 => array(1005, "smallint[]", "_int2"),
            23 => array(1007, "integer[]", "_int4"),
            20 => array(1016, "bigint[]", "_int8"),
            700 => array(1021, "real[]", "_float4"),
            701 => array(1022, "double precision[]", "_float8"),
            1700 => array(1231, "numeric[]", "_numeric"),
            17 => array(1001, "bytea[]", "_bytea"),
            1082 => array(1182, "date[]", "_date"),
            1114 => array(1115, "timestamp without time zone[]", "_timestamp"),
            1184 => array(1185, "timestamp with time zone[]", "_timestamptz"),
            _ => array(1009, "text[]", "_text"),
        },
        _ => TEXT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn vectors_are_real_arrays_and_utc_timestamps_timestamptz() {
        let item = Arc::new(arrow_schema::Field::new("item", DataType::Float32, true));
        assert_eq!(
            pg_type(&DataType::FixedSizeList(item.clone(), 384)).name,
            "real[]"
        );
        assert_eq!(pg_type(&DataType::List(item)).oid, 1021);
        let ts = DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, Some("UTC".into()));
        assert_eq!(pg_type(&ts).oid, 1184);
        assert_eq!(pg_type(&DataType::Utf8).sql_name, "text");
    }
}
