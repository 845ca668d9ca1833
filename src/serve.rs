//! `zayavka serve`: open the store, prepare the site, listen, and shut down gracefully.
//!
//! The accept loop is our own rather than `axum::serve`, so that slow or idle clients cannot take
//! the server down: each connection must send a whole request head within the header timeout (of
//! opening, or of its previous answer: the keep-alive idle limit), a request body is cut off with
//! the request at `http::REQUEST_TIME_LIMIT`, and at most `max_connections` are open at once. At the
//! cap, the connection that has waited longest without being answered is closed to make room (one
//! that has not yet sent a whole request head before one idle after an answer), so a visitor who
//! sends a request is served however many silent connections a stranger opens.
//!
//! One client address (an IPv6 /64 is one) holds at most `CONNECTIONS_PER_CLIENT`: beyond, its own
//! oldest waiting connection makes room, so one stranger cannot push everybody else out. Behind a
//! reverse proxy the peer is the proxy, which carries everybody: a peer in `ZAYAVKA_TRUSTED_PROXIES`
//! is not capped per address (the client's address is in a header not yet read when the connection
//! opens); limiting connections per client is then the proxy's work (nginx's `limit_conn`).

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use crate::abuse::bucket_of;
use crate::app::{AppState, app};
use crate::auth;
use crate::config::Settings;
use crate::store::Store;

/// How long in-flight requests may take to finish after a shutdown signal.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Open files kept for everything but visitors' connections: the database (SQLite's files or
/// PostgreSQL's pool), notification clients, the runtime, the listener, the log.
const RESERVED_FILES: u64 = 128;

/// How long the accept loop waits before trying again after the system refused a connection
/// (out of file descriptors or memory), and before asking another connection to make room when
/// the one asked got a request meanwhile.
const RETRY_AFTER: Duration = Duration::from_millis(100);

/// Connections one client address may hold at once: a browser opens six, but a carrier's shared
/// address (CGNAT) or an office behind one router has many visitors, whose requests can all be
/// waiting to be read at one busy moment (200 at once from one address in `tests/storage_faults.rs`
/// must all be answered); no one needs thousands.
pub const CONNECTIONS_PER_CLIENT: usize = 512;

/// The largest request head taken (hyper's read buffer): headers are a few hundred bytes, and at
/// thousands of connections hyper's default of 400 KB each would be gigabytes.
const MAX_HEAD_BYTES: usize = 64 * 1024;

pub async fn serve(settings: Settings) -> anyhow::Result<()> {
    let listen = settings.listen;
    let max_connections = connection_cap(settings.max_connections);
    let mut http = http1::Builder::new();
    // hyper's header timeout runs from a connection's start and again after each answer, so it is
    // also the keep-alive idle limit.
    http.timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(settings.header_timeout_seconds.into()))
        .max_buf_size(MAX_HEAD_BYTES)
        .keep_alive(true);
    let trusted_proxies = settings.trusted_proxies.clone();
    let store = Store::open(&settings.database_url).await?;
    let public_url = settings.public_url.clone();
    let state = AppState::new(settings, store.clone()).await?;
    let listener = bind(listen, max_connections).with_context(|| format!("cannot listen on {listen}"))?;
    // The bound address, not the setting: with port 0 the system picks a free port, and this line
    // is how the operator (and the tests) learn which.
    let address = listener.local_addr().context("cannot read the listening address")?;
    let stop = shutdown_signal().context("cannot listen for shutdown signals")?;
    // Only a server that starts is the one the commands are to agree with.
    crate::application::server_settings::record(&store, &state.settings).await?;
    // The chores start once the server can serve: a start that fails stops before any of them
    // runs (and logs beside its one error line).
    state.spawn_background();
    tracing::info!(%address, max_connections, "zayavka is serving on http://{address}");
    offer_setup(&store, &public_url, address).await;

    let server = Server {
        router: app(state),
        http,
        places: Arc::new(Semaphore::new(max_connections)),
        connections: Arc::default(),
        trusted_proxies,
    };
    server.accept_until(listener, stop).await;
    tracing::info!("shutting down: finishing requests in flight");
    if !server.drain(max_connections).await {
        tracing::warn!("requests still running after {DRAIN_TIMEOUT:?}; stopping anyway");
    }
    store.close().await;
    tracing::info!("stopped; database closed");
    Ok(())
}

/// Listens with room in the system's queue for as many connections as the server holds (the
/// system may allow fewer: `net.core.somaxconn`). tokio's `bind` asks for 1024: when thousands of
/// connections arrive at once, a full queue drops a visitor's first packet, and the retry comes a
/// second later.
fn bind(address: SocketAddr, max_connections: usize) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    // As `TcpListener::bind`: a restart can listen again while old connections linger.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(u32::try_from(max_connections).unwrap_or(u32::MAX).max(1024))
}

/// First start: while no operator account exists, says how to create the first one, with a fresh
/// one-time setup link (the database keeps only its hash, so any instance sharing it accepts it).
async fn offer_setup(store: &Store, public_url: &str, address: SocketAddr) {
    let token = auth::new_token();
    let expires_at = store.clock().now() + auth::SETUP_LINK_LIFETIME;
    match store.offer_setup(auth::token_hash(&token), expires_at).await {
        Ok(false) => {}
        Ok(true) => {
            let base = match public_url.trim_end_matches('/') {
                "" => format!("http://{address}"),
                url => url.to_owned(),
            };
            tracing::info!(
                "no operator account yet: to create the first one, open {base}/admin/setup?token={token} \
                 (works once, for an hour, from this machine or over HTTPS) or run `zayavka admin add-user EMAIL`"
            );
        }
        Err(error) => tracing::warn!(%error, "cannot check for operator accounts"),
    }
}

/// The connection cap: the setting, lowered if the open-file limit leaves less room. The soft
/// limit is raised to the hard one first: many systems start services at a soft 1024.
fn connection_cap(wanted: u32) -> usize {
    let files = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(error) => {
            tracing::warn!(%error, "cannot raise the open-file limit");
            rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(u64::MAX, |(soft, _)| soft)
        }
    };
    let room = files.saturating_sub(RESERVED_FILES).max(1);
    if u64::from(wanted) > room {
        tracing::warn!(
            "ZAYAVKA_MAX_CONNECTIONS is {wanted}, but the open-file limit ({files}) leaves room for \
             {room}: serving at most {room} connections at once"
        );
        return usize::try_from(room).unwrap_or(usize::MAX);
    }
    wanted as usize
}

struct Server {
    router: Router,
    http: http1::Builder,
    /// One permit per connection that may be open.
    places: Arc<Semaphore>,
    connections: Arc<Connections>,
    /// Peers that carry many clients' connections: not capped per address.
    trusted_proxies: Vec<ipnet::IpNet>,
}

impl Server {
    /// Accepts connections until `stop` finishes. Never gives up: a refused accept (out of file
    /// descriptors) is retried shortly, logged once per burst.
    async fn accept_until(&self, listener: TcpListener, stop: impl Future<Output = ()>) {
        let mut stop = std::pin::pin!(stop);
        let mut refused = 0_u64;
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut stop => return,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                // The client gave up before it was taken; nothing is wrong here.
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => {
                    if refused == 0 {
                        tracing::warn!(%error, "cannot accept connections; retrying until it works again");
                    }
                    refused += 1;
                    // An idle connection's descriptor is better spent on someone who is asking.
                    self.connections.ask_idlest_to_close(None);
                    tokio::select! {
                        () = tokio::time::sleep(RETRY_AFTER) => continue,
                        () = &mut stop => return,
                    }
                }
            };
            if refused > 0 {
                tracing::info!(refused, "accepting connections again");
                refused = 0;
            }
            let client = capped_client(peer.ip(), &self.trusted_proxies);
            let at_its_cap =
                client.filter(|&client| self.connections.held_by(client) >= CONNECTIONS_PER_CLIENT);
            // Its own oldest waiting connection makes room; if all of its connections are being
            // answered, this one is not taken.
            if at_its_cap.is_some() && !self.connections.ask_idlest_to_close(at_its_cap) {
                continue;
            }
            let made_room = at_its_cap.is_some();
            let place = tokio::select! {
                place = self.make_room(made_room) => place,
                () = &mut stop => return,
            };
            self.spawn_connection(stream, peer, client, place);
        }
    }

    /// A place for one more connection. At the cap, asks the connection that has waited longest
    /// without being answered to close; if every connection is being answered (each is cut off at
    /// the request time limit), waits for one to finish while new ones wait in the listen queue.
    /// `asked` when a connection has just been asked to close for this one (the client's own).
    async fn make_room(&self, mut asked: bool) -> OwnedSemaphorePermit {
        loop {
            if let Ok(place) = self.places.clone().try_acquire_owned() {
                return place;
            }
            if !std::mem::take(&mut asked) {
                self.connections.ask_idlest_to_close(None);
            }
            tokio::select! {
                place = self.places.clone().acquire_owned() => return place.expect("never closed"),
                // The connection asked got a request meanwhile and stays: ask the next one.
                () = tokio::time::sleep(RETRY_AFTER) => {}
            }
        }
    }

    fn spawn_connection(
        &self,
        stream: TcpStream,
        peer: SocketAddr,
        client: Option<IpAddr>,
        place: OwnedSemaphorePermit,
    ) {
        // Answers are small and whole: send each at once.
        let _ = stream.set_nodelay(true);
        let (id, slot) = self.connections.open(client);
        let connections = self.connections.clone();
        let router = self.router.clone();
        let service_slot = slot.clone();
        let service = hyper::service::service_fn(move |request| {
            answer(router.clone(), request, peer, service_slot.clone())
        });
        let connection = self.http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            loop {
                tokio::select! {
                    ended = connection.as_mut() => {
                        if let Err(error) = ended {
                            tracing::debug!(%error, "connection ended");
                        }
                        break;
                    }
                    () = slot.close.notified() => {
                        // Nothing owed to the client: drop the connection at once. This task is
                        // the only one that runs requests on it, so none can start in between.
                        // Still marked as asked, so that it is not asked twice while it closes.
                        if slot.answering.load(Ordering::SeqCst) == 0 {
                            break;
                        }
                        slot.asked.store(false, Ordering::SeqCst);
                        if slot.stopping.load(Ordering::SeqCst) {
                            // Finish the answer being prepared, then close.
                            connection.as_mut().graceful_shutdown();
                        }
                    }
                }
            }
            connections.close(id);
            drop(place);
        });
    }

    /// Stops every connection: idle ones at once, the others after their answer. True when all
    /// had closed within the drain timeout.
    async fn drain(&self, max_connections: usize) -> bool {
        self.connections.stop_all();
        let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
        tokio::time::timeout(DRAIN_TIMEOUT, self.places.acquire_many(all)).await.is_ok()
    }
}

/// The address a connection counts against (an IPv6 /64 is one), or `None` for a trusted proxy's.
fn capped_client(peer: IpAddr, trusted_proxies: &[ipnet::IpNet]) -> Option<IpAddr> {
    let trusted = trusted_proxies.iter().any(|proxy| proxy.contains(&peer));
    (!trusted).then(|| bucket_of(peer))
}

/// Runs one request through the app, keeping account of when the server owes the client an
/// answer, and with the peer's address where `ConnectInfo` finds it.
async fn answer(
    router: Router,
    request: hyper::Request<Incoming>,
    peer: SocketAddr,
    slot: Arc<Slot>,
) -> Result<axum::response::Response, std::convert::Infallible> {
    slot.sent_a_head.store(true, Ordering::SeqCst);
    let owed = Arc::new(Owed { slot, counted: AtomicBool::new(false) });
    if request.body().is_end_stream() {
        owed.count();
    }
    let mut request = request.map(|body| Body::new(Watched { body, owed: owed.clone() }));
    request.extensions_mut().insert(ConnectInfo(peer));
    let response = router.oneshot(request).await?;
    owed.count();
    Ok(response.map(|body| Body::new(Watched { body, owed })))
}

/// The open connections, by the order they were accepted.
#[derive(Default)]
struct Connections {
    open: Mutex<Open>,
    next_id: std::sync::atomic::AtomicU64,
}

#[derive(Default)]
struct Open {
    by_age: BTreeMap<u64, Arc<Slot>>,
    /// The same, by capped client address.
    by_client: HashMap<IpAddr, BTreeMap<u64, Arc<Slot>>>,
}

/// What the accept loop knows of one connection.
#[derive(Default)]
struct Slot {
    /// The address it counts against; `None` for a trusted proxy's.
    client: Option<IpAddr>,
    /// A whole request head has arrived on it: a client that asks, kept before one that has not.
    sent_a_head: AtomicBool,
    /// Requests that have arrived whole (or been answered early) and whose answer is not yet
    /// written: while above zero the connection is not closed to make room.
    answering: AtomicUsize,
    /// Wakes the connection's task to close it (when nothing is owed) or, when stopping, to finish.
    close: Notify,
    /// Asked to close and not yet woken: not asked twice.
    asked: AtomicBool,
    stopping: AtomicBool,
}

impl Connections {
    fn open(&self, client: Option<IpAddr>) -> (u64, Arc<Slot>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot { client, ..Slot::default() });
        let mut open = self.open.lock().expect("not poisoned");
        open.by_age.insert(id, slot.clone());
        if let Some(client) = client {
            open.by_client.entry(client).or_default().insert(id, slot.clone());
        }
        (id, slot)
    }

    fn close(&self, id: u64) {
        let mut open = self.open.lock().expect("not poisoned");
        let Some(client) = open.by_age.remove(&id).and_then(|slot| slot.client) else { return };
        let Some(held) = open.by_client.get_mut(&client) else { return };
        held.remove(&id);
        if held.is_empty() {
            open.by_client.remove(&client);
        }
    }

    /// Connections open from `client`.
    fn held_by(&self, client: IpAddr) -> usize {
        self.open.lock().expect("not poisoned").by_client.get(&client).map_or(0, BTreeMap::len)
    }

    /// Asks the oldest connection (of `client`, or of anyone) that is owed nothing (idle, sending
    /// its head, or sending a body) to close: one that has not yet sent a whole request head if
    /// there is one, for a client who has asked something is more likely a person. Oldest first:
    /// every connection gets as long as possible to ask. False when there was none to ask.
    fn ask_idlest_to_close(&self, client: Option<IpAddr>) -> bool {
        let open = self.open.lock().expect("not poisoned");
        let among = match client {
            Some(client) => open.by_client.get(&client),
            None => Some(&open.by_age),
        };
        let Some(among) = among else { return false };
        let owed_nothing = |slot: &&Arc<Slot>| {
            slot.answering.load(Ordering::SeqCst) == 0 && !slot.asked.load(Ordering::SeqCst)
        };
        let idlest = among
            .values()
            .filter(owed_nothing)
            .find(|slot| !slot.sent_a_head.load(Ordering::SeqCst))
            .or_else(|| among.values().find(owed_nothing));
        let Some(slot) = idlest else { return false };
        slot.asked.store(true, Ordering::SeqCst);
        slot.close.notify_one();
        true
    }

    fn stop_all(&self) {
        for slot in self.open.lock().expect("not poisoned").by_age.values() {
            slot.stopping.store(true, Ordering::SeqCst);
            slot.close.notify_one();
        }
    }
}

/// One request's debt: counted on its connection from when the request has arrived whole (or
/// its answer is ready, if the app did not read it all) until the answer has been written.
struct Owed {
    slot: Arc<Slot>,
    counted: AtomicBool,
}

impl Owed {
    fn count(&self) {
        if !self.counted.swap(true, Ordering::SeqCst) {
            self.slot.answering.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Drop for Owed {
    fn drop(&mut self) {
        if *self.counted.get_mut() {
            self.slot.answering.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A request or response body that keeps its request's `Owed` alive and counts it once the body
/// has ended (for a request: it has arrived whole).
struct Watched<B> {
    body: B,
    owed: Arc<Owed>,
}

impl<B: HttpBody + Unpin> HttpBody for Watched<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.body.is_end_stream() {
            self.owed.count();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}

/// Ctrl-C and SIGTERM, listened for from the moment this is called: before the "serving on" line,
/// so that a signal sent as soon as the server says it serves stops it gracefully rather than
/// killing it (the default action of a signal nobody listens for yet).
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = terminate.recv() => {},
                _ = interrupt.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_count_against_the_client_s_v4_address_or_v6_64_and_never_a_trusted_proxy_s() {
        let trusted: Vec<ipnet::IpNet> = vec!["10.0.0.0/8".parse().unwrap(), "fd00::1/128".parse().unwrap()];
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        assert_eq!(capped_client(ip("203.0.113.7"), &trusted), Some(ip("203.0.113.7")));
        assert_eq!(capped_client(ip("2001:db8:1:2:aaaa::1"), &trusted), Some(ip("2001:db8:1:2::")));
        assert_eq!(capped_client(ip("2001:db8:1:2:bbbb::9"), &trusted), Some(ip("2001:db8:1:2::")));
        assert_eq!(capped_client(ip("::ffff:203.0.113.7"), &trusted), Some(ip("203.0.113.7")));
        assert_eq!(capped_client(ip("10.1.2.3"), &trusted), None);
        assert_eq!(capped_client(ip("fd00::1"), &trusted), None);
        assert_eq!(capped_client(ip("fd00::2"), &trusted), Some(ip("fd00::")), "only the proxy itself");
    }
}
