use clap::Args as _;

use super::*;

fn repository_file(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

/// Help and docs compared as a reader sees them: without code marks, either case first.
fn plain(text: &str) -> String {
    let text = text.replace('`', "");
    let mut chars = text.chars();
    chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

#[test]
fn defaults_are_the_documented_ones() {
    let s = Settings::defaults();
    assert_eq!(s.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(s.database_url, DatabaseUrl::Sqlite("data/zayavka.db".into()));
    assert_eq!(s.redirect_url, "/thank-you");
    assert_eq!(s.backend_url, "");
    assert_eq!(s.escalate_after, Some(SignedDuration::from_hours(24)));
}

#[test]
fn the_environment_wins_over_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.toml");
    std::fs::write(&path, "ZAYAVKA_LISTEN = \"0.0.0.0:9000\"\nbrand = \"Файл\"\n").unwrap();
    let args = SettingArgs { brand: Some("Середовище".into()), ..Default::default() };
    let s = Settings::resolve(args, Some(&path)).unwrap();
    assert_eq!(s.listen.to_string(), "0.0.0.0:9000");
    assert_eq!(s.brand, "Середовище");
}

#[test]
fn bad_values_say_which_setting() {
    let bad = |args: SettingArgs| Settings::resolve(args, None).unwrap_err().to_string();
    assert!(
        bad(SettingArgs { listen: Some("8080".into()), ..Default::default() }).starts_with("ZAYAVKA_LISTEN")
    );
    assert!(
        bad(SettingArgs { database_url: Some("mysql://x".into()), ..Default::default() })
            .starts_with("ZAYAVKA_DATABASE_URL")
    );
    assert!(
        bad(SettingArgs { redirect_url: Some("ht tp://x".into()), ..Default::default() })
            .starts_with("ZAYAVKA_REDIRECT_URL")
    );
    assert!(
        bad(SettingArgs { backend_url: Some("example.com".into()), ..Default::default() })
            .starts_with("ZAYAVKA_BACKEND_URL")
    );
}

#[test]
fn escalation_comes_before_the_deadline_or_never() {
    let escalate = |hours: &str| {
        let args = SettingArgs { escalate_after_hours: Some(hours.into()), ..Default::default() };
        Settings::resolve(args, None).map(|s| s.escalate_after).map_err(|e| e.to_string())
    };
    assert_eq!(escalate("0"), Ok(None));
    assert_eq!(escalate(" 47 "), Ok(Some(SignedDuration::from_hours(47))));
    assert_eq!(
        escalate("48"),
        Err("ZAYAVKA_ESCALATE_AFTER_HOURS: 48 is not before the 48-hour deadline".to_owned())
    );
    assert_eq!(
        escalate("a day"),
        Err("ZAYAVKA_ESCALATE_AFTER_HOURS: 'a day' is not a whole number".to_owned())
    );
}

#[test]
fn each_variable_is_its_key_in_capitals() {
    for setting in SETTINGS {
        assert_eq!(setting.variable, format!("ZAYAVKA_{}", setting.key.to_ascii_uppercase()));
        assert!(!setting.help.contains('\n'), "{}'s help is more than a line", setting.variable);
    }
    assert!(SETTINGS.len() > 30, "{} settings", SETTINGS.len());
}

/// `--help` shows each setting's flag, variable, help line and default, from the table.
#[test]
fn help_comes_from_the_table() {
    let mut command = SettingArgs::augment_args(clap::Command::new("zayavka"));
    let help = command.render_help().to_string().split_whitespace().collect::<Vec<_>>().join(" ");
    for setting in SETTINGS {
        let flag = format!("--{}", setting.key.replace('_', "-"));
        let line = format!("{} [default: {}]", setting.help, setting.shown_default());
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains(&flag), "--help lacks {flag}");
        assert!(help.contains(&format!("env: {}", setting.variable)), "--help lacks {}", setting.variable);
        assert!(help.contains(&line), "--help lacks {line}");
    }
}

/// docs/configuration.md has one row per setting: its variable, its default (the value, or what
/// no value means) and a meaning that begins with the help line.
#[test]
fn the_reference_matches_the_table() {
    let docs = repository_file("docs/configuration.md");
    for setting in SETTINGS {
        let start = format!("| `{}` | ", setting.variable);
        let rows: Vec<&str> = docs.lines().filter(|line| line.starts_with(&start)).collect();
        let [row] = rows[..] else {
            panic!("docs/configuration.md has {} rows for {}", rows.len(), setting.variable)
        };
        let (default, meaning) = row[start.len()..].split_once(" | ").unwrap();
        let expected = match setting.default_note {
            Some(note) => note.to_owned(),
            None => format!("`{}`", setting.default),
        };
        assert!(
            plain(default).starts_with(&plain(&expected)),
            "docs/configuration.md: {}'s default is {default}, the code's {expected}",
            setting.variable
        );
        assert!(
            plain(meaning).starts_with(&plain(setting.help)),
            "docs/configuration.md: {}'s meaning does not begin with its help line: {}",
            setting.variable,
            setting.help
        );
    }
}

/// zayavka.example.toml names every key once, under a comment that begins with its help line;
/// a key written out holds the default, and every key with a default is written out.
#[test]
fn the_example_file_matches_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("zayavka.example.toml");
    let written = read_file(&path).unwrap();
    let example = repository_file("zayavka.example.toml");
    let lines: Vec<&str> = example.lines().collect();
    let assigns =
        |line: &str, key: &str| line.trim_start_matches(['#', ' ']).starts_with(&format!("{key} = "));
    for setting in SETTINGS {
        let at: Vec<usize> = (0..lines.len()).filter(|&i| assigns(lines[i], setting.key)).collect();
        let [at] = at[..] else { panic!("zayavka.example.toml names {} {} times", setting.key, at.len()) };
        match written.get(setting.key) {
            Some(value) => {
                assert_eq!(value, setting.default, "zayavka.example.toml: {}'s default", setting.key)
            }
            None => assert!(
                setting.default.is_empty(),
                "zayavka.example.toml: {} has a default, so it is written out",
                setting.key
            ),
        }
        let comment: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .take_while(|line| {
                line.starts_with('#') && !SETTINGS.iter().any(|other| assigns(line, other.key))
            })
            .map(|line| line.trim_start_matches('#').trim())
            .collect();
        let comment = comment.into_iter().rev().collect::<Vec<_>>().join(" ");
        assert!(
            plain(&comment).starts_with(&plain(setting.help)),
            "zayavka.example.toml: the comment over {} does not begin with its help line: {}",
            setting.key,
            setting.help
        );
    }
    // So the file read alone gives the default settings.
    let from_file = Settings::resolve(SettingArgs::default(), Some(&path)).unwrap();
    assert_eq!(format!("{from_file:?}"), format!("{:?}", Settings::defaults()));
}

/// The other way round: a `ZAYAVKA_…` name in the docs, the example file or the deployment
/// files is a setting (or one of the few variables that are not).
#[test]
fn every_variable_the_docs_name_is_a_setting() {
    const NOT_SETTINGS: [&str; 1] = ["ZAYAVKA_TEST_POSTGRES_URL"];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let known: Vec<&str> = SETTINGS.iter().map(|setting| setting.variable).collect();
    let mut files = vec![root.join("README.md"), root.join("zayavka.example.toml"), root.join("Dockerfile")];
    for folder in ["docs", "deploy"] {
        files.extend(std::fs::read_dir(root.join(folder)).unwrap().map(|e| e.unwrap().path()));
    }
    for file in files.iter().filter(|f| f.is_file()) {
        let text = std::fs::read_to_string(file).unwrap();
        for (at, _) in text.match_indices("ZAYAVKA_") {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // `__ZAYAVKA_TODAY__` and its kind are the site's placeholders, not variables.
            if name.ends_with("__") || text[..at].ends_with("__") || NOT_SETTINGS.contains(&name.as_str()) {
                continue;
            }
            assert!(known.contains(&name.as_str()), "{} names {name}, which is no setting", file.display());
        }
    }
}

#[test]
fn unknown_file_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.toml");
    std::fs::write(&path, "lisen = \"0.0.0.0:9000\"\n").unwrap();
    let err = Settings::resolve(SettingArgs::default(), Some(&path)).unwrap_err().to_string();
    assert!(err.contains("unknown setting 'lisen'"), "{err}");
}
