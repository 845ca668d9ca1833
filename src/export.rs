//! `zayavka leads export`: every lead, oldest first, as CSV (for Excel) or JSON Lines.

use std::io::Write;

use crate::inbox::LeadRecord;
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
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
    }
    Ok(())
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
