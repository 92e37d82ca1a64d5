//! The generation worker: one thread owns the model; requests wait in a bounded queue, stream
//! their text back, and stop when their caller goes away.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::answer::Outcome;
use crate::engine::{Engine, LoadOptions, ModelInfo};
use crate::LlmError;

/// A request's work, run on the worker thread with the model: it reports through [`Control`]
/// and returns its result.
pub type Task = Box<dyn FnOnce(&mut Engine, &Control<'_>) -> Result<Outcome, LlmError> + Send>;

/// What a request hears back, in order: any number of `Text`, then `Done` or `Failed`.
#[derive(Debug)]
pub enum Event {
    /// A new piece of the answer.
    Text(String),
    /// The request ended.
    Done(Box<Outcome>),
    /// The request failed.
    Failed(LlmError),
}

/// A running request as its task sees it.
pub struct Control<'a> {
    cancel: &'a AtomicBool,
    events: &'a UnboundedSender<Event>,
}

impl Control<'_> {
    /// Whether the caller cancelled or went away.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst) || self.events.is_closed()
    }

    /// Streams a piece of text to the caller; false when the caller went away.
    pub fn text(&self, piece: &str) -> bool {
        self.events.send(Event::Text(piece.to_string())).is_ok()
    }
}

struct Job {
    task: Task,
    cancel: Arc<AtomicBool>,
    events: UnboundedSender<Event>,
}

/// What the worker is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Loading the model.
    Loading,
    /// Waiting for requests.
    Idle,
    /// Running a request.
    Generating,
    /// The model failed to load; requests fail with the reason.
    Failed,
}

impl State {
    /// Lower-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            State::Loading => "loading",
            State::Idle => "idle",
            State::Generating => "generating",
            State::Failed => "failed",
        }
    }
}

#[derive(Default)]
struct Shared {
    state: Mutex<Option<State>>,
    model: Mutex<Option<Result<ModelInfo, Arc<LlmError>>>>,
    queued: AtomicUsize,
    in_flight: AtomicUsize,
    served: AtomicU64,
    cancelled: AtomicU64,
    rejected: AtomicU64,
    failed: AtomicU64,
}

/// A snapshot of the worker for `llm_status()` and `mitra status`.
#[derive(Debug, Clone)]
pub struct WorkerStatus {
    /// Current state.
    pub state: State,
    /// The loaded model, or why it is not loaded.
    pub model: Option<Result<ModelInfo, Arc<LlmError>>>,
    /// Requests waiting.
    pub queued: usize,
    /// Requests answered.
    pub served: u64,
    /// Requests stopped because their caller went away or cancelled.
    pub cancelled: u64,
    /// Requests refused because the queue was full.
    pub rejected: u64,
    /// Requests that failed.
    pub failed: u64,
    /// The queue bound.
    pub queue_depth: usize,
}

/// Handle to the worker thread (cheap to share behind an `Arc`).
pub struct Worker {
    tx: SyncSender<Job>,
    shared: Arc<Shared>,
    depth: usize,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Worker")
    }
}

/// A submitted request: its events, and cancellation when dropped.
pub struct Ticket {
    /// Events of the request.
    pub events: UnboundedReceiver<Event>,
    cancel: Arc<AtomicBool>,
}

impl Ticket {
    /// Asks the worker to stop this request.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::SeqCst);
    }
}

impl Worker {
    /// Starts the worker thread, which loads `path` at once; `queue_depth` requests may wait
    /// behind the running one.
    pub fn start(path: PathBuf, opts: LoadOptions, queue_depth: usize) -> Arc<Worker> {
        // Room for every admitted request; admission itself is counted (`in_flight`).
        let (tx, rx) = sync_channel::<Job>(queue_depth + 1);
        let shared = Arc::new(Shared::default());
        *shared.state.lock().expect("state") = Some(State::Loading);
        let sh = shared.clone();
        std::thread::Builder::new()
            .name("mitra-llm".into())
            .spawn(move || run(path, opts, rx, sh))
            .expect("spawn the generation worker");
        Arc::new(Worker {
            tx,
            shared,
            depth: queue_depth,
        })
    }

    /// Queues a request, or refuses it at once when the queue is full ([`LlmError::Busy`]).
    pub fn submit(&self, task: Task) -> Result<Ticket, LlmError> {
        let (etx, erx) = unbounded_channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let job = Job {
            task,
            cancel: cancel.clone(),
            events: etx,
        };
        // One running plus `depth` waiting, whether or not the model has finished loading.
        let admitted =
            self.shared
                .in_flight
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                    (n <= self.depth).then_some(n + 1)
                });
        if admitted.is_err() {
            self.shared.rejected.fetch_add(1, Ordering::SeqCst);
            // Refused: one runs and `depth` wait. (The waiting counter itself may briefly
            // count a job the worker is taking, one too many for the message.)
            return Err(LlmError::Busy {
                queued: self.depth,
                depth: self.depth,
            });
        }
        self.shared.queued.fetch_add(1, Ordering::SeqCst);
        match self.tx.try_send(job) {
            Ok(()) => Ok(Ticket {
                events: erx,
                cancel,
            }),
            Err(TrySendError::Full(_)) => {
                self.shared.in_flight.fetch_sub(1, Ordering::SeqCst);
                let queued = self.shared.queued.fetch_sub(1, Ordering::SeqCst) - 1;
                self.shared.rejected.fetch_add(1, Ordering::SeqCst);
                Err(LlmError::Busy {
                    queued,
                    depth: self.depth,
                })
            }
            Err(TrySendError::Disconnected(_)) => {
                self.shared.in_flight.fetch_sub(1, Ordering::SeqCst);
                self.shared.queued.fetch_sub(1, Ordering::SeqCst);
                Err(LlmError::NotConfigured(
                    "the generation worker stopped".into(),
                ))
            }
        }
    }

    /// The worker's state and counters.
    pub fn status(&self) -> WorkerStatus {
        let s = &self.shared;
        WorkerStatus {
            state: s.state.lock().expect("state").unwrap_or(State::Loading),
            model: s.model.lock().expect("model").clone(),
            queued: s.queued.load(Ordering::SeqCst),
            served: s.served.load(Ordering::SeqCst),
            cancelled: s.cancelled.load(Ordering::SeqCst),
            rejected: s.rejected.load(Ordering::SeqCst),
            failed: s.failed.load(Ordering::SeqCst),
            queue_depth: self.depth,
        }
    }
}

/// Ends a request's admission when dropped (whatever way the request ends).
struct InFlight<'a>(&'a Shared);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

fn set_state(sh: &Shared, s: State) {
    *sh.state.lock().expect("state") = Some(s);
}

fn run(path: PathBuf, opts: LoadOptions, rx: Receiver<Job>, sh: Arc<Shared>) {
    let loaded = std::panic::catch_unwind(|| Engine::load(&path, &opts))
        .unwrap_or_else(|_| Err(LlmError::model(&path, "the loader panicked")));
    let mut engine = match loaded {
        Ok(e) => {
            tracing::info!(model = %e.info().label(), arch = %e.info().arch, "language model loaded");
            *sh.model.lock().expect("model") = Some(Ok(e.info().clone()));
            set_state(&sh, State::Idle);
            Some(e)
        }
        Err(e) => {
            tracing::warn!(error = %e, "language model unavailable");
            *sh.model.lock().expect("model") = Some(Err(Arc::new(e)));
            set_state(&sh, State::Failed);
            None
        }
    };
    while let Ok(job) = rx.recv() {
        sh.queued.fetch_sub(1, Ordering::SeqCst);
        let done = InFlight(&sh);
        let Some(eng) = engine.as_mut() else {
            let why = sh
                .model
                .lock()
                .expect("model")
                .clone()
                .and_then(|m| m.err());
            let e = match why {
                Some(c) => LlmError::Unavailable(c),
                None => LlmError::NotConfigured("the model did not load".into()),
            };
            let _ = job.events.send(Event::Failed(e));
            sh.failed.fetch_add(1, Ordering::SeqCst);
            continue;
        };
        if job.cancel.load(Ordering::SeqCst) || job.events.is_closed() {
            sh.cancelled.fetch_add(1, Ordering::SeqCst);
            continue;
        }
        set_state(&sh, State::Generating);
        let Job {
            task,
            cancel,
            events,
        } = job;
        let ctl = Control {
            cancel: &cancel,
            events: &events,
        };
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| task(eng, &ctl)))
            .unwrap_or_else(|_| Err(LlmError::Generation("internal error in the model".into())));
        // The worker is idle (and its counters final) before the caller hears the outcome:
        // a caller that asks `llm_status()` right after its answer sees this job finished.
        drop(done);
        set_state(&sh, State::Idle);
        match outcome {
            Ok(out) => {
                sh.served.fetch_add(1, Ordering::SeqCst);
                let _ = events.send(Event::Done(Box::new(out)));
            }
            Err(LlmError::Cancelled) => {
                sh.cancelled.fetch_add(1, Ordering::SeqCst);
                tracing::info!("generation cancelled: the caller went away");
            }
            Err(e) => {
                sh.failed.fetch_add(1, Ordering::SeqCst);
                let _ = events.send(Event::Failed(e));
            }
        }
    }
}
