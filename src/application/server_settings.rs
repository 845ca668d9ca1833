//! The settings that the use cases shared by the server and the command line decide by, as the
//! server runs with them: recorded at each start, so that a command run with others (a shell
//! without the service's environment file) is refused. Otherwise `zayavka leads purge` would delete
//! by another retention period, and `zayavka leads release` would queue no notification and hand
//! the lead to nobody.

use crate::config::{Assign, Settings};
use crate::store::{Store, StoreError};

/// Where the server's settings are kept (`zayavka_meta`).
const KEY: &str = "server_settings";

/// What the shared use cases read, as (setting, value) pairs.
fn shared(settings: &Settings) -> Vec<(String, String)> {
    let channels =
        settings.notify.channels().iter().map(|channel| channel.name()).collect::<Vec<_>>().join(",");
    let assign = match settings.assign {
        Assign::Pool => "pool",
        Assign::RoundRobin => "round-robin",
    };
    vec![
        ("ZAYAVKA_RETENTION_DAYS".into(), settings.retention_days.to_string()),
        ("notification channels".into(), if channels.is_empty() { "none".into() } else { channels }),
        ("ZAYAVKA_ASSIGN".into(), assign.into()),
    ]
}

/// Records the settings a server starts with.
pub async fn record(store: &Store, settings: &Settings) -> Result<(), StoreError> {
    let shared = serde_json::to_string(&shared(settings)).expect("strings serialise");
    store.meta_set(KEY, shared).await
}

/// Refuses a command whose settings differ from the server's last start, naming each difference.
/// A database no server of this version has started on has none to compare.
pub async fn check(store: &Store, settings: &Settings) -> anyhow::Result<()> {
    let Some(recorded) = store.meta_get(KEY).await? else { return Ok(()) };
    let Ok(server) = serde_json::from_str::<Vec<(String, String)>>(&recorded) else { return Ok(()) };
    let differences: Vec<String> = shared(settings)
        .into_iter()
        .filter_map(|(name, ours)| {
            let (_, theirs) = server.iter().find(|(recorded, _)| *recorded == name)?;
            (*theirs != ours).then(|| format!("{name}: the server's {theirs}, this command's {ours}"))
        })
        .collect();
    anyhow::ensure!(
        differences.is_empty(),
        "this command runs with other settings than the server ({}); run it with the server's \
         settings (docs/deployment.md, \"Operator commands\")",
        differences.join("; ")
    );
    Ok(())
}
