//! `json_build_object(key, value, ...)`, which SQLAlchemy's column reflection selects.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, StringArray};
use arrow_schema::DataType;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

/// `json_build_object`: a JSON object text from alternating keys and values (values as text).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct JsonBuildObject {
    signature: Signature,
}

impl JsonBuildObject {
    /// The function as a registrable UDF.
    pub fn udf() -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            signature: Signature::variadic_any(Volatility::Immutable),
        })
    }
}

impl ScalarUDFImpl for JsonBuildObject {
    fn name(&self) -> &str {
        "json_build_object"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let cols: Vec<ArrayRef> = args
            .args
            .iter()
            .map(|a| {
                let arr = a.clone().into_array(n)?;
                Ok(arrow::compute::cast(&arr, &DataType::Utf8)?)
            })
            .collect::<Result<_>>()?;
        let text: Vec<&StringArray> = cols
            .iter()
            .filter_map(|c| c.as_any().downcast_ref::<StringArray>())
            .collect();
        let out: StringArray = (0..n)
            .map(|row| {
                let mut obj = serde_json::Map::new();
                for pair in text.chunks(2) {
                    let key = pair[0]
                        .is_valid(row)
                        .then(|| pair[0].value(row).to_string());
                    let value = pair
                        .get(1)
                        .filter(|v| v.is_valid(row))
                        .map(|v| serde_json::Value::String(v.value(row).to_string()))
                        .unwrap_or(serde_json::Value::Null);
                    if let Some(k) = key {
                        obj.insert(k, value);
                    }
                }
                Some(serde_json::Value::Object(obj).to_string())
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}
