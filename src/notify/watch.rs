//! What the periodic scan watches beside the deadlines: call-backs whose time has come (told to
//! whoever holds the lead) and channels that keep failing (told through the others).

use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};

use crate::config::Settings;
use crate::notice::Channel;
use crate::store::{Store, StoreError};

/// A channel keeps failing once a notification on it has been tried this many times without
/// success…
pub const FAILING_TRIES: i32 = 3;
/// …and has waited this long: a short blip (a receiver restarting) is not worth a message.
pub const FAILING_FOR: SignedDuration = SignedDuration::from_mins(5);
/// How far back a call-back's time is still told, closed days not counted, as the deadline scans
/// look back a day: a server that was off for days does not tell about every call-back it missed,
/// and a time the person asked for on days off is told when the team is back.
const CALL_BACK_LOOKBACK: SignedDuration = SignedDuration::from_hours(24);

/// Tells, once per scheduled time, that the time a call set for the next one (the time the person
/// asked for, or the retry after no answer) has come, through every channel; returns how many leads
/// were told. Only while the team works: a time that came at night is told in the morning.
pub async fn tell_call_backs(
    store: &Store,
    settings: &Settings,
    now: Timestamp,
) -> Result<usize, StoreError> {
    let channels = settings.notify.channels();
    if channels.is_empty() {
        return Ok(0);
    }
    // Read at each scan: a day an admin closed a moment ago counts at once.
    let calendar = store.calendar(settings.settings_calendar(), now).await?;
    if !calendar.works_at(now) {
        return Ok(0);
    }
    store.queue_call_backs(channels, calendar.back_over_closures(now, CALL_BACK_LOOKBACK), now).await
}

/// A channel's spell of failing that began or ended, and which channels were told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelTurn {
    pub channel: Channel,
    /// It delivers again (else it began to fail).
    pub recovered: bool,
    pub told: Vec<Channel>,
}

/// Finds the channels that began to keep failing (`FAILING_TRIES`, `FAILING_FOR`) and those that
/// fail no more (nothing failed waits on them), and tells each turn once, through the other
/// configured channels; the database decides "once", so that of several instances one tells.
/// With no other channel, a failing one is logged as an error: the inbox's notifications page
/// shows it too.
pub async fn watch_channels(
    store: &Store,
    settings: &Settings,
    now: Timestamp,
) -> Result<Vec<ChannelTurn>, StoreError> {
    let channels = settings.notify.channels();
    if channels.is_empty() {
        return Ok(Vec::new());
    }
    let failing = store.failing_channels(FAILING_TRIES, now - FAILING_FOR).await?;
    let open = store.open_outages().await?;
    let mut turns = Vec::new();
    for &channel in channels.iter() {
        let others: Arc<[Channel]> = channels.iter().copied().filter(|&c| c != channel).collect();
        let failure = failing.iter().find(|f| f.channel == channel);
        let is_open = open.contains(&channel);
        if let Some(failure) = failure.filter(|f| f.keeps_failing_since.is_some() && !is_open) {
            // Whoever opens it tells; another instance may have been first.
            if store.open_outage(failure.clone(), others.clone(), now).await? {
                if others.is_empty() {
                    tracing::error!(
                        channel = channel.name(),
                        since = failure.keeps_failing_since,
                        last_error = failure.last_error,
                        "the only notification channel keeps failing; see the inbox's notifications page"
                    );
                } else {
                    tracing::warn!(
                        channel = channel.name(),
                        last_error = failure.last_error,
                        "a notification channel keeps failing; telling the team through the others"
                    );
                }
                turns.push(ChannelTurn { channel, recovered: false, told: others.to_vec() });
            }
        } else if failure.is_none() && is_open && store.close_outage(channel, others.clone(), now).await? {
            tracing::info!(channel = channel.name(), "a notification channel delivers again");
            turns.push(ChannelTurn { channel, recovered: true, told: others.to_vec() });
        }
    }
    Ok(turns)
}
