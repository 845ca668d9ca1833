//! What the operators read: a page of the lead list (a filter, a search, pages newest first), the
//! calls to make now, one lead with its calls and repeats. Reading leads is handling personal
//! data: a page shown and a lead opened leave their audit entries (ids, never the search's text,
//! which may be a name or a phone), so paging through the list is no quieter than an export.

use jiff::Timestamp;

use super::{Actor, Services};
use crate::inbox::{LeadRecord, LeadView, PROMISE, Search};
use crate::store::{Attempt, Holder, LeadQuery, StoreError};
use crate::team::Action;

/// The most leads one page holds; a page asks for 1 to this many.
pub const PAGE_MOST: u32 = 200;

/// Which leads a list shows (`filter=` in the inbox's API).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// The open leads to call now, in calling order: one list, no pages, no search.
    Due,
    All,
    Open,
    /// Open past their 48 hours.
    Overdue,
    /// Open, held by the reader.
    Mine,
    /// Open, held by nobody.
    Free,
    /// Held for review.
    Held,
}

impl Filter {
    pub const ALL: [Filter; 7] =
        [Filter::Due, Filter::All, Filter::Open, Filter::Overdue, Filter::Mine, Filter::Free, Filter::Held];

    pub fn name(self) -> &'static str {
        match self {
            Filter::Due => "due",
            Filter::All => "all",
            Filter::Open => "open",
            Filter::Overdue => "overdue",
            Filter::Mine => "mine",
            Filter::Free => "free",
            Filter::Held => "held",
        }
    }

    pub fn from_name(name: &str) -> Option<Filter> {
        Filter::ALL.into_iter().find(|filter| filter.name() == name)
    }
}

/// A page as the reader asked for it.
pub struct PageAsked<'a> {
    pub filter: Filter,
    /// Part of a name, or a phone in any format; empty for none.
    pub search: &'a str,
    /// The page before this id (the last one shown); `None` for the first.
    pub before_id: Option<i64>,
    /// Leads a page holds, kept within 1 and `PAGE_MOST`.
    pub limit: u32,
}

/// The leads shown, as the inbox shows them, and the id to ask the next page before.
pub struct Page {
    pub leads: Vec<LeadView>,
    pub next_before_id: Option<i64>,
}

/// Why a page was not read.
#[derive(Debug, thiserror::Error)]
pub enum PageRefusal {
    /// The calls to make now are one list in their order: no search, no pages.
    #[error("the calls due are one list")]
    DueIsOneList,
    /// Longer than any name could be: refused before it becomes a search term per three letters.
    #[error("the search is longer than a name")]
    SearchTooLong,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A page of the list for the operator `reader` (an operator id, for `Mine`) at `now`, audited
/// for `actor` when it shows any lead.
pub async fn list(
    services: Services<'_>,
    asked: PageAsked<'_>,
    reader: i64,
    actor: &Actor,
    now: Timestamp,
) -> Result<Page, PageRefusal> {
    let store = services.store;
    let limit = asked.limit.clamp(1, PAGE_MOST);
    let (leads, next_before_id, search) = match newest_first_terms(asked.filter, reader, now) {
        Some(terms) => newest_first(services, &asked, terms, limit).await?,
        None if !asked.search.trim().is_empty() || asked.before_id.is_some() => {
            return Err(PageRefusal::DueIsOneList);
        }
        None => (store.due_leads(now, limit).await?, None, ""),
    };
    if !leads.is_empty() {
        let ids: Vec<String> = leads.iter().map(|lead| lead.id.to_string()).collect();
        let detail = format!("{}{search}: {}", asked.filter.name(), ids.join(" "));
        store.audit(actor.did(Action::ListedLeads, None, Some(detail))).await?;
    }
    let calendar = store.calendar(services.settings.settings_calendar(), now).await?;
    let leads = leads.into_iter().map(|lead| LeadView::new(lead, now, &calendar)).collect();
    Ok(Page { leads, next_before_id })
}

/// Which leads a newest-first list holds under `filter`: open only, sent before a time, held,
/// whose. `None` for the calls due, which are not such a list.
fn newest_first_terms(filter: Filter, reader: i64, now: Timestamp) -> Option<Terms> {
    Some(match filter {
        Filter::Due => return None,
        Filter::All => (false, None, false, Holder::Anyone),
        Filter::Open => (true, None, false, Holder::Anyone),
        Filter::Overdue => (true, Some(now - PROMISE), false, Holder::Anyone),
        Filter::Mine => (true, None, false, Holder::Operator { id: reader, now }),
        Filter::Free => (true, None, false, Holder::Nobody { now }),
        Filter::Held => (false, None, true, Holder::Anyone),
    })
}

/// `LeadQuery`'s `open_only`, `overdue_before`, `held` and `holder`.
type Terms = (bool, Option<Timestamp>, bool, Holder);

/// A page of the newest-first list, the id to ask the next page before, and how the search read
/// the text (for the audit trail).
async fn newest_first(
    services: Services<'_>,
    asked: &PageAsked<'_>,
    (open_only, overdue_before, held, holder): Terms,
    limit: u32,
) -> Result<(Vec<LeadRecord>, Option<i64>, &'static str), PageRefusal> {
    if asked.search.chars().count() > crate::lead::MAX_NAME_CHARS {
        return Err(PageRefusal::SearchTooLong);
    }
    let (name_pattern, phone) = Search::parse(asked.search).patterns();
    let search = match (&name_pattern, &phone) {
        (Some(_), _) => ", search by name",
        (_, Some(_)) => ", search by phone",
        _ => "",
    };
    let query = LeadQuery {
        name_pattern,
        phone,
        open_only,
        overdue_before,
        before_id: asked.before_id,
        limit: limit + 1,
        held,
        holder,
    };
    let (leads, next_before_id) = one_page(services.store.find_leads(query).await?, limit, |lead| lead.id);
    Ok((leads, next_before_id, search))
}

/// A page of a newest-first list read with `limit + 1` rows: the first `limit`, and the id to ask
/// the next page before (`None` when nothing is left).
pub fn one_page<T>(mut rows: Vec<T>, limit: u32, id: impl Fn(&T) -> i64) -> (Vec<T>, Option<i64>) {
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next_before_id = if more { rows.last().map(id) } else { None };
    (rows, next_before_id)
}

/// One lead as the inbox shows it at `now`, with its calls and the person's later submissions,
/// oldest first.
pub struct LeadShown {
    pub lead: LeadView,
    pub attempts: Vec<Attempt>,
    pub repeats: Vec<LeadRecord>,
}

/// Lead `id` as it stands at `now` (`None`: no such lead): what an action on it answers with.
pub async fn lead(services: Services<'_>, id: i64, now: Timestamp) -> Result<Option<LeadShown>, StoreError> {
    let store = services.store;
    let Some(lead) = store.lead(id).await? else { return Ok(None) };
    let attempts = store.attempts(id).await?;
    let repeats = store.repeats(id).await?;
    let calendar = store.calendar(services.settings.settings_calendar(), now).await?;
    Ok(Some(LeadShown { lead: LeadView::new(lead, now, &calendar), attempts, repeats }))
}

/// Lead `id` opened by `actor` to read: as `lead`, and audited.
pub async fn open(
    services: Services<'_>,
    id: i64,
    actor: &Actor,
    now: Timestamp,
) -> Result<Option<LeadShown>, StoreError> {
    let shown = lead(services, id, now).await?;
    if shown.is_some() {
        services.store.audit(actor.did(Action::OpenedLead, Some(id), None)).await?;
    }
    Ok(shown)
}
