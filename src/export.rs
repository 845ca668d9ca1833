//! Every lead, oldest first, as CSV, JSON Lines or an Excel workbook, made a chunk at a time
//! (`application::export` audits and hands it out).

use std::borrow::Cow;
use std::io::Write;

use anyhow::Context as _;
use bytes::Bytes;
use rust_xlsxwriter::{Workbook, Worksheet};
use tokio::sync::mpsc;

use crate::store::{ExportedLead, Store};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
    /// An Excel workbook: every cell typed as text or a number, so nothing in it is a formula.
    Xlsx,
}

impl Format {
    /// The file's extension, which the audit trail names the export by.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Xlsx => "xlsx",
        }
    }
}

/// Ids read from the database per page (a span of the primary key, so a page holds at most this
/// many leads), so memory stays flat however many there are; each page becomes one chunk of the file.
const PAGE: i64 = 1000;
/// Chunks made ahead of their reader: a slow download slows the reading rather than piling pages
/// up in memory (ADR 0029).
const CHUNKS_AHEAD: usize = 2;

/// The contract's columns first; then where the lead stands, its consent evidence (the privacy
/// policy's version in force at `created_at`), for a repeat the person's first lead, and for a
/// lead held for review the reasons; where it came from; when it was first called (with
/// `reached_at`, how its 48 hours went). New columns go at the end, so a sheet built on the
/// others keeps working.
const CSV_HEADER: [&str; 18] = [
    "id",
    "created_at",
    "name",
    "phone",
    "confirmation",
    "comment",
    "status",
    "reached_at",
    "policy_version",
    "repeat_of",
    "held",
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_content",
    "utm_term",
    "referrer",
    "first_attempt_at",
];

/// One line of the JSON Lines export.
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    id: i64,
    created_at: &'a str,
    name: &'a str,
    phone: &'a str,
    confirmation: &'a str,
    comment: Option<&'a str>,
    status: &'a str,
    reached_at: Option<&'a str>,
    policy_version: &'a str,
    repeat_of: Option<i64>,
    /// Null for a lead in the call list, else why it is held for review.
    held: Option<&'a [String]>,
    #[serde(flatten)]
    attribution: &'a crate::lead::Attribution,
    first_attempt_at: Option<&'a str>,
}

/// Every lead, oldest first, as the file's bytes in chunks, for the command line and the inbox's
/// download alike. A task reads the leads a page at a time and sends each page's bytes as it is
/// made; it stops when the receiver is dropped (a cancelled download). An error ends the chunks.
pub fn chunks(store: Store, format: Format) -> mpsc::Receiver<anyhow::Result<Bytes>> {
    let (sender, receiver) = mpsc::channel(CHUNKS_AHEAD);
    tokio::spawn(async move {
        let made = match format {
            Format::Csv => match csv_start() {
                Ok(start) => send_pages(&store, start, csv_rows, &sender).await,
                Err(e) => Err(e),
            },
            Format::Jsonl => send_pages(&store, Vec::new(), jsonl_rows, &sender).await,
            Format::Xlsx => send_workbook(&store, sender.clone()).await,
        };
        if let Err(e) = made {
            let _ = sender.send(Err(e)).await;
        }
    });
    receiver
}

/// Sends each page's rows as `encode` writes them, a chunk per page, `start` in front of the
/// first: the first chunk holds leads read, so an export whose leads cannot be read fails before
/// it is recorded or answered (`application::export`). With no leads, `start` alone.
async fn send_pages(
    store: &Store,
    mut start: Vec<u8>,
    encode: fn(Vec<ExportedLead>) -> anyhow::Result<Vec<u8>>,
    chunks: &mpsc::Sender<anyhow::Result<Bytes>>,
) -> anyhow::Result<()> {
    let mut pages = Pages::start(store, encode).await?;
    while let Some(chunk) = pages.next().await? {
        let chunk = if start.is_empty() {
            chunk
        } else {
            start.extend_from_slice(&chunk);
            std::mem::take(&mut start)
        };
        if chunks.send(Ok(Bytes::from(chunk))).await.is_err() {
            // Nobody reads any more (the download was cancelled).
            return Ok(());
        }
    }
    if !start.is_empty() {
        let _ = chunks.send(Ok(Bytes::from(start))).await;
    }
    Ok(())
}

/// The leads a page of ids at a time, oldest first, each page made into a `T` by `prepare`, with
/// `READS_AHEAD` pages read and prepared side by side: a page's ids are known before the page
/// before it is read, so the database (PostgreSQL's processes, or SQLite on a blocking thread)
/// works on the next pages, and the other core encodes one, while this one is written.
/// The span is taken at the start, so a lead stored during the export may be left to the next one.
struct Pages<T> {
    store: Store,
    /// The highest id a page has been asked for so far.
    asked_through: i64,
    /// The highest id kept when the export started: the last page ends there.
    last_id: i64,
    /// What a page becomes on the task that reads it: a chunk of the file, or the leads themselves.
    prepare: fn(Vec<ExportedLead>) -> anyhow::Result<T>,
    /// A page with no leads in it is `None`.
    reading: std::collections::VecDeque<tokio::task::JoinHandle<anyhow::Result<Option<T>>>>,
}

/// Pages read ahead of the one being written: each holds at most `PAGE` leads and their chunk.
const READS_AHEAD: usize = 2;

impl<T: Send + 'static> Pages<T> {
    async fn start(
        store: &Store,
        prepare: fn(Vec<ExportedLead>) -> anyhow::Result<T>,
    ) -> anyhow::Result<Pages<T>> {
        let (asked_through, last_id) = match store.export_span().await? {
            Some((lowest, highest)) => (lowest - 1, highest),
            None => (0, 0),
        };
        Ok(Pages {
            store: store.clone(),
            asked_through,
            last_id,
            prepare,
            reading: std::collections::VecDeque::new(),
        })
    }

    /// The next page with leads in it, prepared, or `None` after the last one.
    async fn next(&mut self) -> anyhow::Result<Option<T>> {
        loop {
            while self.reading.len() < READS_AHEAD && self.asked_through < self.last_id {
                let (after, through) = (self.asked_through, self.last_id.min(self.asked_through + PAGE));
                let (store, prepare) = (self.store.clone(), self.prepare);
                self.reading.push_back(tokio::spawn(async move {
                    let page = store.export_page(after, through).await?;
                    // Ids left unused (erased leads, a sequence's gaps) leave a page short or empty.
                    if page.is_empty() { Ok(None) } else { prepare(page).map(Some) }
                }));
                self.asked_through = through;
            }
            let Some(reading) = self.reading.pop_front() else {
                return Ok(None);
            };
            if let Some(prepared) = reading.await?? {
                return Ok(Some(prepared));
            }
        }
    }
}

impl<T> Drop for Pages<T> {
    /// A cancelled download reads no page it would not send.
    fn drop(&mut self) {
        self.reading.iter().for_each(tokio::task::JoinHandle::abort);
    }
}

/// The byte-order mark makes Excel read the file as UTF-8 (Cyrillic names stay readable). No
/// `sep=,` line: Excel then ignores the mark (ADR 0022).
fn csv_start() -> anyhow::Result<Vec<u8>> {
    let mut writer = csv_writer("\u{FEFF}".as_bytes().to_vec());
    writer.write_record(CSV_HEADER)?;
    Ok(writer.into_inner().map_err(|e| e.into_error())?)
}

fn csv_rows(leads: Vec<ExportedLead>) -> anyhow::Result<Vec<u8>> {
    let mut writer = csv_writer(Vec::new());
    for lead in &leads {
        writer.write_record(csv_cells(lead).iter().map(|cell| cell.as_bytes()))?;
    }
    Ok(writer.into_inner().map_err(|e| e.into_error())?)
}

/// Where Excel's list separator is `;` (uk-UA), a cell holding `;` is quoted as one holding a
/// comma is. The csv crate quotes every field holding its comment character.
fn csv_writer(chunk: Vec<u8>) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new().comment(Some(b';')).from_writer(chunk)
}

fn jsonl_rows(leads: Vec<ExportedLead>) -> anyhow::Result<Vec<u8>> {
    let mut chunk = Vec::new();
    for lead in &leads {
        let line = JsonLine {
            id: lead.id,
            created_at: &lead.created_at,
            name: &lead.name,
            phone: &lead.phone,
            confirmation: &lead.confirmation,
            comment: lead.comment.as_deref(),
            status: lead.status.name(),
            reached_at: lead.reached_at.as_deref(),
            policy_version: &lead.policy_version,
            repeat_of: lead.repeat_of,
            held: lead.held.as_deref(),
            attribution: &lead.attribution,
            first_attempt_at: lead.first_attempt_at.as_deref(),
        };
        serde_json::to_writer(&mut chunk, &line)?;
        chunk.push(b'\n');
    }
    Ok(chunk)
}

/// The workbook, built in full first (its sheet goes to a temporary file, `xlsx_workbook`), then
/// zipped on a blocking thread that hands over `XLSX_CHUNK` bytes at a time.
async fn send_workbook(store: &Store, chunks: mpsc::Sender<anyhow::Result<Bytes>>) -> anyhow::Result<()> {
    let mut workbook = xlsx_workbook(store).await?;
    let reader_gone = chunks.clone();
    tokio::task::spawn_blocking(move || {
        let mut body = std::io::BufWriter::with_capacity(XLSX_CHUNK, ChunkSender(chunks));
        workbook.save_to_writer(&mut body)?;
        body.flush()?;
        anyhow::Ok(())
    })
    .await?
    // Nobody reads any more (the download was cancelled): nothing to tell.
    .or_else(|e| if reader_gone.is_closed() { Ok(()) } else { Err(e) })
}

/// Rows an Excel sheet holds besides the header.
const XLSX_MAX_LEADS: u32 = 1_048_575;

/// The leads as a workbook of one sheet with the CSV's columns. The sheet is in rust_xlsxwriter's
/// constant-memory mode: each row goes to a temporary file as the pages are read, so memory stays
/// flat; saving zips that file into the output as a stream.
async fn xlsx_workbook(store: &Store) -> anyhow::Result<Workbook> {
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet_with_constant_memory();
    sheet.set_name("Заявки")?;
    // Text-formatted cells stay text when edited in Excel too: retyping `=…` there is no formula.
    let text = rust_xlsxwriter::Format::new().set_num_format("@");
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (column, (title, width)) in CSV_HEADER.iter().zip(XLSX_WIDTHS).enumerate() {
        let column = u16::try_from(column).expect("18 columns");
        sheet.set_column_width(column, width)?;
        sheet.write_string_with_format(0, column, *title, &bold)?;
    }
    sheet.set_freeze_panes(1, 0)?;
    let mut row = 0;
    let mut pages = Pages::start(store, Ok).await?;
    while let Some(page) = pages.next().await? {
        for lead in &page {
            row += 1;
            anyhow::ensure!(
                row <= XLSX_MAX_LEADS,
                "more than {XLSX_MAX_LEADS} leads do not fit one Excel sheet: export them as CSV"
            );
            xlsx_row(sheet, row, lead, &text).context("writing a row of the Excel export")?;
        }
    }
    Ok(workbook)
}

/// Column widths in characters, in `CSV_HEADER`'s order.
const XLSX_WIDTHS: [f64; 18] = [
    8.0, 22.0, 24.0, 16.0, 14.0, 40.0, 12.0, 22.0, 14.0, 10.0, 14.0, 12.0, 12.0, 14.0, 12.0, 12.0, 30.0, 22.0,
];

fn xlsx_row(
    sheet: &mut Worksheet,
    row: u32,
    lead: &ExportedLead,
    text: &rust_xlsxwriter::Format,
) -> Result<(), rust_xlsxwriter::XlsxError> {
    let held = lead.held.as_ref().map(|codes| codes.join(" "));
    let [source, medium, campaign, content, term, referrer] = lead.attribution.values();
    let texts = [
        (1, Some(lead.created_at.as_str())),
        (2, Some(lead.name.as_str())),
        (3, Some(lead.phone.as_str())),
        (4, Some(lead.confirmation.as_str())),
        (5, lead.comment.as_deref()),
        (6, Some(lead.status.name())),
        (7, lead.reached_at.as_deref()),
        (8, Some(lead.policy_version.as_str())),
        (10, held.as_deref()),
        (11, source),
        (12, medium),
        (13, campaign),
        (14, content),
        (15, term),
        (16, referrer),
        (17, lead.first_attempt_at.as_deref()),
    ];
    // Ids are numbers (Excel holds integers exactly up to 2^53); everything else is a string cell,
    // which Excel shows as it is and never runs, so no apostrophes here.
    sheet.write_number(row, 0, lead.id as f64)?;
    if let Some(first) = lead.repeat_of {
        sheet.write_number(row, 9, first as f64)?;
    }
    for (column, value) in texts {
        if let Some(value) = value.filter(|value| !value.is_empty()) {
            sheet.write_string_with_format(row, column, value, text)?;
        }
    }
    Ok(())
}

const XLSX_CHUNK: usize = 64 * 1024;

/// Hands each write to the HTTP body; fails once nobody reads it (the download was cancelled).
struct ChunkSender(mpsc::Sender<anyhow::Result<Bytes>>);

impl Write for ChunkSender {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .blocking_send(Ok(bytes::Bytes::copy_from_slice(buf)))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn csv_cells(lead: &ExportedLead) -> [Cow<'_, str>; 18] {
    let [source, medium, campaign, content, term, referrer] =
        lead.attribution.values().map(|value| neutralise_formula(value.unwrap_or("")));
    [
        lead.id.to_string().into(),
        lead.created_at.as_str().into(),
        neutralise_formula(&lead.name),
        neutralise_formula(&lead.phone),
        neutralise_formula(&lead.confirmation),
        neutralise_formula(lead.comment.as_deref().unwrap_or("")),
        lead.status.name().into(),
        lead.reached_at.as_deref().unwrap_or("").into(),
        lead.policy_version.as_str().into(),
        lead.repeat_of.map(|id| id.to_string()).unwrap_or_default().into(),
        lead.held.as_ref().map(|codes| codes.join(" ")).unwrap_or_default().into(),
        source,
        medium,
        campaign,
        content,
        term,
        referrer,
        lead.first_attempt_at.as_deref().unwrap_or("").into(),
    ]
}

/// A cell that a spreadsheet would run as a formula gets a leading apostrophe (OWASP's advice on
/// CSV injection): `=`, `+`, `-`, `@`, tab and carriage return start formulas in Excel and
/// LibreOffice. A phone written `+380…` is shown as `'+380…`, which is the price of safety.
///
/// An Excel whose list separator is `;` (uk-UA) splits a line at every `;`, and, with the quotes
/// then out of place, ends a row at every line break inside a cell: each piece after one starts a
/// cell of its own there. So a piece that would start a formula, or a quoted field, gets the
/// apostrophe too: `a;=1+1;b` is written `a;'=1+1;b`.
pub fn neutralise_formula(cell: &str) -> Cow<'_, str> {
    // Most cells start no formula and hold no separator: borrowed after one fast scan of their
    // bytes (the characters looked for are ASCII, which UTF-8 never uses inside another character).
    if !cell.starts_with(starts_formula) && memchr::memchr3(b';', b'\n', b'\r', cell.as_bytes()).is_none() {
        return Cow::Borrowed(cell);
    }
    neutralise_pieces(cell)
}

/// `neutralise_formula` the careful way, a character at a time: for the cells the scan did not pass.
fn neutralise_pieces(cell: &str) -> Cow<'_, str> {
    // Copied only once an apostrophe is needed.
    let mut safe: Option<String> = None;
    let mut starts_a_cell = true;
    for (at, c) in cell.char_indices() {
        if starts_a_cell && (starts_formula(c) || (c == '"' && at > 0)) {
            safe.get_or_insert_with(|| cell[..at].to_owned()).push('\'');
        }
        if let Some(safe) = &mut safe {
            safe.push(c);
        }
        starts_a_cell = matches!(c, ';' | '\n' | '\r');
    }
    safe.map_or(Cow::Borrowed(cell), Cow::Owned)
}

fn starts_formula(c: char) -> bool {
    matches!(c, '=' | '+' | '-' | '@' | '\t' | '\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised() {
        assert_eq!(neutralise_formula("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(neutralise_formula("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(neutralise_formula("-1+1"), "'-1+1");
        assert_eq!(neutralise_formula("Олена"), "Олена");
        assert_eq!(neutralise_formula("\"=1\""), "\"=1\"", "a quote opening the cell is CSV's own");
    }

    #[test]
    fn pieces_after_a_semicolon_or_a_line_break_are_neutralised_too() {
        assert_eq!(neutralise_formula("a;=1+1;b"), "a;'=1+1;b");
        assert_eq!(neutralise_formula("=a;@b;c"), "'=a;'@b;c");
        assert_eq!(neutralise_formula("дзвонити;+380671234567"), "дзвонити;'+380671234567");
        assert_eq!(neutralise_formula("a;\"=1+1\""), "a;'\"=1+1\"");
        assert_eq!(neutralise_formula("рядок\n-1+1"), "рядок\n'-1+1");
        assert_eq!(neutralise_formula("a;;b; c"), "a;;b; c");
    }

    proptest::proptest! {
        /// The shortcut for cells without separators never changes what the careful walk writes.
        #[test]
        fn the_shortcut_writes_what_the_walk_writes(cell in "[a-zО=+@\\-\t\r\n;\" ]{0,12}") {
            proptest::prop_assert_eq!(neutralise_formula(&cell), neutralise_pieces(&cell));
        }
    }

    /// Read as a uk-UA Excel reads it: split at `;` and line breaks, whatever the quotes.
    #[test]
    fn no_piece_of_a_csv_line_split_at_semicolons_starts_a_formula() {
        let name = "a;=1+1;b\n@SUM(A1);\"=HYPERLINK(\"\"x\"\")\"";
        let mut writer = csv::WriterBuilder::new().comment(Some(b';')).from_writer(Vec::new());
        writer.write_record(["1", &neutralise_formula(name), "x"]).unwrap();
        let line = String::from_utf8(writer.into_inner().unwrap()).unwrap();
        assert!(line.starts_with("1,\"a;'=1+1;b"), "a cell with `;` is quoted: {line}");
        for piece in line.split([';', '\n']).skip(1).filter(|piece| !piece.is_empty()) {
            let first = piece.chars().next().unwrap();
            assert!(!starts_formula(first) && first != '"', "{piece:?} in {line:?}");
        }
    }
}
