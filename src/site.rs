//! The prerendered React site, embedded in the binary and prepared once at start-up: run-time
//! settings filled into the HTML, its ETag and CSP hashes computed. Each page is compressed once,
//! for its first request, so the requests after it only pick bytes. The folder's layout is
//! described in `docs/architecture.md`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};

use crate::config::Settings;

mod open_end;
pub use open_end::OpenEnd;

#[derive(RustEmbed)]
#[folder = "web/dist/"]
#[exclude = "*.br"]
#[exclude = "*.gz"]
struct Dist;

/// Precompressed twins written by the web build (`x.js.br`, `x.js.gz`).
#[derive(RustEmbed)]
#[folder = "web/dist/"]
#[include = "*.br"]
#[include = "*.gz"]
struct DistCompressed;

/// Filled in per day on the pages that show today's date.
const TODAY_TOKEN: &str = "__ZAYAVKA_TODAY__";

/// The value of the form's proof field (`web/src/form/proof-field.ts`), filled in per answer.
pub const PROOF_TOKEN: &str = "__ZAYAVKA_PROOF__";

/// One response body in every encoding the server offers. The compressed forms are made on first
/// use: brotli at its best quality takes 10–25 ms a page, about 100 ms for all of them, which a
/// start need not wait for (nor a test that serves no page).
#[derive(Debug)]
pub struct Body {
    pub identity: Bytes,
    gzip: OnceLock<Bytes>,
    brotli: OnceLock<Bytes>,
    pub etag: String,
    pub content_type: &'static str,
    /// On a page with the lead form: the page split where the value of the form's proof field
    /// goes, for the answers that fill it in (`http::pages`).
    pub open_end: Option<OpenEnd>,
}

impl Body {
    /// `gzip` and `brotli`: twins the web build compressed already, if it did.
    fn new(
        identity: Vec<u8>,
        content_type: &'static str,
        gzip: Option<Vec<u8>>,
        brotli: Option<Vec<u8>>,
    ) -> Body {
        let etag = format!("\"{}\"", &hex(&Sha256::digest(&identity))[..32]);
        let ready =
            |twin: Option<Vec<u8>>| twin.map_or_else(OnceLock::new, |bytes| Bytes::from(bytes).into());
        Body {
            identity: identity.into(),
            gzip: ready(gzip),
            brotli: ready(brotli),
            etag,
            content_type,
            open_end: None,
        }
    }

    /// A page with the lead form: open where its proof field's value goes. Its own bytes, which
    /// `zayavka build-static` writes, leave the field empty.
    fn form_page(html: String) -> Body {
        let Some(slot) = html.find(PROOF_TOKEN) else {
            return Body::new(html.into_bytes(), HTML, None, None);
        };
        let without = [&html[..slot], &html[slot + PROOF_TOKEN.len()..]].concat();
        let body = Body::new(without.into_bytes(), HTML, None, None);
        Body { open_end: Some(OpenEnd::new(body.identity.clone(), slot)), ..body }
    }

    pub fn gzip(&self) -> &Bytes {
        self.gzip.get_or_init(|| compress_gzip(&self.identity).into())
    }

    pub fn brotli(&self) -> &Bytes {
        self.brotli.get_or_init(|| compress_brotli(&self.identity).into())
    }
}

/// A page whose HTML may need today's date, built once per day.
pub struct Page {
    template: String,
    /// It shows the lead form, so its bodies are open for the form's proof (`Body::form_page`).
    form: bool,
    fixed: Option<Arc<Body>>,
    dated: Mutex<Option<(String, Arc<Body>)>>,
}

impl Page {
    /// `form`: the page shows the lead form.
    fn new(html: String, form: bool) -> Page {
        let fixed = (!html.contains(TODAY_TOKEN)).then(|| Arc::new(Page::body_of(html.clone(), form)));
        Page { template: html, form, fixed, dated: Mutex::new(None) }
    }

    fn body_of(html: String, form: bool) -> Body {
        match form {
            true => Body::form_page(html),
            false => Body::new(html.into_bytes(), HTML, None, None),
        }
    }

    /// The page as served on the day of `now`.
    pub fn body(&self, now: jiff::Timestamp) -> Arc<Body> {
        if let Some(body) = &self.fixed {
            return body.clone();
        }
        let date = day_of(now);
        let mut dated = self.dated.lock().expect("page cache lock");
        match &*dated {
            Some((day, body)) if *day == date => body.clone(),
            _ => {
                let html = self.template.replace(TODAY_TOKEN, &date);
                let body = Arc::new(Page::body_of(html, self.form));
                *dated = Some((date, body.clone()));
                body
            }
        }
    }
}

const HTML: &str = "text/html; charset=utf-8";

/// `pages.json`, written by the web build from `web/src/pages.ts`, the one list of the visitor's
/// pages (docs/decisions/0017): which file is served at which path, and in the server's own cases.
const PAGES_MANIFEST: &str = "pages.json";

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PagesManifest {
    routes: Vec<RouteFile>,
    not_found: String,
    form_refused: String,
    error: String,
    policy: String,
}

#[derive(serde::Deserialize)]
struct RouteFile {
    path: String,
    file: String,
    form: bool,
}

/// A page served at its own path (`/`, `/thank-you`, …).
pub struct Route {
    pub path: String,
    /// A page with the lead form hands the browser a page-load proof (`Body::open_end`).
    pub page: Page,
}

pub struct Site {
    /// The visitor's pages at their paths, in the order the web build lists them.
    pub routes: Vec<Arc<Route>>,
    /// Any unknown page path (404).
    pub not_found: Page,
    pub error: Page,
    /// The landing page for a refused `POST /leads`, with the slots `http::form` fills per request.
    pub form_refused: String,
    /// The operators' inbox app (built separately from the visitor's pages).
    pub admin: Page,
    /// Every other file by its path without the leading slash (`assets/index-abc.js`).
    pub files: HashMap<String, Body>,
    /// `'sha256-…'` sources for the inline `<style>` elements of the pages.
    pub style_hashes: Vec<String>,
    /// `'sha256-…'` sources for the pages' inline module scripts (each page's loader).
    pub script_hashes: Vec<String>,
    /// A hash of the privacy policy's text as built: the consent evidence kept with each lead.
    pub policy_version: String,
}

impl Site {
    /// Prepares the embedded site with the settings filled in. Fails only if the build output is
    /// incomplete, which the binary's own tests catch.
    pub fn build(settings: &Settings, anon_key: &str) -> anyhow::Result<Site> {
        let tel = crate::lead::normalise_phone(&settings.contact_phone).unwrap_or_default();
        let values = [
            ("__ZAYAVKA_BRAND__", settings.brand.clone()),
            ("__ZAYAVKA_PHONE_HREF__", format!("tel:{tel}")),
            ("__ZAYAVKA_PHONE__", settings.contact_phone.clone()),
            ("__ZAYAVKA_REDIRECT_URL__", settings.redirect_url.clone()),
            ("__ZAYAVKA_BACKEND_URL__", settings.backend_url.clone()),
            ("__ZAYAVKA_ANON_KEY__", anon_key.to_owned()),
            ("__ZAYAVKA_RETENTION__", days_uk(settings.retention_days)),
        ];
        let fill = |html: &str| fill_settings(html, &values);
        let raw_page = |name: &str| -> anyhow::Result<String> {
            let file = Dist::get(name)
                .ok_or_else(|| anyhow::anyhow!("the web build has no {name}; run `make web`"))?;
            Ok(String::from_utf8(file.data.into_owned())?)
        };

        let (mut style_hashes, mut script_hashes) = (Vec::new(), Vec::new());
        let mut filled = |name: &str| -> anyhow::Result<String> {
            let html = raw_page(name)?;
            for (contents, hashes) in [
                (inline_styles(&html), &mut style_hashes),
                (inline_module_scripts(&html), &mut script_hashes),
            ] {
                for hash in contents.into_iter().map(csp_hash) {
                    if !hashes.contains(&hash) {
                        hashes.push(hash);
                    }
                }
            }
            Ok(fill(&html))
        };
        let pages: PagesManifest = serde_json::from_str(&raw_page(PAGES_MANIFEST)?)?;
        let routes = pages
            .routes
            .iter()
            .map(|route| {
                let page = Page::new(filled(&route.file)?, route.form);
                Ok(Arc::new(Route { path: route.path.clone(), page }))
            })
            .collect::<anyhow::Result<_>>()?;
        let not_found = Page::new(filled(&pages.not_found)?, false);
        let error = Page::new(filled(&pages.error)?, false);
        let form_refused = filled(&pages.form_refused)?;
        let admin = Page::new(filled("admin.html")?, false);
        // The policy's text is the built page with the retention period it states.
        let policy_text = raw_page(&pages.policy)? + &days_uk(settings.retention_days);
        let policy_version = hex(&Sha256::digest(policy_text.as_bytes()))[..16].to_owned();

        let files = Dist::iter()
            .filter(|path| !path.ends_with(".html") && path != PAGES_MANIFEST)
            .map(|path| {
                let data = Dist::get(&path).expect("listed file exists").data.into_owned();
                let twin =
                    |ext: &str| DistCompressed::get(&format!("{path}.{ext}")).map(|f| f.data.into_owned());
                let content_type = content_type(&path);
                let body = Body::new(data, content_type, twin("gz"), twin("br"));
                (path.into_owned(), body)
            })
            .collect();

        Ok(Site {
            routes,
            not_found,
            error,
            form_refused,
            admin,
            files,
            style_hashes,
            script_hashes,
            policy_version,
        })
    }
}

/// `180 днів`, `21 день`, `3 дні`: a number of days as Ukrainian says it.
fn days_uk(days: u32) -> String {
    let word = match (days % 10, days % 100) {
        (1, n) if n != 11 => "день",
        (2..=4, n) if !(12..=14).contains(&n) => "дні",
        _ => "днів",
    };
    format!("{days} {word}")
}

/// Replaces the settings' tokens: JSON-escaped inside the config data block (a `<script>` is raw
/// text, so HTML entities there would reach the client as they are), HTML-escaped elsewhere.
fn fill_settings(html: &str, values: &[(&str, String)]) -> String {
    let replace_all = |text: &str, escape: fn(&str) -> String| {
        values.iter().fold(text.to_owned(), |text, (token, value)| text.replace(token, &escape(value)))
    };
    let Some(start) = html.find(CONFIG_BLOCK) else {
        return replace_all(html, escape_html);
    };
    let end = html[start..].find("</script>").map_or(html.len(), |len| start + len);
    let mut out = replace_all(&html[..start], escape_html);
    out.push_str(&replace_all(&html[start..end], escape_json_string));
    out.push_str(&replace_all(&html[end..], escape_html));
    out
}

/// The start of the data block the client reads its settings from.
const CONFIG_BLOCK: &str = "<script id=\"zayavka-config\"";

/// The inside of a JSON string literal, with `<`, `>` and `&` as escapes so that no value can
/// close the `<script>` element.
fn escape_json_string(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("a string serialises");
    quoted[1..quoted.len() - 1].replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// `zayavka build-static DIR`: the pages with the settings filled in, as files a static host
/// serves (`/thank-you` from `thank-you/index.html`, unknown paths from `404.html`). Today's date
/// on the privacy policy is `today`'s; the visitor's browser shows its own after loading.
pub fn build_static(
    settings: &Settings,
    dir: &std::path::Path,
    today: jiff::Timestamp,
) -> anyhow::Result<()> {
    use anyhow::Context;
    if settings.backend_url.is_empty() {
        anyhow::bail!(
            "build-static: set ZAYAVKA_BACKEND_URL (a zayavka server or a Supabase project): a static host cannot take the form"
        );
    }
    let Some(anon_key) = settings.anon_key.as_deref() else {
        anyhow::bail!("build-static: set ZAYAVKA_ANON_KEY to the backend's public key");
    };
    let site = Site::build(settings, anon_key)?;
    let pages = site
        .routes
        .iter()
        .map(|route| (static_file(&route.path), &route.page))
        .chain([("404.html".to_owned(), &site.not_found)]);
    let files = pages
        .map(|(path, page)| (path, page.body(today).identity.clone()))
        .chain(site.files.iter().map(|(path, body)| (path.clone(), body.identity.clone())));
    for (path, bytes) in files {
        let target = dir.join(&path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&target, &bytes).with_context(|| format!("cannot write {}", target.display()))?;
    }
    eprintln!(
        "zayavka: the site is in {}; its form posts to {}/rest/v1/CRN",
        dir.display(),
        settings.backend_url
    );
    Ok(())
}

/// Where a static host looks for the page at `path`: `/` in `index.html`, `/thank-you` in
/// `thank-you/index.html`.
fn static_file(path: &str) -> String {
    match path.trim_matches('/') {
        "" => "index.html".to_owned(),
        dir => format!("{dir}/index.html"),
    }
}

/// The date of `now` as the privacy policy shows it (`dd.mm.yyyy`, uk-UA), in UTC; the visitor's
/// browser then shows its own local date.
fn day_of(now: jiff::Timestamp) -> String {
    let date = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    format!("{:02}.{:02}.{:04}", date.day(), date.month(), date.year())
}

/// The contents of every `<style>` element, exactly as the browser hashes them.
/// The contents of the inline `<script type="module">` elements: the loader web/src/entry-server.tsx
/// writes. The JSON data blocks are never run, so the policy needs no hash of them.
fn inline_module_scripts(html: &str) -> Vec<&str> {
    const OPEN: &str = "<script type=\"module\">";
    html.match_indices(OPEN)
        .filter_map(|(at, _)| {
            let start = at + OPEN.len();
            html[start..].find("</script>").map(|len| &html[start..start + len])
        })
        .collect()
}

fn inline_styles(html: &str) -> Vec<&str> {
    let mut styles = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<style") {
        let Some(open_end) = rest[start..].find('>') else {
            break;
        };
        let content_start = start + open_end + 1;
        let Some(len) = rest[content_start..].find("</style>") else {
            break;
        };
        styles.push(&rest[content_start..content_start + len]);
        rest = &rest[content_start + len..];
    }
    styles
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "txt" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => mime_guess::from_path(path).first_raw().unwrap_or("application/octet-stream"),
    }
}

pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

fn compress_gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

fn compress_brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 22, ..Default::default() };
    brotli::BrotliCompress(&mut &data[..], &mut out, &params).expect("writing to memory");
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The CSP source for one inline element's text (a `<style>`, a page's loader script).
pub fn csp_hash(css: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(css)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_counted_in_ukrainian() {
        let said: Vec<String> = [1, 2, 5, 11, 14, 21, 22, 180, 365].into_iter().map(days_uk).collect();
        assert_eq!(
            said,
            ["1 день", "2 дні", "5 днів", "11 днів", "14 днів", "21 день", "22 дні", "180 днів", "365 днів"]
        );
    }

    #[test]
    fn a_static_host_finds_each_page_in_its_folder() {
        assert_eq!(static_file("/"), "index.html");
        assert_eq!(static_file("/thank-you"), "thank-you/index.html");
    }

    #[test]
    fn finds_inline_styles() {
        assert_eq!(inline_styles("<style>a{}</style><p><style media=x>b{}</style>"), vec!["a{}", "b{}"]);
        let scripts = r#"<script type="application/json">{}</script><script type="module">load()</script>"#;
        assert_eq!(inline_module_scripts(scripts), vec!["load()"]);
    }

    #[test]
    fn settings_are_escaped_for_where_they_stand() {
        let html = r#"<p>__ZAYAVKA_BRAND__</p><script id="zayavka-config" type="application/json">{"brand":"__ZAYAVKA_BRAND__"}</script><i>__ZAYAVKA_BRAND__</i>"#;
        let filled = fill_settings(html, &[("__ZAYAVKA_BRAND__", "A&B \"</script>".to_owned())]);
        assert_eq!(
            filled,
            r#"<p>A&amp;B &quot;&lt;/script&gt;</p><script id="zayavka-config" type="application/json">{"brand":"A\u0026B \"\u003c/script\u003e"}</script><i>A&amp;B &quot;&lt;/script&gt;</i>"#
        );
    }

    #[test]
    fn escapes_what_html_would_read_as_markup() {
        assert_eq!(
            escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;"
        );
    }
}
