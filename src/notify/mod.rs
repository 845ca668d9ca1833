//! Notifications: every new lead (and each reminder of the 48-hour deadline) reaches the operators
//! through each configured channel — Telegram, a webhook, e-mail.
//!
//! Delivery is durable: the lead's insert writes one outbox row per channel in the same
//! transaction, and a sender task here claims due rows (several instances never claim the same
//! row), sends them, and marks them sent or schedules a retry with backoff. Rows hold only the
//! lead's id; the message is made when it is sent (without personal data unless
//! `ZAYAVKA_NOTIFY_INCLUDE_PII` is on), so an erased lead has nothing left in the queue.
//! A periodic scan queues the deadline notices, the escalations and the call-backs whose time
//! came, and reports a channel that keeps failing through the others (`watch`).

mod email;
mod message;
mod notices;
mod telegram;
mod watch;
mod webhook;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use tokio::sync::Notify;

use crate::calendar::{Calendar, RISK_AFTER_REOPENING};
use crate::clock::Clock;
use crate::config::Settings;
use crate::inbox::LeadRecord;
use crate::metrics::Metrics;
use crate::notice::{Channel, Event};
use crate::store::{Delivery, OutboxJob, Store, StoreError};

pub use message::{About, Message};
pub use watch::{ChannelTurn, FAILING_FOR, FAILING_TRIES, tell_call_backs, watch_channels};

/// A claimed row is this sender's for this long; if it dies, another sender takes the row after.
const LEASE: SignedDuration = SignedDuration::from_mins(2);
/// The longest one send may take (SMTP's steps each have their own timeout and can add up): well
/// inside the lease.
const SEND_LIMIT: Duration = Duration::from_secs(90);
/// How often the queue is looked at when nothing wakes the sender (retries, other instances' rows).
const POLL: Duration = Duration::from_secs(2);
/// Sends running at once, across channels.
const IN_FLIGHT: usize = 16;
/// The longest a sender's turn waits for half its sends to finish, beside sends that hang: the
/// delay a hanging channel can add to the next lead's notifications.
const TURN_WAIT: Duration = Duration::from_millis(250);
/// Retries wait 5 s, 10 s, 20 s… up to this, so a channel back after an outage gets its
/// backlog within minutes.
const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// After a failed send its channel rests this long. While every channel rests (the one channel of
/// most deployments is down), the queue is not read: the leads that keep coming wait in the outbox
/// instead of each failing on its own (a send, a log line and a write apiece, thousands a second
/// under load). Short, so that one lead a channel refuses holds back the others only briefly, and
/// a channel that is back gets its backlog at once.
const FAILURE_PAUSE: Duration = Duration::from_secs(1);

/// Why a send failed, and when the channel asked to be tried again (Telegram's `retry_after`,
/// an HTTP `Retry-After`).
#[derive(Debug)]
pub struct SendError {
    pub reason: String,
    pub retry_after: Option<Duration>,
}

impl SendError {
    fn new(reason: impl Into<String>) -> SendError {
        SendError { reason: reason.into(), retry_after: None }
    }
}

/// The sender: wakes on each new lead, and polls for retries and other instances' rows.
pub struct Notifier {
    settings: Arc<Settings>,
    store: Store,
    /// The store's clock: what is due, when a rest ends, a retry's time.
    clock: Clock,
    metrics: Arc<Metrics>,
    http: reqwest::Client,
    email: Option<email::Mailer>,
    wake: Notify,
    /// Wakes the sender of notices not about a lead.
    wake_notices: Notify,
    /// Channels left alone for a while: as long as they asked (Telegram's flood control,
    /// `Retry-After`), their other rows wait too, rather than each collecting its own refusal;
    /// after a failure they rest (`FAILURE_PAUSE`).
    paused: Mutex<HashMap<Channel, Pause>>,
}

/// Until when a channel is left alone, and whether it asked to be.
#[derive(Clone, Copy)]
struct Pause {
    until: Timestamp,
    asked: bool,
}

impl Notifier {
    pub fn new(
        settings: Arc<Settings>,
        store: Store,
        metrics: Arc<Metrics>,
    ) -> anyhow::Result<Arc<Notifier>> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(15))
            .connect_timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("zayavka/", env!("CARGO_PKG_VERSION")))
            .build()?;
        let email = settings.notify.email.as_ref().map(email::Mailer::new).transpose()?;
        Ok(Arc::new(Notifier {
            settings,
            clock: store.clock().clone(),
            store,
            metrics,
            http,
            email,
            wake: Notify::new(),
            wake_notices: Notify::new(),
            paused: Mutex::default(),
        }))
    }

    /// Starts the senders and the scan when a channel is configured; without one, the scan alone
    /// when escalation is on (its mark shows in the inbox).
    pub fn spawn(self: &Arc<Self>) {
        if self.settings.notify.channels().is_empty() {
            // Nothing to send, but the inbox still marks the leads nobody called in time.
            if self.settings.escalate_after.is_some() {
                tokio::spawn(self.clone().scan_loop());
            }
            return;
        }
        if self.settings.public_url.is_empty() {
            tracing::warn!(
                "ZAYAVKA_PUBLIC_URL is not set: notifications link to the inbox by path only, which \
                 Telegram and mail clients cannot open"
            );
        }
        tokio::spawn(self.clone().send_loop());
        tokio::spawn(self.clone().notice_loop());
        tokio::spawn(self.clone().scan_loop());
    }

    /// A lead was stored: send its notifications now rather than at the next poll.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// An admin asked for `channel`'s waiting notification to be sent again: the channel's rest
    /// ends (the admin has mended it, or wants to see whether it works now) and it is tried now.
    pub fn send_again(&self, channel: Channel) {
        self.paused.lock().unwrap_or_else(|e| e.into_inner()).remove(&channel);
        self.wake();
    }

    /// A notice not about a lead was queued: send it now rather than at the next poll.
    pub fn wake_notices(&self) {
        self.wake_notices.notify_one();
    }

    /// Sends one message on one channel, within `SEND_LIMIT`.
    async fn deliver(&self, channel: Channel, message: &Message) -> Result<(), SendError> {
        let send = async {
            match channel {
                Channel::Telegram => {
                    telegram::send(&self.http, self.settings.notify.telegram.as_ref(), message).await
                }
                Channel::Webhook => {
                    webhook::send(
                        &self.http,
                        self.settings.notify.webhook.as_ref(),
                        message,
                        self.clock.now(),
                    )
                    .await
                }
                Channel::Email => match &self.email {
                    Some(mailer) => mailer.send(message).await,
                    None => Err(SendError::new("e-mail is not configured")),
                },
            }
        };
        // A send that outlives its claim could be claimed and sent again by another sender.
        tokio::time::timeout(SEND_LIMIT, send)
            .await
            .unwrap_or_else(|_| Err(SendError::new("no answer within the time allowed for a send")))
    }

    /// Claims due rows while fewer than `IN_FLIGHT` sends are running, so one channel that hangs
    /// (until its timeout) never holds back the others or the next lead. A turn records how the
    /// finished sends went, claims the next rows and reads their leads: a write and a read for
    /// many notifications, where a turn a notification made the outbox the database writer's
    /// second customer. So a turn waits until half the sends have finished, or `TURN_WAIT` beside
    /// sends that hang; with room for half of them or more (a quiet day) it comes at once.
    async fn send_loop(self: Arc<Self>) {
        let channels = self.settings.notify.channels();
        let mut sends = tokio::task::JoinSet::new();
        let mut finished = Vec::new();
        let mut last_turn = tokio::time::Instant::now();
        // A new lead, or the poll: rows may be due that no turn has looked for yet.
        let mut pending = true;
        loop {
            while let Some(outcome) = sends.try_join_next() {
                finished.extend(outcome.ok().flatten());
            }
            let room = IN_FLIGHT.saturating_sub(sends.len());
            if room >= IN_FLIGHT / 2
                || (waiting(&finished, pending, room) && last_turn.elapsed() >= TURN_WAIT)
            {
                pending = false;
                let Ok(claimed) = self.turn(&mut finished, room, &channels).await else {
                    return;
                };
                last_turn = tokio::time::Instant::now();
                for (job, lead) in claimed {
                    let notifier = self.clone();
                    sends.spawn(async move { notifier.send_one(job, lead).await });
                }
            }
            // Wait for a new lead, a send to finish (room again), a pause's end, the next poll, or
            // the end of a turn's wait beside hanging sends.
            let room = IN_FLIGHT.saturating_sub(sends.len());
            let look = if room < IN_FLIGHT / 2 && waiting(&finished, pending, room) {
                self.next_look().min(TURN_WAIT.saturating_sub(last_turn.elapsed()))
            } else {
                self.next_look()
            };
            tokio::select! {
                _ = self.wake.notified() => pending = true,
                _ = tokio::time::sleep(look) => pending = true,
                Some(outcome) = sends.join_next(), if !sends.is_empty() => finished.extend(outcome.ok().flatten()),
            }
        }
    }

    /// One turn of the sender: records `finished` (emptied once written) and claims up to `room`
    /// due rows, then reads their leads in one read (`None` for a lead erased meanwhile). `Err`
    /// only when the store is closed.
    async fn turn(
        &self,
        finished: &mut Vec<Delivery>,
        room: usize,
        channels: &[Channel],
    ) -> Result<Vec<(OutboxJob, Option<LeadRecord>)>, StoreError> {
        let claimable = self.claimable(channels);
        let now = self.clock.now();
        // Kept until written: recording an outcome twice does no harm, losing one sends it twice.
        let jobs =
            match self.store.claim_outbox(finished.clone(), now, now + LEASE, room as u32, claimable).await {
                Ok(jobs) => {
                    finished.clear();
                    jobs
                }
                Err(StoreError::Closed) => return Err(StoreError::Closed),
                Err(e) => {
                    tracing::warn!(error = %e, "recording how notifications went and reading the queue");
                    return Ok(Vec::new());
                }
            };
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let leads: HashMap<i64, LeadRecord> =
            match self.store.lead_records(jobs.iter().map(|job| job.lead_id).collect()).await {
                Ok(records) => records.into_iter().map(|lead| (lead.id, lead)).collect(),
                Err(StoreError::Closed) => return Err(StoreError::Closed),
                Err(e) => {
                    // Their leases run out and they are claimed again.
                    tracing::warn!(error = %e, "reading the leads to notify");
                    return Ok(Vec::new());
                }
            };
        Ok(jobs
            .into_iter()
            .map(|job| {
                let lead = leads.get(&job.lead_id).cloned();
                (job, lead)
            })
            .collect())
    }

    /// The channels whose rows may be claimed now: none while every channel is left alone, else
    /// those that did not ask to be. A channel that only rests after a failure, beside others that
    /// work, is still claimed: its rows would otherwise stay due and be passed over by every claim.
    fn claimable(&self, channels: &[Channel]) -> Arc<[Channel]> {
        let now = self.clock.now();
        let mut paused = self.paused.lock().unwrap_or_else(|e| e.into_inner());
        paused.retain(|_, pause| pause.until > now);
        if channels.iter().all(|channel| paused.contains_key(channel)) {
            return Arc::from([]);
        }
        channels.iter().copied().filter(|channel| !paused.get(channel).is_some_and(|p| p.asked)).collect()
    }

    /// When to look at the queue again unwoken: at the next poll, or when a pause ends before it.
    fn next_look(&self) -> Duration {
        let paused = self.paused.lock().unwrap_or_else(|e| e.into_inner());
        paused
            .values()
            .map(|p| self.clock.until(p.until))
            .filter(|wait| !wait.is_zero())
            .fold(POLL, Duration::min)
    }

    /// Leaves `channel` alone for `wait`, unless a longer pause holds already.
    fn pause(&self, channel: Channel, wait: Duration, asked: bool) {
        let pause = Pause { until: retry_at(self.clock.now(), wait), asked };
        let mut paused = self.paused.lock().unwrap_or_else(|e| e.into_inner());
        let entry = paused.entry(channel).or_insert(pause);
        if pause.until > entry.until {
            *entry = pause;
        }
    }

    /// Sends one notification about `lead`; says how it went, or nothing when the lead is gone
    /// (erased: its row went with it).
    async fn send_one(&self, job: OutboxJob, lead: Option<LeadRecord>) -> Option<Delivery> {
        let channel = job.channel;
        let lead = lead?;
        let says_unreached = matches!(job.event, Event::Reminder | Event::Overdue);
        if job.event != Event::New && !lead.status.is_open() || says_unreached && !lead.on_the_clock() {
            // A reminder or overdue notice that waited (a channel was down) while an operator
            // reached the person, a time agreed with them included (ADR 0087): nothing to remind
            // of any more.
            return Some(Delivery::Sent(job.id));
        }
        // A minute's leeway: the instance whose scan queued the notice may run a little ahead.
        let later = self.clock.now() + SignedDuration::from_mins(1);
        let not_due = |at: &String| at.parse::<jiff::Timestamp>().map_or(true, |at| at > later);
        if job.event == Event::CallBackDue && lead.next_call_at.as_ref().is_none_or(not_due) {
            // Taken off the call list while the notice waited (no call to make), or called
            // meanwhile and set a later time: that time is told when it comes, and this notice
            // would name it as due now.
            return Some(Delivery::Sent(job.id));
        }
        let message = Message::new(job.event, &lead, &self.settings);
        match self.deliver(channel, &message).await {
            Ok(()) => {
                self.metrics.notification(channel, true);
                tracing::info!(
                    id = job.lead_id,
                    event = job.event.name(),
                    channel = channel.name(),
                    "notification sent"
                );
                Some(Delivery::Sent(job.id))
            }
            Err(error) => {
                self.metrics.notification(channel, false);
                let wait = retry_wait(&error, job.attempts);
                match error.retry_after {
                    Some(_) => self.pause(channel, wait, true),
                    None => self.pause(channel, FAILURE_PAUSE, false),
                }
                tracing::warn!(
                    id = job.lead_id,
                    event = job.event.name(),
                    channel = channel.name(),
                    attempt = job.attempts,
                    retry_in_s = wait.as_secs(),
                    reason = error.reason,
                    "notification failed; will retry"
                );
                Some(Delivery::Retry {
                    id: job.id,
                    at: retry_at(self.clock.now(), wait),
                    error: error.reason,
                })
            }
        }
    }

    /// Once a scan: queues the reminders and overdue notices `deadline_scans` asks for, the
    /// escalations and the call-backs whose time came, and watches for channels that keep failing.
    async fn scan_loop(self: Arc<Self>) {
        let channels = self.settings.notify.channels();
        let remind_after = SignedDuration::from_hours(i64::from(self.settings.remind_after_hours));
        let scan = Duration::from_secs(self.settings.reminder_scan_seconds.into());
        let mut every = tokio::time::interval(scan);
        loop {
            every.tick().await;
            let now = self.clock.now();
            match escalate(&self.store, &self.settings, now).await {
                Ok(0) => {}
                Ok(escalated) => {
                    tracing::info!(escalated, "leads nobody called reported to the admins");
                    self.wake();
                }
                Err(StoreError::Closed) => return,
                Err(e) => tracing::warn!(error = %e, "escalating leads nobody called"),
            }
            match tell_call_backs(&self.store, &self.settings, now).await {
                Ok(0) => {}
                Ok(told) => {
                    tracing::info!(told, "call-backs whose time came told");
                    self.wake();
                }
                Err(StoreError::Closed) => return,
                Err(e) => tracing::warn!(error = %e, "telling call-backs whose time came"),
            }
            match watch_channels(&self.store, &self.settings, now).await {
                Ok(turns) if turns.iter().any(|turn| !turn.told.is_empty()) => self.wake_notices(),
                Ok(_) => {}
                Err(StoreError::Closed) => return,
                Err(e) => tracing::warn!(error = %e, "watching for channels that keep failing"),
            }
            // With no channel (the scan runs for escalation's mark alone) there is nobody to remind.
            let scans = if !remind_after.is_positive() || channels.is_empty() {
                Vec::new()
            } else {
                // Read at each scan: a day an admin closed a moment ago counts at once.
                match self.store.calendar(self.settings.settings_calendar(), now).await {
                    Ok(calendar) => deadline_scans(&calendar, now, remind_after),
                    Err(StoreError::Closed) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "reading the closed days for the reminders");
                        Vec::new()
                    }
                }
            };
            for (event, from, to) in scans {
                match self.store.queue_reminders(event, channels.clone(), from, to).await {
                    Ok(0) => {}
                    Ok(queued) => {
                        tracing::info!(event = event.name(), queued, "deadline notifications queued");
                        self.wake();
                    }
                    Err(StoreError::Closed) => return,
                    Err(e) => tracing::warn!(error = %e, "queueing deadline notifications"),
                }
            }
            self.metrics.reminder_scan();
        }
    }
}

/// Whether a turn has something to do beside sends that hang: outcomes to write, or rows that may
/// be due (`pending`: a new lead, the poll) and room to send them.
fn waiting(finished: &[Delivery], pending: bool, room: usize) -> bool {
    !finished.is_empty() || (pending && room > 0)
}

/// Where the scans of what came due start looking at `now`: a day past the 48 hours, closed days
/// not counted, and no further.
fn scans_look_back_to(calendar: &Calendar, now: Timestamp) -> Timestamp {
    calendar.back_over_closures(now, crate::inbox::PROMISE + SignedDuration::from_hours(24))
}

/// Which open leads to notify about at `now`, as windows of their arrival time: a reminder for
/// those `remind_after` into their 48 hours, a notice for those past them, and, in the last
/// working hours before days off, a reminder for every lead whose 48 hours end before the team
/// is back. Out of working time, nothing: the next scan at work catches up, as each window looks
/// back a day past the 48 hours, closed days not counted (`scans_look_back_to`), and no
/// further: a server that was off for weeks does not flood the channels with notices about
/// long-past deadlines. Each lead gets each notice once (the outbox keeps one per lead).
fn deadline_scans(
    calendar: &Calendar,
    now: Timestamp,
    remind_after: SignedDuration,
) -> Vec<(Event, Timestamp, Timestamp)> {
    if !calendar.works_at(now) {
        return Vec::new();
    }
    let promise = crate::inbox::PROMISE;
    let mut scans = vec![
        (Event::Reminder, now - promise, now - remind_after),
        (Event::Overdue, scans_look_back_to(calendar, now), now - promise),
    ];
    if let Some(closure) = calendar.closure_ahead(now) {
        scans.push((Event::Reminder, now - promise, closure.reopens + RISK_AFTER_REOPENING - promise));
    }
    scans
}

/// Reports to the admins, once, every open lead of the call list that nobody has called within
/// `ZAYAVKA_ESCALATE_AFTER_HOURS` (`escalation_window`), through every channel, and marks it for
/// the inbox (with no channel, only marks it); returns how many leads were escalated.
pub async fn escalate(store: &Store, settings: &Settings, now: Timestamp) -> Result<usize, StoreError> {
    if settings.escalate_after.is_none() {
        return Ok(0);
    }
    let channels = settings.notify.channels();
    let calendar = store.calendar(settings.settings_calendar(), now).await?;
    let Some((from, to)) = escalation_window(&calendar, now, settings.escalate_after) else {
        return Ok(0);
    };
    store.escalate(channels, from, to, now).await
}

/// Which arrivals to escalate at `now`: those sent more than `after` ago, looking back past the
/// 48 hours by a day, closed days not counted, as `deadline_scans` does: a lead whose time came on
/// days off is escalated when the team is back. Only while the team works, so that the admins
/// hear of it when someone can act; none when escalation is off.
fn escalation_window(
    calendar: &Calendar,
    now: Timestamp,
    after: Option<SignedDuration>,
) -> Option<(Timestamp, Timestamp)> {
    let after = after?;
    calendar.works_at(now).then(|| (scans_look_back_to(calendar, now), now - after))
}

/// An error with its causes ("error sending request: connection refused"): reqwest's own text
/// names only the outermost one.
fn error_chain(error: impl std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// How long a failed send waits before its next try: as long as the channel asked (capped at an
/// hour), else `backoff`. One rule for lead notifications and account notices.
fn retry_wait(error: &SendError, attempts: i32) -> Duration {
    error.retry_after.unwrap_or_else(|| backoff(attempts)).min(Duration::from_secs(3600))
}

fn retry_at(now: Timestamp, wait: Duration) -> Timestamp {
    now + SignedDuration::try_from(wait).unwrap_or(SignedDuration::ZERO)
}

/// 5 s after the first failure, doubling, at most `MAX_BACKOFF`, with up to 20 % jitter so that
/// instances do not retry in step.
fn backoff(attempts: i32) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1)).unwrap_or(0).min(16);
    let base = Duration::from_secs(5).saturating_mul(1 << doublings).min(MAX_BACKOFF);
    let jitter = rand::random_range(0.0..0.2);
    base.mul_f64(1.0 + jitter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kyiv(text: &str) -> Timestamp {
        let local = text.parse::<jiff::civil::DateTime>().unwrap();
        local.to_zoned(crate::notice::operators_zone()).unwrap().timestamp()
    }

    #[test]
    fn reminders_skip_closed_days_and_come_early_before_them() {
        let calendar = Calendar {
            hours: crate::notice::WorkingHours::parse("09:00-18:00"),
            closed: crate::calendar::ClosedDays::parse("2027-01-01").unwrap(),
        };
        let remind_after = SignedDuration::from_hours(24);
        // An ordinary Wednesday morning: the reminder and overdue windows, nothing more.
        let wednesday = kyiv("2026-12-30T10:00");
        let promise = crate::inbox::PROMISE;
        let day = SignedDuration::from_hours(24);
        assert_eq!(
            deadline_scans(&calendar, wednesday, remind_after),
            [
                (Event::Reminder, wednesday - promise, wednesday - remind_after),
                (Event::Overdue, wednesday - promise - day, wednesday - promise),
            ]
        );
        // Thursday 17:00, the last working hour before the closed Friday: also every lead whose
        // 48 hours end before Saturday 13:00 (the team is back at 09:00, plus four hours).
        let thursday = kyiv("2026-12-31T17:00");
        let scans = deadline_scans(&calendar, thursday, remind_after);
        assert_eq!(scans.len(), 3);
        assert_eq!(scans[2], (Event::Reminder, thursday - promise, kyiv("2027-01-02T13:00") - promise));
        // On the closed day itself, and at night, nobody is reminded.
        assert!(deadline_scans(&calendar, kyiv("2027-01-01T10:00"), remind_after).is_empty());
        assert!(deadline_scans(&calendar, kyiv("2026-12-30T20:00"), remind_after).is_empty());
    }

    #[test]
    fn escalation_looks_at_leads_older_than_the_setting_and_only_at_work() {
        let calendar = Calendar {
            hours: crate::notice::WorkingHours::parse("09:00-18:00"),
            closed: crate::calendar::ClosedDays::default(),
        };
        let after = Some(SignedDuration::from_hours(24));
        let morning = kyiv("2026-12-30T10:00");
        let window = escalation_window(&calendar, morning, after).unwrap();
        assert_eq!(window.1, morning - SignedDuration::from_hours(24));
        assert_eq!(window.0, morning - SignedDuration::from_hours(72));
        assert_eq!(escalation_window(&calendar, kyiv("2026-12-30T20:00"), after), None, "at night: later");
        assert_eq!(escalation_window(&calendar, morning, None), None, "switched off");
        // Back on Monday after three closed days: a lead sent on Thursday at 21:30, whose day
        // came on the closed Friday, is still looked at (and so is its deadline's notice).
        let long_weekend =
            calendar.also_closed(["2027-01-01", "2027-01-02", "2027-01-03"].map(|d| d.parse().unwrap()));
        let monday = kyiv("2027-01-04T09:00");
        let (from, to) = escalation_window(&long_weekend, monday, after).unwrap();
        let sent = kyiv("2026-12-31T21:30");
        assert!(from < sent && sent < to, "{from} .. {to}");
        assert!(from > monday - SignedDuration::from_hours(24 * 7), "no further than the closure: {from}");
        let overdue = deadline_scans(&long_weekend, monday, SignedDuration::from_hours(24))[1];
        assert_eq!((overdue.0, overdue.1), (Event::Overdue, from));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        assert!((5.0..6.0).contains(&backoff(1).as_secs_f64()));
        assert!((10.0..12.0).contains(&backoff(2).as_secs_f64()));
        assert!((300.0..360.0).contains(&backoff(30).as_secs_f64()));
    }
}
