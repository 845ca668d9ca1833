//! One voice: every word a visitor reads is written once, in `web/src/content/uk.ts`, and reaches
//! the pages through the web build. So a Ukrainian string literal in the server's code must be
//! found in the built site (`web/dist`: the visitor's pages and their scripts, not the inbox app),
//! or it is a second copy that will drift.
//!
//! The rule, file by file (`ALLOWED_FILES`): texts for operators are the server's own (the inbox
//! API, sign-in, the export, notifications, `--help` and the default brand, which is a setting
//! the operator replaces). The JSON API's refusals (`src/lead`, `src/http/error.rs`) are allowed too:
//! PostgREST's error shape carries a human sentence in `details` for any client of the API
//! (supabase-js, curl, a partner's form), so it is the API's voice, not the site's; the site's own
//! form checks the same rules first and speaks with the content module's texts. Everything else,
//! and above all the no-JavaScript form (`src/http/form.rs`), must say nothing of its own.
//! `ALLOWED_TEXTS` names single known exceptions, each with why.
//!
//! Code under `#[cfg(test)]` and comments are not scanned.
//!
//! Not run again on PostgreSQL: it reads source files and the built site; no database.

use std::path::{Path, PathBuf};

const ALLOWED_FILES: &[&str] = &[
    "src/http/admin.rs",
    "src/http/admin_error.rs",
    "src/http/inbox_api.rs",
    "src/http/sign_in.rs",
    "src/http/leads.rs",
    "src/http/stats.rs",
    "src/http/notifications.rs",
    "src/http/closed_days.rs",
    "src/http/export.rs",
    "src/http/claims.rs",
    "src/http/second_factor.rs",
    "src/http/team.rs",
    "src/auth.rs",
    "src/inbox.rs",
    "src/export.rs",
    "src/notify/",
    "src/config/",
    "src/lead/",
    "src/http/error.rs",
];

/// (file, text): the retention period's plural forms, filled into the privacy policy at start-up
/// from a setting; the forms are grammar, not a sentence (moving them into the content module is
/// left for later).
const ALLOWED_TEXTS: &[(&str, &str)] =
    &[("src/site.rs", "день"), ("src/site.rs", "дні"), ("src/site.rs", "днів")];

#[test]
fn every_ukrainian_text_in_the_server_is_one_the_built_site_already_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let site = built_site_text(&root.join("web/dist"));
    let mut strays = Vec::new();
    for file in rust_files(&root.join("src")) {
        let relative = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if ALLOWED_FILES.iter().any(|allowed| relative.starts_with(allowed)) {
            continue;
        }
        let code = std::fs::read_to_string(&file).unwrap();
        let code = code.split("\n#[cfg(test)]").next().unwrap();
        for literal in string_literals(code) {
            for fragment in fragments(&literal).filter(|f| f.chars().any(is_cyrillic)) {
                let allowed = ALLOWED_TEXTS.contains(&(relative.as_str(), fragment.as_str()));
                if !allowed && !site.contains(&fragment) {
                    strays.push(format!("{relative}: {fragment:?}"));
                }
            }
        }
    }
    // Server-side templates (there are none now; askama's would live here) are all text.
    let templates = root.join("templates");
    for file in if templates.is_dir() { all_files(&templates) } else { vec![] } {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for fragment in template_texts(&text).filter(|f| f.chars().any(is_cyrillic)) {
            if !site.contains(&fragment) {
                strays.push(format!("{}: {fragment:?}", file.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(
        strays.is_empty(),
        "visitor-facing Ukrainian text in the server that the built site does not have; \
         write it in web/src/content/uk.ts and let the page carry it:\n{}",
        strays.join("\n")
    );
}

#[test]
fn the_template_scanner_reads_the_text_between_tags() {
    let html = "<h1>Заявку не надіслано</h1>\n<p title=\"Так\">{{ brand }} Будь ласка, виправте:</p>";
    assert_eq!(template_texts(html).collect::<Vec<_>>(), ["Заявку не надіслано", "Будь ласка, виправте:"]);
}

#[test]
fn the_scanner_finds_texts_in_plain_raw_and_format_strings_but_not_in_comments() {
    let code = r####"
        // "Коментар"
        let a = "Сталася помилка"; let c = 'я'; fn f<'a>(x: &'a str) {}
        let b = r#"Ваше "ім'я""#; let d = format!("Рядок {}: {p}", 1);
        /* "ні" */ let e = "a \" b";
    "####;
    let found: Vec<String> =
        string_literals(code).iter().flat_map(|l| fragments(l).collect::<Vec<_>>()).collect();
    assert_eq!(found, ["Сталася помилка", "Ваше \"ім'я\"", "Рядок", ":", "a \" b"]);
}

/// Every visitor page and script of the build, with the escapes HTML and JS may use for quotes
/// undone, so a text is found as written.
fn built_site_text(dist: &Path) -> String {
    assert!(dist.join("index.html").exists(), "build the site first: cd web && npm run build");
    let mut files = vec![];
    for dir in [dist.to_path_buf(), dist.join("assets")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let visitor = !name.starts_with("admin");
            if visitor && (name.ends_with(".html") || name.ends_with(".js")) {
                files.push(path);
            }
        }
    }
    files
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
        .replace("\\'", "'")
        .replace("\\\"", "\"")
        .replace("&#x27;", "'")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    all_files(dir).into_iter().filter(|path| path.extension().is_some_and(|ext| ext == "rs")).collect()
}

fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(all_files(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The text of an HTML template between its tags and template tags (`{{ }}`, `{% %}`), by line.
fn template_texts(html: &str) -> impl Iterator<Item = String> + '_ {
    let mut text = String::new();
    let mut depth = 0;
    for c in html.chars() {
        match c {
            '<' | '{' => {
                depth += 1;
                text.push('\n');
            }
            '>' | '}' => depth = (depth - 1).max(0),
            c if depth == 0 => text.push(c),
            _ => {}
        }
    }
    text.lines()
        .map(|line| line.trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .into_iter()
}

fn is_cyrillic(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{04FF}')
}

/// The contents of the string literals in Rust code, escapes resolved (a line continuation
/// `\` + newline joins the lines as Rust does). Comments, char literals and lifetimes are skipped.
fn string_literals(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut literals = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            '\'' => {
                // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): skip the former whole.
                if chars.get(i + 1) == Some(&'\\') {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 2;
                }
                i += 1;
            }
            'r' if (chars.get(i + 1) == Some(&'#') || chars.get(i + 1) == Some(&'"'))
                && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) =>
            {
                let mut hashes = 0;
                let mut j = i + 1;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let rest: String = chars[j + 1..].iter().collect();
                let len = rest.find(&close).unwrap_or(rest.len());
                literals.push(rest[..len].to_owned());
                i = j + 1 + rest[..len].chars().count() + close.chars().count();
            }
            '"' => {
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                        match chars.get(i) {
                            Some('n') => text.push('\n'),
                            Some('\n') => {
                                while chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                                    i += 1;
                                }
                            }
                            Some(&c) => text.push(c),
                            None => {}
                        }
                    } else {
                        text.push(chars[i]);
                    }
                    i += 1;
                }
                literals.push(text);
                i += 1;
            }
            _ => i += 1,
        }
    }
    literals
}

/// The pieces of a literal a page could carry verbatim: split at format placeholders (`{}`,
/// `{name}`) and line breaks, trimmed.
fn fragments(literal: &str) -> impl Iterator<Item = String> + '_ {
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut in_placeholder = false;
    for c in literal.chars() {
        match c {
            '{' => {
                in_placeholder = true;
                pieces.push(std::mem::take(&mut piece));
            }
            '}' if in_placeholder => in_placeholder = false,
            '\n' => pieces.push(std::mem::take(&mut piece)),
            c if !in_placeholder => piece.push(c),
            _ => {}
        }
    }
    pieces.push(piece);
    pieces.into_iter().map(|p| p.trim().to_owned()).filter(|p| !p.is_empty())
}
