//! Counters for `/metrics` (Prometheus text): leads stored, requests refused by reason,
//! notifications sent and failed, and the notifications still waiting. Never a name or a phone,
//! only counts.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::notice::Channel;
use crate::store::ChannelQueue;

/// Why a submit was not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// A rule of `lead::LeadInput::validate` failed, or the request was malformed.
    Invalid,
    /// Over the client's rate limit.
    RateLimited,
    /// The database could not take it (the visitor was told to retry).
    Unavailable,
}

impl Refusal {
    fn label(self) -> &'static str {
        match self {
            Refusal::Invalid => "invalid",
            Refusal::RateLimited => "rate_limited",
            Refusal::Unavailable => "unavailable",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ChannelLabel {
    channel: &'static str,
}

pub struct Metrics {
    registry: Registry,
    stored: Counter,
    repeats: Counter,
    held: Family<ReasonLabel, Counter>,
    refused: Family<ReasonLabel, Counter>,
    rate_limited: Counter,
    notifications_sent: Family<ChannelLabel, Counter>,
    notifications_failed: Family<ChannelLabel, Counter>,
    notifications_waiting: Family<ChannelLabel, Gauge>,
    notifications_oldest_waiting: Family<ChannelLabel, Gauge>,
    reminder_scans: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("zayavka");
        let stored = Counter::default();
        let refused = Family::<ReasonLabel, Counter>::default();
        let rate_limited = Counter::default();
        let repeats = Counter::default();
        let held = Family::<ReasonLabel, Counter>::default();
        registry.register(
            "leads_held",
            "Leads stored but held for review (not notified) by each reason they carry",
            held.clone(),
        );
        registry.register("leads_stored", "Leads stored (durable), repeats included", stored.clone());
        registry.register(
            "leads_repeated",
            "Of the leads stored, those from a phone first sent within the duplicate window (not notified again)",
            repeats.clone(),
        );
        registry.register(
            "leads_refused",
            "Submits that did not become a new lead, by reason",
            refused.clone(),
        );
        registry.register("requests_rate_limited", "Submits answered 429", rate_limited.clone());
        let notifications_sent = Family::<ChannelLabel, Counter>::default();
        let notifications_failed = Family::<ChannelLabel, Counter>::default();
        registry.register(
            "notifications_sent",
            "Notifications delivered, by channel",
            notifications_sent.clone(),
        );
        registry.register(
            "notifications_failed",
            "Notification attempts that failed (each is tried again), by channel",
            notifications_failed.clone(),
        );
        let notifications_waiting = Family::<ChannelLabel, Gauge>::default();
        let notifications_oldest_waiting = Family::<ChannelLabel, Gauge>::default();
        registry.register(
            "notifications_waiting",
            "Notifications not yet sent, by channel (all instances: read from the database)",
            notifications_waiting.clone(),
        );
        registry.register(
            "notifications_oldest_waiting_seconds",
            "Age of the oldest notification not yet sent, by channel (0 when none waits)",
            notifications_oldest_waiting.clone(),
        );
        let reminder_scans = Counter::default();
        registry.register(
            "reminder_scans",
            "Checks for reminders and overdue notices made by this instance (out of working hours they queue nothing)",
            reminder_scans.clone(),
        );
        Metrics {
            registry,
            stored,
            repeats,
            held,
            refused,
            rate_limited,
            notifications_sent,
            notifications_failed,
            notifications_waiting,
            notifications_oldest_waiting,
            reminder_scans,
        }
    }
}

impl Metrics {
    /// A lead stored; `repeat` when it repeats a recent lead of the same phone, `held` the
    /// reasons it was held for review (none for the call list).
    pub fn stored(&self, repeat: bool, held: &[&'static str]) {
        self.stored.inc();
        if repeat {
            self.repeats.inc();
        }
        for &reason in held {
            self.held.get_or_create(&ReasonLabel { reason }).inc();
        }
    }

    pub fn reminder_scan(&self) {
        self.reminder_scans.inc();
    }

    pub fn refused(&self, reason: Refusal) {
        self.refused.get_or_create(&ReasonLabel { reason: reason.label() }).inc();
        if reason == Refusal::RateLimited {
            self.rate_limited.inc();
        }
    }

    pub fn notification(&self, channel: Channel, delivered: bool) {
        let family = if delivered { &self.notifications_sent } else { &self.notifications_failed };
        family.get_or_create(&ChannelLabel { channel: channel.name() }).inc();
    }

    /// The outbox as the database has it now: every configured channel gets a figure (0 when
    /// nothing waits), and so does a channel no longer configured whose notifications still wait.
    /// `None` when the database could not say: the figures are left out rather than stale.
    pub fn outbox(&self, channels: &[Channel], queues: Option<&[ChannelQueue]>, now: jiff::Timestamp) {
        self.notifications_waiting.clear();
        self.notifications_oldest_waiting.clear();
        let Some(queues) = queues else { return };
        for channel in channels {
            let label = ChannelLabel { channel: channel.name() };
            self.notifications_waiting.get_or_create(&label).set(0);
            self.notifications_oldest_waiting.get_or_create(&label).set(0);
        }
        for queue in queues {
            let label = ChannelLabel { channel: queue.channel.name() };
            self.notifications_waiting.get_or_create(&label).set(queue.waiting);
            let age = queue
                .oldest_at
                .parse::<jiff::Timestamp>()
                .map_or(0, |at| now.duration_since(at).as_secs().max(0));
            self.notifications_oldest_waiting.get_or_create(&label).set(age);
        }
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry).expect("writing to a String");
        text
    }
}
