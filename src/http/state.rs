//! What every request handler shares, built once at start-up without side effects; the tasks
//! beside the requests start with `AppState::spawn_background`.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use rand::distr::Alphanumeric;

use crate::abuse::{ProofKey, SubmitLimiter, Volume};
use crate::application::hand_out::HandOuts;
use crate::application::intake::Intake;
use crate::application::{Services, figures, housekeeping};
use crate::auth::LoginLimiter;
use crate::auth::secret_key::SecretKey;
use crate::clock::Clock;
use crate::config::Settings;
use crate::metrics::Metrics;
use crate::notify::Notifier;
use crate::site::Site;
use crate::store::{InsertContext, Store};

/// Everything a request handler may need, shared by all of them. Axum clones the state for every
/// request (for each extractor and middleware that takes it), so it is one `Arc`: a clone is one
/// reference count, not one per field (the insert profile showed the field-by-field clone and
/// drop at about 5% of the CPU).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] holds.
pub struct Shared {
    pub settings: Arc<Settings>,
    pub store: Store,
    /// The store's clock: the one time of this process.
    pub clock: Clock,
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
    /// Encrypts the second-factor secrets the database keeps.
    pub secret_key: Arc<SecretKey>,
    /// Signs and checks page-load proofs; its secret is kept in the database, shared by instances.
    pub proof_key: Arc<ProofKey>,
    /// Recent submissions per client, name and proof, for the burst and reuse signals.
    pub volume: Arc<Volume>,
    /// New leads waiting to be handed out in turn.
    pub hand_outs: HandOuts,
}

impl AppState {
    /// Settles the anon key (the setting, or the one generated on first start and kept in the
    /// database) and prepares the embedded site with the settings filled in. Starts nothing:
    /// `spawn_background` does, once, for the server.
    pub async fn new(settings: Settings, store: Store) -> anyhow::Result<AppState> {
        let anon_key = match &settings.anon_key {
            Some(key) => key.clone(),
            None => store.meta_get_or_insert("anon_key", generate_anon_key).await?,
        };
        let proof_secret = store.meta_get_or_insert("proof_secret", generate_secret).await?;
        let secret_key = Arc::new(crate::auth::secret_key::settle(&settings, &store).await?);
        let clock = store.clock().clone();
        let proof_key = Arc::new(ProofKey::new(proof_secret.as_bytes()));
        let volume = Arc::new(Volume::new(proof_secret.as_bytes(), clock.clone()));
        let site = Site::build(&settings, &anon_key)?;
        let insert_context = InsertContext {
            channels: settings.notify.channels(),
            policy_version: site.policy_version.as_str().into(),
            duplicate_window: settings.duplicate_window(),
        };
        let limiter = SubmitLimiter::new(settings.rate_limit_per_minute, clock.clone()).map(Arc::new);
        let login_limiter = Arc::new(LoginLimiter::new(clock.clone()));
        let settings = Arc::new(settings);
        let metrics = Arc::new(Metrics::default());
        let notifier = Notifier::new(settings.clone(), store.clone(), metrics.clone())?;
        let hand_outs = HandOuts::start(store.clone(), settings.clone());
        Ok(AppState(Arc::new(Shared {
            settings,
            store,
            clock,
            site: Arc::new(site),
            anon_key: anon_key.into(),
            insert_context,
            limiter,
            metrics,
            idempotency_in_flight: Arc::default(),
            notifier,
            login_limiter,
            secret_key,
            proof_key,
            volume,
            hand_outs,
        })))
    }

    /// What the use cases work through, lent by this server (with its notification sender).
    pub fn services(&self) -> Services<'_> {
        Services {
            store: &self.store,
            settings: &self.settings,
            notifier: Some(&self.notifier),
            metrics: &self.metrics,
        }
    }

    /// What a submit's intake works through beside the services.
    pub fn intake(&self) -> Intake<'_> {
        Intake {
            limiter: self.limiter.as_deref(),
            volume: &self.volume,
            insert_context: &self.insert_context,
            hand_outs: &self.hand_outs,
        }
    }

    /// Starts what runs beside the requests: the notification sender and reminder scan, the
    /// hourly housekeeping, and the limiters' minutely forgetting of idle clients. The tasks end
    /// when the store closes or the state is dropped.
    pub fn spawn_background(&self) {
        self.notifier.spawn();
        housekeeping::spawn(self.store.clone(), self.settings.clone());
        figures::spawn_read_ahead(self.store.clone());
        let (limiter, login_limiter, volume, store) = (
            self.limiter.as_ref().map(Arc::downgrade),
            Arc::downgrade(&self.login_limiter),
            Arc::downgrade(&self.volume),
            self.store.clone(),
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
                    match store.forget_abuse_counts().await {
                        Ok(()) => {}
                        Err(crate::store::StoreError::Closed) => return,
                        Err(e) => tracing::warn!(error = %e, "forgetting old abuse counts"),
                    }
                }
            }
        });
    }
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
