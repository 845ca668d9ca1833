//! The one place the server learns the time (ADR 0035). Everything that reads the time (the store's
//! stamps, the 48 hours, claims, reminders, retries and rests, the limiters, sessions) asks a
//! [`Clock`], so a test moves the time with [`ClockHand`] instead of waiting for it. The server runs
//! on [`Clock::system`].

use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

/// The time, shared by everything one process runs; cloning it is one reference count.
#[derive(Clone)]
pub struct Clock(Arc<Source>);

enum Source {
    System,
    /// Stands still until its [`ClockHand`] moves it.
    Manual(Mutex<Timestamp>),
}

/// Moves a [`Clock::manual`]: the tests' only way to make time pass.
#[derive(Clone)]
pub struct ClockHand(Clock);

impl Clock {
    /// The operating system's clock.
    pub fn system() -> Clock {
        Clock(Arc::new(Source::System))
    }

    /// A clock that stands at `start`, in whole microseconds as the databases keep times, until
    /// its hand moves it.
    pub fn manual(start: Timestamp) -> (Clock, ClockHand) {
        let start = start.round(jiff::Unit::Microsecond).expect("a time within jiff's range");
        let clock = Clock(Arc::new(Source::Manual(Mutex::new(start))));
        (clock.clone(), ClockHand(clock))
    }

    pub fn now(&self) -> Timestamp {
        match &*self.0 {
            Source::System => Timestamp::now(),
            Source::Manual(now) => *now.lock().expect("the clock's lock is never poisoned"),
        }
    }

    /// Seconds since 1970, as the page-load proofs and the limiters count.
    pub fn unix_seconds(&self) -> i64 {
        self.now().as_second()
    }

    /// The time since 1970, for in-memory counts that do arithmetic on moments (the limiters).
    pub fn since_epoch(&self) -> Duration {
        Duration::try_from(self.now().duration_since(Timestamp::UNIX_EPOCH)).unwrap_or(Duration::ZERO)
    }

    /// How long until `then` (zero once it has passed), for a task that must wake at that time.
    pub fn until(&self, then: Timestamp) -> Duration {
        Duration::try_from(then.duration_since(self.now())).unwrap_or(Duration::ZERO)
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            Source::System => f.write_str("Clock::system"),
            Source::Manual(_) => write!(f, "Clock::manual({})", self.now()),
        }
    }
}

impl ClockHand {
    /// Moves the clock forward (or back, for a negative duration).
    pub fn advance(&self, by: SignedDuration) {
        let Source::Manual(now) = &*self.0.0 else { unreachable!("only a manual clock has a hand") };
        let mut now = now.lock().expect("the clock's lock is never poisoned");
        *now = now.checked_add(by).expect("a test's time within jiff's range");
    }

    /// Puts the clock at `at` (in whole microseconds, as [`Clock::manual`] starts).
    pub fn set(&self, at: Timestamp) {
        let Source::Manual(now) = &*self.0.0 else { unreachable!("only a manual clock has a hand") };
        *now.lock().expect("the clock's lock is never poisoned") =
            at.round(jiff::Unit::Microsecond).expect("a test's time within jiff's range");
    }

    pub fn advance_minutes(&self, minutes: i64) {
        self.advance(SignedDuration::from_mins(minutes));
    }

    pub fn advance_hours(&self, hours: i64) {
        self.advance(SignedDuration::from_hours(hours));
    }

    /// The clock this hand moves.
    pub fn clock(&self) -> Clock {
        self.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_its_hand_does() {
        let start: Timestamp = "2026-11-27T08:00:00Z".parse().unwrap();
        let (clock, hand) = Clock::manual(start);
        assert_eq!(clock.now(), start);
        hand.advance_hours(2);
        assert_eq!(clock.now(), "2026-11-27T10:00:00Z".parse::<Timestamp>().unwrap());
        assert_eq!(clock.until("2026-11-27T10:00:30Z".parse().unwrap()), Duration::from_secs(30));
        assert_eq!(clock.until(start), Duration::ZERO, "a time that has passed is due now");
    }

    #[test]
    fn the_system_clock_is_the_operating_systems() {
        let before = Timestamp::now();
        let read = Clock::system().now();
        assert!(read >= before && read <= Timestamp::now());
    }
}
