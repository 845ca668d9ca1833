//! The settings that the use cases shared by the server and the command line decide by, as the
//! server runs with them: recorded at each start, so that a command run with others (a shell
//! without the service's environment file) says so before it acts. Such a `zayavka leads purge`
//! deletes by another retention period, `zayavka leads release` queues no notification, hands
//! the lead to nobody or makes a second lead of a person's repeat, and `zayavka admin closed-days
//! add` moves retries by another calendar. The commands still run (the contract's commands take
//! their settings from where they run): the warning is for the person who did not mean it.

use crate::config::{Assign, Settings};
use crate::store::{Store, StoreError};

/// Where the server's settings are kept (`zayavka_meta`).
const KEY: &str = "server_settings";

/// A setting a command's use case reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    RetentionDays,
    Channels,
    Assign,
    DuplicateWindow,
    WorkingHours,
    ClosedDays,
}

impl Shared {
    const ALL: [Shared; 6] = [
        Shared::RetentionDays,
        Shared::Channels,
        Shared::Assign,
        Shared::DuplicateWindow,
        Shared::WorkingHours,
        Shared::ClosedDays,
    ];

    fn name(self) -> &'static str {
        match self {
            Shared::RetentionDays => "ZAYAVKA_RETENTION_DAYS",
            Shared::Channels => "notification channels",
            Shared::Assign => "ZAYAVKA_ASSIGN",
            Shared::DuplicateWindow => "ZAYAVKA_DUPLICATE_WINDOW_HOURS",
            Shared::WorkingHours => "ZAYAVKA_WORKING_HOURS",
            Shared::ClosedDays => "ZAYAVKA_CLOSED_DAYS",
        }
    }

    fn value(self, settings: &Settings) -> String {
        let listed = |items: Vec<String>| if items.is_empty() { "none".to_owned() } else { items.join(",") };
        match self {
            Shared::RetentionDays => settings.retention_days.to_string(),
            Shared::Channels => {
                listed(settings.notify.channels().iter().map(|c| c.name().to_owned()).collect())
            }
            Shared::Assign => match settings.assign {
                Assign::Pool => "pool".into(),
                Assign::RoundRobin => "round-robin".into(),
            },
            Shared::DuplicateWindow => settings.duplicate_window_hours.to_string(),
            Shared::WorkingHours => match settings.working_hours {
                Some(hours) => format!("{}-{}", hours.start.strftime("%H:%M"), hours.end.strftime("%H:%M")),
                None => "none".into(),
            },
            Shared::ClosedDays => listed(
                settings.closed_days.on_or_after(jiff::civil::Date::MIN).map(|day| day.to_string()).collect(),
            ),
        }
    }
}

/// Records the settings a server starts with.
pub async fn record(store: &Store, settings: &Settings) -> Result<(), StoreError> {
    let values: Vec<(&str, String)> = Shared::ALL.iter().map(|s| (s.name(), s.value(settings))).collect();
    store.meta_set(KEY, serde_json::to_string(&values).expect("strings serialise")).await
}

/// How a command's settings in `reads` differ from the server's last start, one line each; none
/// for a database no server of this version has started on.
pub async fn differences(
    store: &Store,
    settings: &Settings,
    reads: &[Shared],
) -> Result<Vec<String>, StoreError> {
    let Some(recorded) = store.meta_get(KEY).await? else { return Ok(Vec::new()) };
    let Ok(server) = serde_json::from_str::<Vec<(String, String)>>(&recorded) else { return Ok(Vec::new()) };
    let differences: Vec<String> = reads
        .iter()
        .filter_map(|setting| {
            let (_, theirs) = server.iter().find(|(name, _)| name == setting.name())?;
            let ours = setting.value(settings);
            (*theirs != ours)
                .then(|| format!("{}: the server's {theirs}, this command's {ours}", setting.name()))
        })
        .collect();
    Ok(differences)
}
