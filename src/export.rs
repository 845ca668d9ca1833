//! `zayavka leads export`: every lead, oldest first, as CSV (for Excel) or JSON Lines.

use std::io::Write;

use crate::lead::Lead;
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
}

/// Leads read from the database per page, so memory stays flat however many there are.
const PAGE: u32 = 1000;

const CSV_HEADER: [&str; 6] = ["id", "created_at", "name", "phone", "confirmation", "comment"];

pub async fn export(store: &Store, format: Format, out: impl Write) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    match format {
        Format::Csv => {
            // The byte-order mark makes Excel read the file as UTF-8 (Cyrillic names stay readable).
            out.write_all("\u{FEFF}".as_bytes())?;
            let mut writer = csv::Writer::from_writer(out);
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
                    serde_json::to_writer(&mut out, lead)?;
                    out.write_all(b"\n")?;
                }
                Ok(())
            })
            .await?;
            out.flush()?;
        }
    }
    Ok(())
}

async fn for_each_page(
    store: &Store,
    mut f: impl FnMut(&[Lead]) -> anyhow::Result<()>,
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

fn csv_cells(lead: &Lead) -> [String; 6] {
    [
        lead.id.to_string(),
        lead.created_at.clone(),
        neutralise_formula(&lead.name),
        neutralise_formula(&lead.phone),
        neutralise_formula(&lead.confirmation),
        neutralise_formula(lead.comment.as_deref().unwrap_or("")),
    ]
}

/// A cell that a spreadsheet would run as a formula gets a leading apostrophe (OWASP's advice on
/// CSV injection): `=`, `+`, `-`, `@`, tab and carriage return start formulas in Excel and
/// LibreOffice. A phone written `+380…` is shown as `'+380…`, which is the price of safety.
pub fn neutralise_formula(cell: &str) -> String {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}"),
        _ => cell.to_owned(),
    }
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
    }
}
