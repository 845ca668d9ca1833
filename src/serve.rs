//! `zayavka serve`: open the store, prepare the site, listen, and shut down gracefully.

use std::time::Duration;

use anyhow::Context;

use crate::app::{AppState, app};
use crate::config::Settings;
use crate::store::Store;

/// How long in-flight requests may take to finish after a shutdown signal.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn serve(settings: Settings) -> anyhow::Result<()> {
    let listen = settings.listen;
    let store = Store::open(&settings.database_url).await?;
    let state = AppState::new(settings, store.clone()).await?;
    let listener =
        tokio::net::TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
    // The bound address, not the setting: with port 0 the system picks a free port, and this line
    // is how the operator (and the tests) learn which.
    let address = listener.local_addr().context("cannot read the listening address")?;
    tracing::info!(%address, "zayavka is serving on http://{address}");

    let (draining_tx, draining_rx) = tokio::sync::oneshot::channel::<()>();
    let service = app(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
    let server = axum::serve(listener, service).with_graceful_shutdown(async move {
        shutdown_signal().await;
        tracing::info!("shutting down: finishing requests in flight");
        let _ = draining_tx.send(());
    });
    let server = tokio::spawn(async move { server.await });
    // Wait for the server to finish, but after a signal no longer than the drain timeout.
    let drained = async {
        let _ = draining_rx.await;
        tokio::time::sleep(DRAIN_TIMEOUT).await;
    };
    tokio::select! {
        result = server => result.context("the server task failed")?.context("serving failed")?,
        () = drained => tracing::warn!("requests still running after {DRAIN_TIMEOUT:?}; stopping anyway"),
    }
    store.close().await;
    tracing::info!("stopped; database closed");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
