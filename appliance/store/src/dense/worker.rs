//! A dedicated thread, apart from the tokio I/O threads, that owns the encoders and runs vector work.

use std::sync::mpsc;

use super::DenseError;

type Job = Box<dyn FnOnce(&tokio::runtime::Runtime) + Send>;

/// A worker thread with its own single-threaded tokio runtime (for Lance calls). Encoder
/// inference and vector scans run here, so they never stall the server's I/O threads; callers
/// either block (planning-time table functions) or await.
#[derive(Clone)]
pub struct Worker {
    tx: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Worker")
    }
}

impl Worker {
    /// Starts the thread.
    pub fn spawn(name: &str) -> Result<Self, DenseError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| DenseError::Unavailable(format!("worker runtime: {e}")))?;
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job(&rt);
                }
            })
            .map_err(|e| DenseError::Unavailable(format!("worker thread: {e}")))?;
        Ok(Self { tx })
    }

    /// Runs `f` on the worker and waits for it (blocking the calling thread).
    pub fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&tokio::runtime::Runtime) -> T + Send + 'static,
    ) -> Result<T, DenseError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.tx
            .send(Box::new(move |rt| {
                let _ = tx.send(f(rt));
            }))
            .map_err(|_| DenseError::WorkerGone)?;
        rx.recv().map_err(|_| DenseError::WorkerGone)
    }

    /// Runs `f` on the worker and awaits it (the calling task yields meanwhile).
    pub async fn call_async<T: Send + 'static>(
        &self,
        f: impl FnOnce(&tokio::runtime::Runtime) -> T + Send + 'static,
    ) -> Result<T, DenseError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.tx
            .send(Box::new(move |rt| {
                let _ = tx.send(f(rt));
            }))
            .map_err(|_| DenseError::WorkerGone)?;
        rx.await.map_err(|_| DenseError::WorkerGone)
    }
}
