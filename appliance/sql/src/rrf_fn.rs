//! `rrf(rank [, k])`: the reciprocal rank fusion term `1 / (k + rank)`, k default 60; a NULL rank
//! (the document was not returned by that retriever) contributes 0.

use std::sync::Arc;

use arrow::array::{Array, AsArray};
use arrow_array::Float64Array;
use arrow_schema::DataType;
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use super::error::SqlFnError;

const NAME: &str = "rrf";

/// The default RRF constant.
pub const DEFAULT_K: f64 = 60.0;

/// The `rrf` scalar function.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RrfFunction {
    signature: Signature,
}

impl RrfFunction {
    /// The function as a registrable UDF.
    pub fn udf() -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            signature: Signature::user_defined(Volatility::Immutable),
        })
    }
}

fn bad(message: String) -> datafusion::error::DataFusionError {
    SqlFnError::InvalidArgument {
        function: NAME,
        message,
    }
    .into_df()
}

impl ScalarUDFImpl for RrfFunction {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let numeric = |t: &DataType| t.is_numeric() || t.is_null();
        match arg_types {
            [r] if numeric(r) => Ok(vec![DataType::Int64]),
            [r, k] if numeric(r) && numeric(k) => Ok(vec![DataType::Int64, DataType::Float64]),
            _ => Err(SqlFnError::WrongArity {
                function: NAME,
                expected: "(rank bigint [, k double precision])",
                got: arg_types.len(),
            }
            .into_df()),
        }
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let ranks = args.args[0].clone().into_array(n)?;
        let ranks = ranks.as_primitive::<Int64Type>();
        let ks = match args.args.get(1) {
            Some(k) => Some(k.clone().into_array(n)?),
            None => None,
        };
        let ks = ks.as_ref().map(|k| k.as_primitive::<Float64Type>());
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let k = match ks {
                Some(ks) if ks.is_null(i) => return Err(bad("k must not be NULL".into())),
                Some(ks) => ks.value(i),
                None => DEFAULT_K,
            };
            if !(k.is_finite() && k >= 0.0) {
                return Err(bad(format!("k must be a finite number >= 0, got {k}")));
            }
            if ranks.is_null(i) {
                out.push(0.0);
                continue;
            }
            let r = ranks.value(i);
            if r < 1 {
                return Err(bad(format!(
                    "rank must be >= 1 (ranks start at 1), got {r}"
                )));
            }
            out.push(1.0 / (k + r as f64));
        }
        Ok(ColumnarValue::Array(Arc::new(Float64Array::from(out))))
    }
}
