//! `single_row_value(x)`: the value of a scalar subquery as Postgres defines it — NULL over no
//! rows, the row's value over one, SQLSTATE 21000 over more — as an aggregate, so that
//! DataFusion can decorrelate subqueries that clients write without one.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::Int64Type;
use arrow_schema::{DataType, Field, FieldRef};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility,
};
use datafusion::scalar::ScalarValue;

/// The function's name, as the subquery rewrite calls it.
pub const NAME: &str = "single_row_value";

/// The message Postgres gives, which [`super::errors`] maps to 21000.
pub const TOO_MANY_ROWS: &str = "more than one row returned by a subquery used as an expression";

/// The aggregate behind [`NAME`].
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SingleRowValue {
    signature: Signature,
}

impl SingleRowValue {
    /// The function as a registrable UDAF.
    pub fn udaf() -> AggregateUDF {
        AggregateUDF::new_from_impl(Self {
            signature: Signature::any(1, Volatility::Immutable),
        })
    }
}

impl AggregateUDFImpl for SingleRowValue {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types.first().cloned().unwrap_or(DataType::Null))
    }

    fn accumulator(&self, acc_args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let dt = acc_args.return_field.data_type().clone();
        Ok(Box::new(SingleRow {
            value: ScalarValue::try_from(&dt)?,
            rows: 0,
        }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(
                args.return_field
                    .as_ref()
                    .clone()
                    .with_name(format_state_name(args.name, "value"))
                    .with_nullable(true),
            ),
            Arc::new(Field::new(
                format_state_name(args.name, "rows"),
                DataType::Int64,
                false,
            )),
        ])
    }
}

#[derive(Debug)]
struct SingleRow {
    value: ScalarValue,
    rows: i64,
}

impl SingleRow {
    fn add(&mut self, rows: i64, value: impl FnOnce() -> Result<ScalarValue>) -> Result<()> {
        if rows == 0 {
            return Ok(());
        }
        self.rows = self.rows.saturating_add(rows);
        if self.rows > 1 {
            return Err(DataFusionError::Execution(TOO_MANY_ROWS.into()));
        }
        self.value = value()?;
        Ok(())
    }
}

impl Accumulator for SingleRow {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(v) = values.first() else {
            return Ok(());
        };
        self.add(v.len() as i64, || ScalarValue::try_from_array(v, 0))
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (Some(values), Some(rows)) = (states.first(), states.get(1)) else {
            return Ok(());
        };
        let rows = rows.as_primitive::<Int64Type>();
        for i in 0..rows.len() {
            let n = if rows.is_valid(i) { rows.value(i) } else { 0 };
            self.add(n, || ScalarValue::try_from_array(values, i))?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![
            self.value.clone(),
            ScalarValue::Int64(Some(self.rows)),
        ])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(self.value.clone())
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.value.size()
    }
}
