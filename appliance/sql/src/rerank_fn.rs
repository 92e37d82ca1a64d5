//! `rerank(query, passage [, reranker])`: a scalar that scores every row of a batch in one call
//! of the reranker (one cross-encoder pass for a top 50), NULL for a NULL passage.

use std::sync::Arc;

use arrow::array::{Array, AsArray, Float32Array};
use arrow_schema::DataType;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::scalar::ScalarValue;

use crate::answer_fn::wait_here;
use crate::args;
use crate::error::SqlFnError;
use crate::interrupt::Interrupt;
use crate::rerank::{Choice, Rerankers};
use mitra_store::config::LimitsConfig;

const RERANK: &str = "rerank";
const SIG: &str = "(query text, passage text [, reranker text])";

/// The `rerank()` scalar.
#[derive(Debug, Clone)]
pub struct RerankFunction {
    signature: Signature,
    rerankers: Arc<Rerankers>,
    limits: LimitsConfig,
    interrupt: Option<Arc<Interrupt>>,
}

impl PartialEq for RerankFunction {
    fn eq(&self, o: &Self) -> bool {
        self.signature == o.signature
    }
}
impl Eq for RerankFunction {}
impl std::hash::Hash for RerankFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        RERANK.hash(state)
    }
}

impl RerankFunction {
    /// The UDF.
    pub fn udf(rerankers: Arc<Rerankers>, limits: LimitsConfig) -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            signature: Signature::user_defined(Volatility::Volatile),
            rerankers,
            limits,
            interrupt: None,
        })
    }

    /// The same function bound to one connection's interrupts (a cancel request, the statement
    /// timeout or a disconnect stop the scoring).
    pub fn for_session(&self, interrupt: Arc<Interrupt>) -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            interrupt: Some(interrupt),
            ..self.clone()
        })
    }

    fn choice(&self, name: Option<&str>) -> std::result::Result<Choice, SqlFnError> {
        let resolved = match name {
            Some(n) => {
                self.rerankers
                    .resolve(n)
                    .map_err(|message| SqlFnError::RerankUnavailable {
                        function: RERANK,
                        message,
                    })?
            }
            None => self.rerankers.configured_for(RERANK)?,
        };
        resolved.ok_or_else(|| SqlFnError::RerankUnavailable {
            function: RERANK,
            message: "no reranker is configured ([rerank] model = \"none\"); name one as the third argument ('llm' or a cross-encoder) or set [rerank] model".into(),
        })
    }
}

/// The rows of one reranker call: the query and the reranker named (the configured one if none).
type Group = (String, Option<String>);

fn is_text(t: &DataType) -> bool {
    t.is_null() || matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

impl ScalarUDFImpl for RerankFunction {
    fn name(&self) -> &str {
        RERANK
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if (2..=3).contains(&arg_types.len()) && arg_types.iter().all(is_text) {
            return Ok(vec![DataType::Utf8; arg_types.len()]);
        }
        Err(SqlFnError::WrongArity {
            function: RERANK,
            expected: SIG,
            got: arg_types.len(),
        }
        .into_df())
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float32)
    }

    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = a.number_rows;
        let arrays = a
            .args
            .iter()
            .map(|c| c.clone().into_array(n))
            .collect::<Result<Vec<_>>>()?;
        let queries = arrays[0].as_string::<i32>();
        let passages = arrays[1].as_string::<i32>();
        let names = arrays.get(2).map(|a| a.as_string::<i32>());
        // Rows grouped by (query, reranker), in first-seen order: one call per group.
        let mut groups: Vec<(Group, Vec<usize>)> = Vec::new();
        for i in 0..n {
            if !queries.is_valid(i) || !passages.is_valid(i) {
                continue;
            }
            // The checks every retrieval function makes of its query (empty, too long).
            let q = args::query_text(
                RERANK,
                &ScalarValue::Utf8(Some(queries.value(i).to_string())),
                &self.limits,
            )
            .map_err(SqlFnError::into_df)?;
            let name = names
                .filter(|a| a.is_valid(i))
                .map(|a| a.value(i).to_string());
            let key = (q, name);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, rows)) => rows.push(i),
                None => groups.push((key, vec![i])),
            }
        }
        let mut scores: Vec<Option<f32>> = vec![None; n];
        let stop = self.interrupt.as_ref().map(|i| i.statement());
        for ((query, name), rows) in groups {
            let choice = self.choice(name.as_deref()).map_err(SqlFnError::into_df)?;
            let texts = rows
                .iter()
                .map(|&i| crate::rerank::bare(passages.value(i).to_string()))
                .collect();
            let got = wait_here(
                self.rerankers
                    .score(RERANK, &choice, &query, texts, stop.clone()),
            )
            .map_err(SqlFnError::into_df)?;
            for (&i, s) in rows.iter().zip(got) {
                scores[i] = Some(s);
            }
        }
        Ok(ColumnarValue::Array(Arc::new(Float32Array::from(scores))))
    }
}
