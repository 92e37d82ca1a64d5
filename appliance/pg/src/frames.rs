//! One connection: a validating frame guard in front of pgwire's decoder, and the message loop.
//!
//! pgwire 0.40 decodes frontend messages from its whole read buffer without checking that a
//! message stays inside its frame, so truncated or inconsistent frames panic in its decoders
//! (`bytes` out of bounds) or smuggle bytes into the next message. The guard sits between the
//! socket and pgwire's codec: it hands pgwire only whole frames whose structure it has checked
//! (every field inside the frame, the frame consumed exactly), and turns any other frame into a
//! FATAL 08P01 ErrorResponse and a closed connection. Before it, the connection's encryption
//! is negotiated: an SSLRequest is answered "S" and TLS begins when the server has TLS, "N"
//! otherwise (GSS encryption is always "N"); with `server.tls = required` a plaintext client is
//! refused before authentication.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use futures::StreamExt;
use mitra_store::config::TlsMode;
use pgwire::api::store::PortalStore;
use pgwire::api::{
    ClientInfo, ClientPortalStore, DefaultClient, ErrorHandler, PgWireConnectionState,
};
use pgwire::error::ErrorInfo;
use pgwire::messages::response::ErrorResponse;
use pgwire::messages::response::TransactionStatus;
use pgwire::messages::{Message, PgWireFrontendMessage};
use pgwire::tokio::server::{process_error, process_message, PgWireMessageServerCodec};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use super::handler::Prepared;
use super::tls::Tls;
use super::MitraHandlers;

/// Largest startup-phase frame and largest small message (pgwire's own limit).
const MAX_SMALL_FRAME: usize = 10_000;
/// Largest Query, Parse, Bind or CopyData frame.
pub const MAX_FRAME: usize = 64 * 1024 * 1024;
/// A client must finish startup and authentication within this time.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

const SSL_REQUEST: i32 = 80_877_103;
const GSSENC_REQUEST: i32 = 80_877_104;
const CANCEL_REQUEST: i32 = 80_877_102;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Untyped frames: a startup or cancel message.
    Startup,
    /// Typed messages.
    Typed,
    /// After a cancel request or a rejected frame: nothing more is read.
    Done,
}

/// Reads whole, checked frames from `inner`; writes go straight through.
pub struct FrameGuard<S> {
    inner: S,
    peer: SocketAddr,
    raw: BytesMut,
    ready: BytesMut,
    phase: Phase,
    reply: Option<Bytes>,
    fail: Option<String>,
    eof: bool,
    /// Password-family ('p') messages seen: the first of a SCRAM exchange is a
    /// SASLInitialResponse, the later ones raw SASL data.
    password_messages: usize,
}

impl<S> FrameGuard<S> {
    /// Wraps a client stream whose encryption is negotiated; `prefix`: bytes already read
    /// from it (the start of the startup packet).
    pub fn new(inner: S, peer: SocketAddr, prefix: &[u8]) -> Self {
        let mut raw = BytesMut::with_capacity(8192);
        raw.extend_from_slice(prefix);
        Self {
            inner,
            peer,
            raw,
            ready: BytesMut::new(),
            phase: Phase::Startup,
            reply: None,
            fail: None,
            eof: false,
            password_messages: 0,
        }
    }

    fn reject(&mut self, message: String) {
        tracing::warn!(peer = %self.peer, %message, "protocol violation; closing the connection");
        let info = ErrorInfo::new(
            "FATAL".into(),
            "08P01".into(),
            format!("protocol violation: {message}"),
        );
        let mut buf = BytesMut::new();
        if ErrorResponse::from(info).encode(&mut buf).is_ok() {
            self.reply = Some(buf.freeze());
        }
        self.fail = Some(message);
        self.phase = Phase::Done;
        self.raw.clear();
    }

    /// Moves one complete, valid frame from `raw` to `ready` (or answers it). `Ok(false)`: more
    /// bytes are needed.
    fn take_frame(&mut self) -> Result<bool, String> {
        match self.phase {
            Phase::Done => {
                self.raw.clear();
                Ok(false)
            }
            Phase::Startup => {
                if self.raw.len() < 4 {
                    return Ok(false);
                }
                let len = i32::from_be_bytes([self.raw[0], self.raw[1], self.raw[2], self.raw[3]]);
                if len < 8 || len as usize > MAX_SMALL_FRAME {
                    return Err(format!("invalid startup packet length {len}"));
                }
                let len = len as usize;
                if self.raw.len() < len {
                    return Ok(false);
                }
                let frame = self.raw.split_to(len);
                let code = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
                match code {
                    // Each was answered once before the guard (`negotiate`).
                    SSL_REQUEST | GSSENC_REQUEST => {
                        return Err("invalid encryption request".into());
                    }
                    CANCEL_REQUEST => {
                        if !(16..=268).contains(&len) {
                            return Err("invalid cancel request length".into());
                        }
                        self.ready.extend_from_slice(&frame);
                        self.phase = Phase::Done;
                    }
                    _ => {
                        if code >> 16 != 3 {
                            return Err(format!(
                                "unsupported frontend protocol {}.{}",
                                code >> 16,
                                code & 0xffff
                            ));
                        }
                        check_startup_parameters(&frame[8..])?;
                        self.ready.extend_from_slice(&frame);
                        self.phase = Phase::Typed;
                    }
                }
                Ok(true)
            }
            Phase::Typed => {
                if self.raw.len() < 5 {
                    return Ok(false);
                }
                let kind = self.raw[0];
                let len = i32::from_be_bytes([self.raw[1], self.raw[2], self.raw[3], self.raw[4]]);
                let cap = match kind {
                    b'Q' | b'P' | b'B' | b'd' => MAX_FRAME,
                    b'p' | b'C' | b'D' | b'E' | b'H' | b'S' | b'X' | b'c' | b'f' => MAX_SMALL_FRAME,
                    b'F' => return Err("function call messages are not supported".into()),
                    other => return Err(format!("invalid frontend message type {other}")),
                };
                if len < 4 || len as usize > cap {
                    return Err(format!(
                        "invalid length {len} of message type '{}'",
                        kind as char
                    ));
                }
                let total = 1 + len as usize;
                if self.raw.len() < total {
                    self.raw.reserve(total - self.raw.len());
                    return Ok(false);
                }
                let frame = self.raw.split_to(total);
                let body = &frame[5..];
                let checked = match kind {
                    b'p' => {
                        self.password_messages += 1;
                        check_password_message(self.password_messages, body)
                    }
                    _ => check_body(kind, body),
                };
                checked.map_err(|m| format!("malformed message '{}': {m}", kind as char))?;
                self.ready.extend_from_slice(&frame);
                Ok(true)
            }
        }
    }
}

/// A NUL-terminated string at the start of `b`: its length including the NUL.
fn cstr(b: &[u8]) -> Result<usize, &'static str> {
    b.iter()
        .position(|&c| c == 0)
        .map(|p| p + 1)
        .ok_or("unterminated string")
}

fn u16_at(b: &[u8], at: usize) -> Result<usize, &'static str> {
    b.get(at..at + 2)
        .map(|s| u16::from_be_bytes([s[0], s[1]]) as usize)
        .ok_or("truncated")
}

fn i32_at(b: &[u8], at: usize) -> Result<i32, &'static str> {
    b.get(at..at + 4)
        .map(|s| i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or("truncated")
}

fn check_startup_parameters(mut b: &[u8]) -> Result<(), String> {
    loop {
        match b {
            [0] => return Ok(()),
            [] => return Err("startup packet does not end with a NUL".into()),
            _ => {
                let k = cstr(b)?;
                if k == 1 {
                    return Err("empty startup parameter name".into());
                }
                b = &b[k..];
                let v = cstr(b)?;
                b = &b[v..];
            }
        }
    }
}

/// A password-family message: the first is a SASLInitialResponse (mechanism, then an i32
/// length of exactly the remaining bytes, or -1 with none) — pgwire decodes it without bounds
/// checks; later ones (SASLResponse) are opaque bytes that SCRAM parses and checks itself.
fn check_password_message(nth: usize, b: &[u8]) -> Result<(), &'static str> {
    if nth > 1 {
        return Ok(());
    }
    let at = cstr(b)?;
    match i32_at(b, at)? {
        -1 if b.len() == at + 4 => Ok(()),
        n if n >= 0 && b.len() == at + 4 + n as usize => Ok(()),
        _ => Err("SASL initial response length does not match"),
    }
}

/// The structure of each typed message body: every field inside, the body consumed exactly.
fn check_body(kind: u8, b: &[u8]) -> Result<(), &'static str> {
    let exact = |used: usize| {
        if used == b.len() {
            Ok(())
        } else {
            Err("trailing bytes")
        }
    };
    match kind {
        b'Q' | b'f' => exact(cstr(b)?),
        b'P' => {
            let mut at = cstr(b)?;
            at += cstr(&b[at..])?;
            let n = u16_at(b, at)?;
            exact(at + 2 + 4 * n)
        }
        b'B' => {
            let mut at = cstr(b)?;
            at += cstr(&b[at..])?;
            let nf = u16_at(b, at)?;
            at += 2;
            for i in 0..nf {
                let code = u16_at(b, at + 2 * i)?;
                if code > 1 {
                    return Err("invalid parameter format code");
                }
            }
            at += 2 * nf;
            let np = u16_at(b, at)?;
            at += 2;
            if nf > 1 && nf != np {
                return Err("parameter format codes do not match the parameters");
            }
            for _ in 0..np {
                let len = i32_at(b, at)?;
                at += 4;
                if len < -1 {
                    return Err("invalid parameter length");
                }
                if len > 0 {
                    at = at
                        .checked_add(len as usize)
                        .ok_or("invalid parameter length")?;
                    if at > b.len() {
                        return Err("truncated parameter");
                    }
                }
            }
            let nr = u16_at(b, at)?;
            at += 2;
            for i in 0..nr {
                if u16_at(b, at + 2 * i)? > 1 {
                    return Err("invalid result format code");
                }
            }
            exact(at + 2 * nr)
        }
        b'C' | b'D' => {
            match b.first() {
                Some(b'S') | Some(b'P') => {}
                _ => return Err("target must be 'S' or 'P'"),
            }
            exact(1 + cstr(&b[1..])?)
        }
        b'E' => exact(cstr(b)? + 4),
        b'H' | b'S' | b'X' | b'c' => exact(0),
        _ => Ok(()),
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for FrameGuard<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if let Some(reply) = &mut this.reply {
                while !reply.is_empty() {
                    match Pin::new(&mut this.inner).poll_write(cx, reply) {
                        Poll::Ready(Ok(0)) => {
                            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()))
                        }
                        Poll::Ready(Ok(n)) => reply.advance(n),
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => return Poll::Pending,
                    }
                }
                match Pin::new(&mut this.inner).poll_flush(cx) {
                    Poll::Ready(Ok(())) => this.reply = None,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            if let Some(message) = this.fail.take() {
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, message)));
            }
            if !this.ready.is_empty() {
                let n = out.remaining().min(this.ready.len());
                out.put_slice(&this.ready.split_to(n));
                return Poll::Ready(Ok(()));
            }
            match this.take_frame() {
                Ok(true) => continue,
                Ok(false) => {}
                Err(message) => {
                    this.reject(message);
                    continue;
                }
            }
            if this.eof || this.phase == Phase::Done {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut rb = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => {
                    if rb.filled().is_empty() {
                        this.eof = true;
                    } else {
                        this.raw.put_slice(rb.filled());
                    }
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for FrameGuard<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// A second handle on the client's socket, to notice a disconnect while a statement runs.
fn watcher(socket: &TcpStream) -> io::Result<TcpStream> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: `dup` returns a new descriptor that this function owns (or -1, checked).
    let fd = unsafe { libc::dup(socket.as_raw_fd()) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh, valid descriptor owned by the new stream.
    let std = unsafe { std::net::TcpStream::from_raw_fd(fd) };
    std.set_nonblocking(true)?;
    TcpStream::from_std(std)
}

/// Resolves when the peer has closed the connection (EOF or an error). Bytes the client has
/// already sent (pipelined messages) are left for the codec; then it looks again later.
async fn peer_gone(watch: &TcpStream) {
    let mut b = [0u8; 1];
    loop {
        match watch.peek(&mut b).await {
            Ok(0) | Err(_) => return,
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(250)).await,
        }
    }
}

/// Aborts a task when dropped (the connection's disconnect watcher ends with the connection).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the encryption negotiation ended with.
enum Negotiated {
    /// Plaintext; the first 8 bytes of the startup or cancel packet were read.
    Plain([u8; 8]),
    /// The client asked for TLS and was answered "S".
    Tls,
}

/// Answers SSL and GSS encryption requests (each at most once) until the client sends its
/// startup or cancel packet or, on "S", begins TLS.
async fn negotiate(socket: &mut TcpStream, tls: bool) -> io::Result<Negotiated> {
    let (mut ssl, mut gss) = (false, false);
    loop {
        let mut head = [0u8; 8];
        socket.read_exact(&mut head).await?;
        let len = i32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        let code = i32::from_be_bytes([head[4], head[5], head[6], head[7]]);
        match code {
            SSL_REQUEST if len == 8 && !ssl => {
                ssl = true;
                if tls {
                    socket.write_all(b"S").await?;
                    return Ok(Negotiated::Tls);
                }
                socket.write_all(b"N").await?;
            }
            GSSENC_REQUEST if len == 8 && !gss => {
                gss = true;
                socket.write_all(b"N").await?;
            }
            _ => return Ok(Negotiated::Plain(head)),
        }
    }
}

/// A connection after its encryption was negotiated.
enum Opened {
    /// TLS established.
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
    /// Plaintext, with the first 8 bytes of the startup or cancel packet.
    Plain(TcpStream, [u8; 8]),
}

/// `work` within the startup timeout.
async fn in_time<T>(
    what: &str,
    work: impl std::future::Future<Output = io::Result<T>>,
) -> io::Result<T> {
    tokio::time::timeout(STARTUP_TIMEOUT, work)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, format!("{what} timed out")))?
}

/// Negotiates encryption and, when the client asked for it and the server has it, TLS.
async fn open(mut socket: TcpStream, peer: SocketAddr, tls: Option<&Tls>) -> io::Result<Opened> {
    let negotiated = in_time("startup", negotiate(&mut socket, tls.is_some())).await?;
    match (negotiated, tls) {
        (Negotiated::Tls, Some(tls)) => {
            let stream = in_time("TLS handshake", tls.acceptor.accept(socket))
                .await
                .inspect_err(|e| tracing::info!(%peer, error = %e, "TLS handshake failed"))?;
            Ok(Opened::Tls(Box::new(stream)))
        }
        (Negotiated::Plain(head), _) => Ok(Opened::Plain(socket, head)),
        (Negotiated::Tls, None) => Err(io::ErrorKind::InvalidData.into()),
    }
}

/// Reads the rest of the startup packet whose first 8 bytes are `head` (`None`: read them
/// too), so that closing after an error does not reset the connection before the client
/// reads it.
async fn drain_startup<S: AsyncRead + Unpin>(
    stream: &mut S,
    head: Option<[u8; 8]>,
) -> io::Result<()> {
    let head = match head {
        Some(h) => h,
        None => {
            let mut h = [0u8; 8];
            stream.read_exact(&mut h).await?;
            h
        }
    };
    let len = i32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    let rest = usize::try_from(len).unwrap_or(0).clamp(8, MAX_SMALL_FRAME) - 8;
    let mut buf = vec![0u8; rest];
    stream.read_exact(&mut buf).await.map(|_| ())
}

/// Writes one FATAL error and ends the connection.
async fn fatal<S: AsyncWrite + Unpin>(stream: &mut S, code: &str, message: &str) -> io::Result<()> {
    let info = ErrorInfo::new("FATAL".into(), code.into(), message.into());
    let mut buf = BytesMut::new();
    if ErrorResponse::from(info).encode(&mut buf).is_ok() {
        stream.write_all(&buf).await?;
        stream.flush().await?;
    }
    Ok(())
}

/// Refuses a connection with a FATAL error, sent after the encryption the client asked for
/// (libpq reads an error only once SSL is settled), as PostgreSQL's "too many clients".
pub async fn refuse(
    socket: TcpStream,
    peer: SocketAddr,
    tls: Option<Arc<Tls>>,
    code: &str,
    message: &str,
) -> io::Result<()> {
    match open(socket, peer, tls.as_deref()).await? {
        Opened::Tls(mut stream) => {
            in_time("startup", drain_startup(&mut stream, None)).await?;
            fatal(&mut stream, code, message).await
        }
        Opened::Plain(mut socket, head) => {
            in_time("startup", drain_startup(&mut socket, Some(head))).await?;
            fatal(&mut socket, code, message).await
        }
    }
}

/// Serves one client connection: encryption, then the guard with pgwire's message dispatch.
pub async fn serve(
    socket: TcpStream,
    peer: SocketAddr,
    handlers: Arc<MitraHandlers>,
    tls: Option<Arc<Tls>>,
) -> io::Result<()> {
    socket.set_nodelay(true)?;
    let watch = watcher(&socket)?;
    let required = tls.as_ref().is_some_and(|t| t.mode == TlsMode::Required);
    match open(socket, peer, tls.as_deref()).await? {
        Opened::Tls(stream) => {
            let guard = FrameGuard::new(*stream, peer, &[]);
            messages(guard, peer, handlers, watch, true).await
        }
        Opened::Plain(mut socket, head) => {
            let code = i32::from_be_bytes([head[4], head[5], head[6], head[7]]);
            // Cancel requests come on their own plaintext connection (libpq before 17).
            if required && code != CANCEL_REQUEST {
                tracing::info!(%peer, "plaintext connection refused: server.tls = required");
                in_time("startup", drain_startup(&mut socket, Some(head))).await?;
                return fatal(
                    &mut socket,
                    "28000",
                    "this server accepts TLS connections only (server.tls = required): \
                     connect with sslmode=require",
                )
                .await;
            }
            let guard = FrameGuard::new(socket, peer, &head);
            messages(guard, peer, handlers, watch, false).await
        }
    }
}

/// The message loop of a connection until it ends.
async fn messages<S>(
    guard: FrameGuard<S>,
    peer: SocketAddr,
    handlers: Arc<MitraHandlers>,
    watch: TcpStream,
    secure: bool,
) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    // The disconnect is watched on its own task: a statement blocked in a synchronous wait
    // (answer_from's generation) still learns that its client is gone.
    let interrupt = handlers.interrupt.clone();
    let gone = {
        let interrupt = interrupt.clone();
        AbortOnDrop(tokio::spawn(async move {
            peer_gone(&watch).await;
            interrupt.gone();
        }))
    };
    let mut registered = None;
    let client = DefaultClient::<Prepared>::new(peer, secure);
    let mut framed = Framed::new(guard, PgWireMessageServerCodec::new(client));
    framed.set_state(PgWireConnectionState::AwaitingStartup);
    let startup = handlers.startup.clone();
    let simple = handlers.service.clone();
    let extended = handlers.service.clone();
    let copy = Arc::new(pgwire::api::NoopHandler);
    let cancel = handlers.cancel.clone();
    let errors = super::SqlStateErrors;
    let deadline = tokio::time::sleep(STARTUP_TIMEOUT);
    tokio::pin!(deadline);
    loop {
        let msg = if matches!(
            framed.state(),
            PgWireConnectionState::AwaitingStartup
                | PgWireConnectionState::AuthenticationInProgress
        ) {
            tokio::select! {
                _ = &mut deadline => None,
                msg = framed.next() => msg,
            }
        } else if let Some(idle) = handlers
            .idle_timeout
            .filter(|_| framed.transaction_status() == TransactionStatus::Idle)
        {
            // idle_session_timeout: outside a transaction block, as PostgreSQL.
            match tokio::time::timeout(idle, framed.next()).await {
                Ok(msg) => msg,
                Err(_) => {
                    tracing::info!(%peer, "closing an idle session (server.idle_session_timeout_s)");
                    let info = ErrorInfo::new(
                        "FATAL".into(),
                        "57P05".into(),
                        "terminating connection due to idle-session timeout".into(),
                    );
                    let _ = futures::SinkExt::send(
                        &mut framed,
                        pgwire::messages::PgWireBackendMessage::ErrorResponse(info.into()),
                    )
                    .await;
                    break;
                }
            }
        } else {
            framed.next().await
        };
        let msg = match msg {
            Some(Ok(msg)) => msg,
            Some(Err(e)) => {
                tracing::debug!(%peer, error = %e, "connection closed on a read error");
                break;
            }
            None => break,
        };
        if matches!(msg, PgWireFrontendMessage::Terminate(_)) {
            break;
        }
        // `ROLLBACK TO SAVEPOINT` ends the failed state of a block (pgwire keeps a failed block
        // failed whatever the response): the block is usable again before the statement runs.
        if framed.transaction_status() == TransactionStatus::Error
            && rolls_back_to_savepoint(&msg, &framed)
        {
            framed.set_transaction_status(TransactionStatus::Transaction);
        }
        let is_extended = match framed.state() {
            PgWireConnectionState::CopyInProgress(ext) => ext,
            _ => msg.is_extended_query(),
        };
        // Cancel requests name the connection by the key it was given at startup.
        if registered.is_none() && matches!(framed.state(), PgWireConnectionState::ReadyForQuery) {
            let (pid, secret) = framed.pid_and_secret_key();
            registered = Some(handlers.connections.register(pid, &secret, &interrupt));
        }
        // A statement runs while the client is still there: when it disconnects, the
        // statement's future is dropped (a generation on the language model stops with it).
        interrupt.begin();
        let processed = tokio::select! {
            r = process_message(
                msg,
                &mut framed,
                startup.clone(),
                simple.clone(),
                extended.clone(),
                copy.clone(),
                cancel.clone(),
            ) => r,
            _ = interrupt.is_gone() => {
                tracing::info!(%peer, "client disconnected during a statement; stopped it");
                break;
            }
        };
        if let Err(mut e) = processed {
            errors.on_error(&framed, &mut e);
            process_error(&mut framed, e, is_extended).await?;
        }
    }
    drop(gone);
    Ok(())
}

/// Whether a message runs `ROLLBACK TO [SAVEPOINT] name` (simple query, or Execute of a portal
/// prepared from one).
fn rolls_back_to_savepoint<S>(
    msg: &PgWireFrontendMessage,
    framed: &Framed<S, PgWireMessageServerCodec<Prepared>>,
) -> bool {
    let is_rollback_to = |sql: &str| {
        let words: Vec<String> = sql
            .split_whitespace()
            .take(3)
            .map(|w| w.to_ascii_uppercase())
            .collect();
        words.first().map(String::as_str) == Some("ROLLBACK")
            && words.iter().skip(1).any(|w| w == "TO")
    };
    match msg {
        PgWireFrontendMessage::Query(q) => is_rollback_to(&q.query),
        PgWireFrontendMessage::Execute(e) => {
            let name = e.name.as_deref().unwrap_or("");
            framed
                .portal_store()
                .get_portal(name)
                .is_some_and(|p| is_rollback_to(&p.statement.statement.0))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_must_fill_their_frames_exactly() {
        assert!(check_body(b'Q', b"SELECT 1\0").is_ok());
        assert!(check_body(b'Q', b"SELECT 1\0p\0\0\0\0").is_err());
        assert!(check_body(b'Q', b"SELECT 1").is_err());
        assert!(check_body(b'C', b"").is_err());
        assert!(check_body(b'D', b"Sname\0").is_ok());
        assert!(check_body(b'E', b"\0").is_err());
        assert!(check_body(b'E', b"\0\0\0\0\0").is_ok());
        assert!(check_body(b'S', b"x").is_err());
        // Parse: name, query, 1 type oid.
        assert!(check_body(b'P', b"\0SELECT $1\0\0\x01\0\0\0\x19").is_ok());
        assert!(check_body(b'P', b"\0SELECT $1\0\0\x02\0\0\0\x19").is_err());
        // Bind: portal, statement, 0 formats, 1 parameter of 1 byte, 0 result formats.
        assert!(check_body(b'B', b"\0\0\0\0\0\x01\0\0\0\x01x\0\0").is_ok());
        assert!(check_body(b'B', b"\0\0\0\0\0\x01\x7f\xff\xff\xffx\0\0").is_err());
        assert!(check_body(b'B', b"\0\0\0\0\0\x01\0\0\0\x01x").is_err());
        // Two format codes for three parameters.
        assert!(check_body(
            b'B',
            b"\0\0\0\x02\0\0\0\0\0\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\0\0"
        )
        .is_err());
        assert!(check_startup_parameters(b"user\0me\0\0").is_ok());
        assert!(check_startup_parameters(b"user\0me\0").is_err());
        assert!(check_startup_parameters(b"\0").is_ok());
        assert!(check_startup_parameters(b"user\0me").is_err());
    }
}
