//! Division by zero as Postgres has it: `1.0 / 0` and `1.0 % 0` are errors (22012), not
//! `Infinity` and `NaN`. Each `/` and `%` of a statement becomes `pg_divide`/`pg_modulo`, which
//! simplify back to DataFusion's operator unless an operand is a float (integer and decimal
//! division already fail on zero).

use std::ops::ControlFlow;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{Float16Type, Float32Type, Float64Type};
use arrow_schema::DataType;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::type_coercion::binary::BinaryTypeCoercer;
use datafusion::logical_expr::{
    binary_expr, ColumnarValue, Expr, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, Volatility,
};
use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, BinaryOperator, Expr as SqlExpr, Statement,
};

use super::ast::{call, take};

/// The message Postgres gives; [`super::errors`] maps it to 22012.
pub const DIVISION_BY_ZERO: &str = "division by zero";

/// `pg_divide(a, b)` or `pg_modulo(a, b)`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Checked {
    op: Operator,
    signature: Signature,
}

impl Checked {
    fn udf(op: Operator) -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            op,
            signature: Signature::user_defined(Volatility::Immutable),
        })
    }
}

/// Registers both functions.
pub fn register(ctx: &datafusion::prelude::SessionContext) {
    ctx.register_udf(Checked::udf(Operator::Divide));
    ctx.register_udf(Checked::udf(Operator::Modulo));
}

fn is_float(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    )
}

impl ScalarUDFImpl for Checked {
    fn name(&self) -> &str {
        match self.op {
            Operator::Divide => "pg_divide",
            _ => "pg_modulo",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [l, r] = arg_types else {
            return Err(DataFusionError::Plan(format!(
                "{} takes two arguments",
                self.name()
            )));
        };
        let (l, r) = BinaryTypeCoercer::new(l, &self.op, r).get_input_types()?;
        Ok(vec![l, r])
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let [l, r] = arg_types else {
            return Err(DataFusionError::Plan(format!(
                "{} takes two arguments",
                self.name()
            )));
        };
        BinaryTypeCoercer::new(l, &self.op, r).get_result_type()
    }

    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        let floats = args
            .iter()
            .any(|a| info.get_data_type(a).map(|t| is_float(&t)).unwrap_or(false));
        if floats || args.len() != 2 {
            return Ok(ExprSimplifyResult::Original(args));
        }
        let mut it = args.into_iter();
        let (a, b) = (it.next(), it.next());
        match (a, b) {
            (Some(a), Some(b)) => Ok(ExprSimplifyResult::Simplified(binary_expr(a, self.op, b))),
            _ => Err(DataFusionError::Internal("two arguments expected".into())),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let n = if scalar { 1 } else { args.number_rows };
        let arrays: Vec<ArrayRef> = args
            .args
            .iter()
            .map(|a| a.clone().into_array(n))
            .collect::<Result<_>>()?;
        let [l, r] = arrays.as_slice() else {
            return Err(DataFusionError::Internal("two arguments expected".into()));
        };
        if has_zero(l, r) {
            return Err(DataFusionError::Execution(DIVISION_BY_ZERO.into()));
        }
        let out = match self.op {
            Operator::Divide => arrow::compute::kernels::numeric::div(l, r)?,
            _ => arrow::compute::kernels::numeric::rem(l, r)?,
        };
        Ok(if scalar {
            ColumnarValue::Scalar(datafusion::scalar::ScalarValue::try_from_array(&out, 0)?)
        } else {
            ColumnarValue::Array(out)
        })
    }
}

/// Whether a float divisor is zero where the dividend is not NULL.
fn has_zero(l: &ArrayRef, r: &ArrayRef) -> bool {
    fn any<T: arrow::datatypes::ArrowPrimitiveType>(l: &ArrayRef, r: &ArrayRef) -> bool {
        let r = r.as_primitive::<T>();
        let zero = T::Native::default();
        (0..r.len()).any(|i| r.is_valid(i) && l.is_valid(i) && r.value(i) == zero)
    }
    match r.data_type() {
        DataType::Float16 => any::<Float16Type>(l, r),
        DataType::Float32 => any::<Float32Type>(l, r),
        DataType::Float64 => any::<Float64Type>(l, r),
        _ => false,
    }
}

/// Rewrites each `a / b` and `a % b` of the statement as the checked function.
pub fn checked_division(statement: &mut Statement) {
    let _ = visit_expressions_mut(statement, |e| {
        if let SqlExpr::BinaryOp { op, .. } = e {
            let name = match op {
                BinaryOperator::Divide => "pg_divide",
                BinaryOperator::Modulo => "pg_modulo",
                _ => return ControlFlow::<()>::Continue(()),
            };
            if let SqlExpr::BinaryOp { left, right, .. } = take(e) {
                *e = call(name, vec![*left, *right]);
            }
        }
        ControlFlow::Continue(())
    });
}
