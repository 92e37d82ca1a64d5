//! Errors raised by Mitra's SQL functions (their SQLSTATEs are assigned in `mitra-pg`'s errors.rs).

/// Errors of the retrieval SQL functions.
#[derive(Debug, thiserror::Error)]
pub enum SqlFnError {
    /// An argument has the wrong value or type (SQLSTATE 22023).
    #[error("{function}(): {message}")]
    InvalidArgument {
        /// Function name.
        function: &'static str,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Wrong number of arguments (SQLSTATE 42883, as Postgres reports a missing overload).
    #[error("{function}() takes {expected}; got {got} argument(s)")]
    WrongArity {
        /// Function name.
        function: &'static str,
        /// Accepted signature.
        expected: &'static str,
        /// Arguments given.
        got: usize,
    },
    /// The BM25 index failed (SQLSTATE XX000).
    #[error("BM25 index: {0}")]
    Index(#[from] mitra_store::index::IndexError),
    /// Dense retrieval failed: not set up (55000: missing model or vectors, another model's
    /// vectors) or broken (XX000).
    #[error("{function}(): {source}")]
    Dense {
        /// Function name.
        function: &'static str,
        /// The cause.
        source: mitra_store::dense::DenseError,
    },
    /// A scope or the analyses catalog: an unknown (or unreadable) analysis is 22023, a
    /// broken catalog XX000.
    #[error("{function}(): {source}")]
    Analyses {
        /// Function name.
        function: &'static str,
        /// The cause.
        source: mitra_store::analyses::AnalysesError,
    },
    /// The language model: busy 53300, not configured or not loadable 55000 (missing file
    /// 58P01, corrupt or wrong checksum XX001, unsupported architecture 0A000), prompt too
    /// long 54000, cancelled 57014, a failed generation XX000.
    #[error("{function}(): {source}")]
    Llm {
        /// Function name.
        function: &'static str,
        /// The cause.
        source: mitra_llm::LlmError,
    },
    /// A cross-encoder failed: a query with no room for a passage 22023, cancelled 57014, a
    /// model file missing 58P01, unusable 55000, a failed inference XX000.
    #[error("{function}(): {source}")]
    Rerank {
        /// Function name.
        function: &'static str,
        /// The cause.
        source: mitra_rerank::RerankError,
    },
    /// The reranker named or configured cannot be used (SQLSTATE 55000).
    #[error("{function}(): {message}")]
    RerankUnavailable {
        /// Function name.
        function: &'static str,
        /// Why.
        message: String,
    },
    /// Reading a table failed (SQLSTATE XX000).
    #[error("{function}(): {source}")]
    Store {
        /// Function name.
        function: &'static str,
        /// The cause.
        source: mitra_store::store::StoreError,
    },
    /// What the statement names does not exist (SQLSTATE 42704).
    #[error("{function}(): {what}")]
    NotFound {
        /// Function name.
        function: &'static str,
        /// What is missing.
        what: String,
    },
    /// Only the operator may call this function (SQLSTATE 42501).
    #[error("{function}(): only the operator may call it")]
    OperatorOnly {
        /// Function name.
        function: &'static str,
    },
    /// The store or the model no longer has what a recorded answer was made from (SQLSTATE
    /// 55000).
    #[error("{function}(): {message}")]
    NotReplayable {
        /// Function name.
        function: &'static str,
        /// What is missing or changed.
        message: String,
    },
    /// The statement was stopped: a cancel request or `statement_timeout` (SQLSTATE 57014),
    /// or the client went away.
    #[error("{}", .0.message())]
    Stopped(crate::interrupt::Stop),
}

impl SqlFnError {
    /// A table function executed before its bound parameters were supplied.
    pub fn unbound(function: &'static str) -> datafusion::error::DataFusionError {
        SqlFnError::InvalidArgument {
            function,
            message: "parameters are not bound".into(),
        }
        .into_df()
    }

    /// Wraps into a DataFusion error.
    pub fn into_df(self) -> datafusion::error::DataFusionError {
        datafusion::error::DataFusionError::External(Box::new(self))
    }
}
