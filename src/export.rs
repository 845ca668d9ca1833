//! `zayavka leads export`: every lead, oldest first, as CSV, JSON Lines or an Excel workbook.

use std::io::Write;

use anyhow::Context as _;
use rust_xlsxwriter::{Workbook, Worksheet};

use crate::inbox::LeadRecord;
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
    /// An Excel workbook: every cell typed as text or a number, so nothing in it is a formula.
    Xlsx,
}

/// Leads read from the database per page, so memory stays flat however many there are.
const PAGE: u32 = 1000;

/// The contract's columns first; then where the lead stands, its consent evidence (the privacy
/// policy's version in force at `created_at`), for a repeat the person's first lead, and for a
/// lead held for review the reasons.
const CSV_HEADER: [&str; 17] = [
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
}

pub async fn export(store: &Store, format: Format, out: impl Write + Send) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    match format {
        Format::Csv => {
            // The byte-order mark makes Excel read the file as UTF-8 (Cyrillic names stay readable).
            // No `sep=,` line: Excel then ignores the mark (ADR 0022).
            out.write_all("\u{FEFF}".as_bytes())?;
            // Where Excel's list separator is `;` (uk-UA), a cell holding `;` is quoted as one
            // holding a comma is. The csv crate quotes every field holding its comment character.
            let mut writer = csv::WriterBuilder::new().comment(Some(b';')).from_writer(out);
            writer.write_record(CSV_HEADER)?;
            for_each_page(store, |leads| {
                leads.iter().try_for_each(|lead| writer.write_record(csv_cells(lead)))?;
                Ok(())
            })
            .await?;
            writer.flush()?;
        }
        Format::Jsonl => {
            for_each_page(store, |leads| {
                for lead in leads {
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
                    };
                    serde_json::to_writer(&mut out, &line)?;
                    out.write_all(b"\n")?;
                }
                Ok(())
            })
            .await?;
            out.flush()?;
        }
        Format::Xlsx => {
            let mut workbook = xlsx_workbook(store).await?;
            workbook.save_to_writer(&mut out)?;
            out.flush()?;
        }
    }
    Ok(())
}

/// Rows an Excel sheet holds besides the header.
const XLSX_MAX_LEADS: u32 = 1_048_575;

/// The leads as a workbook of one sheet with the CSV's columns. The sheet is in rust_xlsxwriter's
/// constant-memory mode: each row goes to a temporary file as the pages are read, so memory stays
/// flat; saving zips that file into the output as a stream.
pub async fn xlsx_workbook(store: &Store) -> anyhow::Result<Workbook> {
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet_with_constant_memory();
    sheet.set_name("Заявки")?;
    // Text-formatted cells stay text when edited in Excel too: retyping `=…` there is no formula.
    let text = rust_xlsxwriter::Format::new().set_num_format("@");
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (column, (title, width)) in CSV_HEADER.iter().zip(XLSX_WIDTHS).enumerate() {
        let column = u16::try_from(column).expect("17 columns");
        sheet.set_column_width(column, width)?;
        sheet.write_string_with_format(0, column, *title, &bold)?;
    }
    sheet.set_freeze_panes(1, 0)?;
    let mut row = 0;
    for_each_page(store, |leads| {
        for lead in leads {
            row += 1;
            anyhow::ensure!(
                row <= XLSX_MAX_LEADS,
                "more than {XLSX_MAX_LEADS} leads do not fit one Excel sheet: export them as CSV"
            );
            xlsx_row(sheet, row, lead, &text).context("writing a row of the Excel export")?;
        }
        Ok(())
    })
    .await?;
    Ok(workbook)
}

/// Column widths in characters, in `CSV_HEADER`'s order.
const XLSX_WIDTHS: [f64; 17] =
    [8.0, 22.0, 24.0, 16.0, 14.0, 40.0, 12.0, 22.0, 14.0, 10.0, 14.0, 12.0, 12.0, 14.0, 12.0, 12.0, 30.0];

fn xlsx_row(
    sheet: &mut Worksheet,
    row: u32,
    lead: &LeadRecord,
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

/// A workbook saved as a stream of chunks, for an HTTP body: the zipping runs on a blocking thread
/// and hands over `XLSX_CHUNK` bytes at a time, so a few chunks are held however large the file.
pub fn xlsx_stream(
    mut workbook: Workbook,
) -> impl futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static {
    let (chunks, mut received) = tokio::sync::mpsc::channel::<std::io::Result<bytes::Bytes>>(4);
    tokio::task::spawn_blocking(move || {
        let mut body = std::io::BufWriter::with_capacity(XLSX_CHUNK, ChunkSender(chunks.clone()));
        let saved = workbook.save_to_writer(&mut body).map_err(std::io::Error::other);
        if let Err(e) = saved.and_then(|()| body.flush()) {
            tracing::warn!(error = %e, "inbox: the Excel export stopped before its end");
            // An error ends the body unfinished, so the browser does not keep a cut file.
            let _ = chunks.blocking_send(Err(e));
        }
    });
    futures_util::stream::poll_fn(move |context| received.poll_recv(context))
}

const XLSX_CHUNK: usize = 64 * 1024;

/// Hands each write to the HTTP body; fails once nobody reads it (the download was cancelled).
struct ChunkSender(tokio::sync::mpsc::Sender<std::io::Result<bytes::Bytes>>);

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

async fn for_each_page(
    store: &Store,
    mut f: impl FnMut(&[LeadRecord]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut after = 0;
    loop {
        let page = store.leads_after(after, PAGE).await?;
        let Some(last) = page.last() else {
            return Ok(());
        };
        after = last.id;
        f(&page)?;
    }
}

fn csv_cells(lead: &LeadRecord) -> [String; 17] {
    let [source, medium, campaign, content, term, referrer] =
        lead.attribution.values().map(|value| neutralise_formula(value.unwrap_or("")));
    [
        lead.id.to_string(),
        lead.created_at.clone(),
        neutralise_formula(&lead.name),
        neutralise_formula(&lead.phone),
        neutralise_formula(&lead.confirmation),
        neutralise_formula(lead.comment.as_deref().unwrap_or("")),
        lead.status.name().to_owned(),
        lead.reached_at.clone().unwrap_or_default(),
        lead.policy_version.clone(),
        lead.repeat_of.map(|id| id.to_string()).unwrap_or_default(),
        lead.held.as_ref().map(|codes| codes.join(" ")).unwrap_or_default(),
        source,
        medium,
        campaign,
        content,
        term,
        referrer,
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
pub fn neutralise_formula(cell: &str) -> String {
    let mut safe = String::with_capacity(cell.len() + 1);
    let mut starts_a_cell = true;
    for c in cell.chars() {
        if starts_a_cell && (starts_formula(c) || (c == '"' && !safe.is_empty())) {
            safe.push('\'');
        }
        safe.push(c);
        starts_a_cell = matches!(c, ';' | '\n' | '\r');
    }
    safe
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
