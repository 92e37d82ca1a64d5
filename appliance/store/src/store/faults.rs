//! Storage faults on purpose: an object-store wrapper that counts every write Lance makes
//! (objects, upload parts, completions, copies, renames) and fails a chosen one with EIO,
//! ENOSPC or a torn write (half the bytes written, then an error), as a failing disk would.
//!
//! A store opened with [`super::Store::open_wrapped`] reaches its tables through object_store
//! itself (`file-object-store://`), so that every write of data files, deletion files,
//! indexes and manifests passes here. Used by the fault tests; harmless otherwise.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::stream::BoxStream;
use lance::io::WrappingObjectStore;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, UploadPart,
};

/// How a write fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// An I/O error (EIO); nothing written.
    Eio,
    /// The disk is full (ENOSPC); nothing written.
    Enospc,
    /// Half of the bytes written, then an I/O error (a write torn by a failing disk).
    Torn,
}

impl Fault {
    fn error(self, location: &Path) -> object_store::Error {
        // ENOSPC and EIO as the kernel reports them.
        let os = std::io::Error::from_raw_os_error(match self {
            Fault::Enospc => 28,
            Fault::Eio | Fault::Torn => 5,
        });
        object_store::Error::Generic {
            store: "fault injection",
            source: Box::new(std::io::Error::new(
                os.kind(),
                format!("{os} (writing {location})"),
            )),
        }
    }
}

/// Which write fails, and the writes seen.
#[derive(Debug)]
pub struct FaultPlan {
    writes: AtomicUsize,
    fail_at: usize,
    fault: Fault,
    log: Mutex<Vec<String>>,
}

impl FaultPlan {
    /// Fails write number `fail_at` (0-based) with `fault`; `usize::MAX` fails none.
    pub fn new(fail_at: usize, fault: Fault) -> Arc<Self> {
        Arc::new(Self {
            writes: AtomicUsize::new(0),
            fail_at,
            fault,
            log: Mutex::new(Vec::new()),
        })
    }

    /// The writes seen so far, each as `operation path`.
    pub fn writes(&self) -> Vec<String> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Counts one write; the fault when it is the chosen one.
    fn next(&self, op: &str, location: &Path) -> Option<Fault> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut l) = self.log.lock() {
            l.push(format!("{op} {location}"));
        }
        (n == self.fail_at).then_some(self.fault)
    }
}

/// Wraps every object store of a dataset opened with it.
#[derive(Debug, Clone)]
pub struct FaultWrapper(pub Arc<FaultPlan>);

impl WrappingObjectStore for FaultWrapper {
    fn wrap(&self, _prefix: &str, original: Arc<dyn ObjectStore>) -> Arc<dyn ObjectStore> {
        Arc::new(Faulty {
            inner: original,
            plan: self.0.clone(),
        })
    }

    /// Listings only read: they may keep their pushdown.
    fn wrap_paginated(
        &self,
        _prefix: &str,
        lister: Arc<dyn object_store::list::PaginatedListStore>,
    ) -> Option<Arc<dyn object_store::list::PaginatedListStore>> {
        Some(lister)
    }
}

#[derive(Debug)]
struct Faulty {
    inner: Arc<dyn ObjectStore>,
    plan: Arc<FaultPlan>,
}

impl fmt::Display for Faulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Faulty({})", self.inner)
    }
}

/// The first half of a payload (a torn write).
fn half(payload: &PutPayload) -> PutPayload {
    let bytes: Vec<u8> = payload.iter().flat_map(|b| b.iter().copied()).collect();
    PutPayload::from(bytes[..bytes.len() / 2].to_vec())
}

#[async_trait]
impl ObjectStore for Faulty {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        match self.plan.next("put", location) {
            None => self.inner.put_opts(location, payload, opts).await,
            Some(Fault::Torn) => {
                let _ = self
                    .inner
                    .put_opts(location, half(&payload), PutOptions::default())
                    .await;
                Err(Fault::Torn.error(location))
            }
            Some(f) => Err(f.error(location)),
        }
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        let inner = self.inner.put_multipart_opts(location, opts).await?;
        Ok(Box::new(FaultyUpload {
            inner,
            plan: self.plan.clone(),
            location: location.clone(),
        }))
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        match self.plan.next("copy", to) {
            None => self.inner.copy_opts(from, to, options).await,
            Some(f) => Err(f.error(to)),
        }
    }

    async fn rename_opts(
        &self,
        from: &Path,
        to: &Path,
        options: RenameOptions,
    ) -> object_store::Result<()> {
        match self.plan.next("rename", to) {
            None => self.inner.rename_opts(from, to, options).await,
            Some(f) => Err(f.error(to)),
        }
    }
}

#[derive(Debug)]
struct FaultyUpload {
    inner: Box<dyn MultipartUpload>,
    plan: Arc<FaultPlan>,
    location: Path,
}

#[async_trait]
impl MultipartUpload for FaultyUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        match self.plan.next("part", &self.location) {
            None => self.inner.put_part(data),
            Some(Fault::Torn) => {
                let torn = self.inner.put_part(half(&data));
                let err = Fault::Torn.error(&self.location);
                Box::pin(async move {
                    let _ = torn.await;
                    Err(err)
                })
            }
            Some(f) => {
                let err = f.error(&self.location);
                Box::pin(async move { Err(err) })
            }
        }
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        match self.plan.next("complete", &self.location) {
            None => self.inner.complete().await,
            // Torn: the object is there, and the caller hears of a failure.
            Some(Fault::Torn) => {
                let _ = self.inner.complete().await;
                Err(Fault::Torn.error(&self.location))
            }
            Some(f) => Err(f.error(&self.location)),
        }
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.inner.abort().await
    }
}
