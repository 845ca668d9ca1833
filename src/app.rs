//! The application as a function: `app(state) -> Router`. `main.rs` and the tests call the same.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{Request, StatusCode};
use rand::Rng;
use rand::distr::Alphanumeric;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::abuse::{ProofKey, SubmitLimiter, Volume};
use crate::auth::LoginLimiter;
use crate::config::Settings;
use crate::http::{admin, client, form, health, pages, proof, rest, security};
use crate::metrics::Metrics;
use crate::notify::Notifier;
use crate::site::Site;
use crate::store::{InsertContext, Store};

/// Everything a request handler may need, shared by all of them.
#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub site: Arc<Site>,
    /// The public key the site's one call must send as `apikey`.
    pub anon_key: Arc<str>,
    pub insert_context: InsertContext,
    /// `None` when rate limiting is off.
    pub limiter: Option<Arc<SubmitLimiter>>,
    pub metrics: Arc<Metrics>,
    /// `Idempotency-Key`s of inserts this instance is still working on.
    pub idempotency_in_flight: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// Sends the notifications the inserts queue.
    pub notifier: Arc<Notifier>,
    pub login_limiter: Arc<LoginLimiter>,
    /// Signs and checks page-load proofs; its secret is kept in the database, shared by instances.
    pub proof_key: Arc<ProofKey>,
    /// Recent submissions per client, name and proof, for the burst and reuse signals.
    pub volume: Arc<Volume>,
}

impl AppState {
    /// Settles the anon key (the setting, or the one generated on first start and kept in the
    /// database) and prepares the embedded site with the settings filled in.
    pub async fn new(settings: Settings, store: Store) -> anyhow::Result<AppState> {
        let anon_key = match &settings.anon_key {
            Some(key) => key.clone(),
            None => store.meta_get_or_insert("anon_key", generate_anon_key).await?,
        };
        let proof_secret = store.meta_get_or_insert("proof_secret", generate_secret).await?;
        let proof_key = Arc::new(ProofKey::new(proof_secret.as_bytes()));
        let volume = Arc::new(Volume::default());
        let site = Site::build(&settings, &anon_key)?;
        let insert_context = InsertContext {
            channels: crate::notify::configured_channels(&settings),
            policy_version: site.policy_version.as_str().into(),
            duplicate_window: (settings.duplicate_window_hours > 0)
                .then(|| Duration::from_secs(u64::from(settings.duplicate_window_hours) * 3600)),
        };
        spawn_housekeeping(store.clone(), settings.retention_days, settings.hold_days);
        let limiter = SubmitLimiter::new(settings.rate_limit_per_minute).map(Arc::new);
        let login_limiter = Arc::new(LoginLimiter::default());
        {
            let (limiter, login_limiter, volume) = (
                limiter.as_ref().map(Arc::downgrade),
                Arc::downgrade(&login_limiter),
                Arc::downgrade(&volume),
            );
            tokio::spawn(async move {
                let mut every_minute = tokio::time::interval(Duration::from_secs(60));
                while let Some(login_limiter) = {
                    every_minute.tick().await;
                    login_limiter.upgrade()
                } {
                    login_limiter.forget_idle();
                    if let Some(volume) = volume.upgrade() {
                        volume.forget_idle();
                    }
                    if let Some(limiter) = limiter.as_ref().and_then(std::sync::Weak::upgrade) {
                        limiter.forget_idle();
                    }
                }
            });
        }
        let settings = Arc::new(settings);
        let metrics = Arc::new(Metrics::default());
        let notifier = Notifier::new(settings.clone(), store.clone(), metrics.clone())?;
        notifier.spawn();
        Ok(AppState {
            settings,
            store,
            site: Arc::new(site),
            anon_key: anon_key.into(),
            insert_context,
            limiter,
            metrics,
            idempotency_in_flight: Arc::default(),
            notifier,
            login_limiter,
            proof_key,
            volume,
        })
    }
}

/// Hourly chores (the first at start): delete leads past the retention period and held leads
/// nobody released in `hold_days`, forget `Idempotency-Key`s past their window and expired sessions.
fn spawn_housekeeping(store: Store, retention_days: u32, hold_days: u32) {
    tokio::spawn(async move {
        let mut every_hour = tokio::time::interval(Duration::from_secs(3600));
        loop {
            every_hour.tick().await;
            let now = jiff::Timestamp::now();
            let cutoff = now - jiff::SignedDuration::from_hours(24 * i64::from(retention_days));
            match store.purge_leads(cutoff).await {
                Ok(0) => {}
                Ok(purged) => {
                    tracing::info!(purged, retention_days, "leads past the retention period deleted")
                }
                Err(crate::store::StoreError::Closed) => return,
                Err(e) => tracing::warn!(error = %e, "deleting leads past the retention period"),
            }
            let held_cutoff = now - jiff::SignedDuration::from_hours(24 * i64::from(hold_days));
            match store.purge_held(held_cutoff).await {
                Ok(0) => {}
                Ok(purged) => tracing::info!(purged, hold_days, "held leads nobody released deleted"),
                Err(crate::store::StoreError::Closed) => return,
                Err(e) => tracing::warn!(error = %e, "deleting held leads past their days"),
            }
            let chores = async {
                store.purge_idempotency_keys(now - crate::store::IDEMPOTENCY_WINDOW).await?;
                store.purge_sessions(now).await
            };
            match chores.await {
                Ok(_) => {}
                Err(crate::store::StoreError::Closed) => return,
                Err(e) => tracing::warn!(error = %e, "purging old idempotency keys and sessions"),
            }
        }
    });
}

/// 256 random bits, hex: the page-load proofs' key.
fn generate_secret() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn generate_anon_key() -> String {
    let random: String = rand::rng().sample_iter(&Alphanumeric).take(40).map(char::from).collect();
    format!("zk_anon_{random}")
}

pub fn app(state: AppState) -> Router {
    let policy = security::content_policy(&state.settings, &state.site.style_hashes);
    let panic_state = state.clone();
    let timeout_state = state.clone();

    let mut router = Router::new()
        .merge(rest::router())
        .merge(form::router())
        .merge(health::router())
        .merge(proof::router())
        .merge(admin::router())
        .merge(pages::router())
        .route("/metrics", axum::routing::get(metrics))
        .layer(axum::middleware::from_fn_with_state(state.clone(), client::identify))
        .with_state(state)
        // Layers wrap inside-out: a request running too long is cut off and a panic becomes the
        // error page, then every answer (those too) gets the security headers, then the whole
        // exchange is traced.
        .layer(axum::middleware::from_fn_with_state(timeout_state, time_limit))
        .layer(CatchPanicLayer::custom(move |_| pages::error_page(&panic_state)));
    for layer in security::layers(&policy) {
        router = router.layer(layer);
    }
    router
        .layer(
            // Only method and path: a query string or a body could carry a visitor's name or phone.
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<_>| {
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
                })
                .on_request(())
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
}

/// How long a request may take, from its first byte to the answer: a stalled upload or a stuck
/// handler must not hold a connection for ever.
pub const REQUEST_TIME_LIMIT: Duration = Duration::from_secs(30);

/// Cuts off a request at `REQUEST_TIME_LIMIT` with an answer its client can read: PostgREST's JSON
/// on the API (supabase-js shows an empty body as an empty message), the error page elsewhere (a
/// visitor without JavaScript would otherwise see a blank page). A lead whose write had already
/// started may still be stored; sending it again is then caught as a duplicate.
async fn time_limit(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let api = request.uri().path().starts_with("/rest/");
    match tokio::time::timeout(REQUEST_TIME_LIMIT, next.run(request)).await {
        Ok(response) => response,
        Err(_) if api => crate::error::ApiError::TimedOut.into_response(),
        Err(_) => {
            let mut page = pages::error_page(&state);
            *page.status_mut() = StatusCode::REQUEST_TIMEOUT;
            page
        }
    }
}

/// Prometheus text: counts only, never a name or a phone. The outbox figures are read at each
/// scrape, so every instance reports the queue they share.
async fn metrics(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> impl axum::response::IntoResponse {
    let queues = state
        .store
        .outbox_queues()
        .await
        .inspect_err(|e| tracing::warn!(error = %e, "metrics: reading the notification queue"))
        .ok();
    let channels = crate::notify::configured_channels(&state.settings);
    state.metrics.outbox(&channels, queues.as_deref(), jiff::Timestamp::now());
    (
        [(axum::http::header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
        state.metrics.render(),
    )
}
