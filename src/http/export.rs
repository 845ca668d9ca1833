//! The inbox's downloads: every lead as CSV or as an Excel workbook, as `application::export`
//! audits and makes it, streamed a chunk at a time (ADR 0029). The request's time limit covers the
//! answer's head, which waits for the first chunk (so a database that is down still gets the error
//! answer, not an empty file); after it, each chunk must follow the one before within that same
//! limit, so a long download goes on as long as it keeps writing.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};

use super::REQUEST_TIME_LIMIT;
use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, actor};
use crate::application::export::{self, Export};
use crate::export::Format;
use crate::http::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/api/export.csv", get(export_csv))
        .route("/admin/api/export.xlsx", get(export_xlsx))
}

async fn export_csv(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
) -> Result<Response, AdminError> {
    let export = export::export(state.services(), Format::Csv, &actor(&session, &client)).await?;
    Ok(download(&state, Format::Csv, "text/csv; charset=utf-8", export))
}

/// The same leads and audit entry as the CSV, as an Excel workbook streamed while it is zipped.
async fn export_xlsx(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
) -> Result<Response, AdminError> {
    let export = export::export(state.services(), Format::Xlsx, &actor(&session, &client)).await?;
    Ok(download(&state, Format::Xlsx, XLSX_CONTENT_TYPE, export))
}

/// The export as `zayavky-DATE.EXTENSION`. A later failure, or a chunk that does not come within
/// `REQUEST_TIME_LIMIT`, ends the body unfinished, so the browser does not keep a cut file.
fn download(state: &AppState, format: Format, content_type: &'static str, export: Export) -> Response {
    let body = futures_util::stream::unfold(Some(export), |export| async move {
        let mut export = export?;
        let stopped = match tokio::time::timeout(REQUEST_TIME_LIMIT, export.next()).await {
            Ok(Some(Ok(chunk))) => return Some((Ok(chunk), Some(export))),
            Ok(None) => return None,
            Ok(Some(Err(e))) => e,
            Err(_) => anyhow::anyhow!("no chunk within {}s", REQUEST_TIME_LIMIT.as_secs()),
        };
        tracing::warn!(error = %stopped, "inbox: an export stopped before its end");
        Some((Err(stopped), None))
    });
    // The team's date, as every other date it sees.
    let filename = format!(
        "attachment; filename=\"zayavky-{}.{}\"",
        crate::notice::operators_date(state.clock.now()),
        format.extension()
    );
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CONTENT_DISPOSITION, HeaderValue::from_str(&filename).expect("ASCII")),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

const XLSX_CONTENT_TYPE: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
