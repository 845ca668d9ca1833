//! The inbox's downloads: every lead as CSV or as an Excel workbook, audited, streamed a chunk at a
//! time as `export::chunks` makes them (ADR 0029). The request's time limit covers the answer's
//! head, which waits for the first chunk (so a database that is down still gets the error answer,
//! not an empty file); after it, each chunk must follow the one before within that same limit, so
//! a long download goes on as long as it keeps writing.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use bytes::Bytes;
use futures_util::StreamExt as _;

use super::REQUEST_TIME_LIMIT;
use super::admin_error::AdminError;
use super::client::ClientInfo;
use super::inbox_api::{AdminOnly, audit_entry};
use crate::export::Format;
use crate::http::AppState;
use crate::store::Session;
use crate::team::Action;

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
    let body = streamed(&state, Format::Csv).await?;
    exported(&state, &session, &client, "csv", "text/csv; charset=utf-8", body).await
}

/// The same leads and audit entry as the CSV, as an Excel workbook streamed while it is zipped.
async fn export_xlsx(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
) -> Result<Response, AdminError> {
    let body = streamed(&state, Format::Xlsx).await?;
    exported(&state, &session, &client, "xlsx", XLSX_CONTENT_TYPE, body).await
}

/// The export's body once its first chunk is there. A later failure, or a chunk that does not come
/// within `REQUEST_TIME_LIMIT`, ends the body unfinished, so the browser does not keep a cut file.
async fn streamed(state: &AppState, format: Format) -> Result<Body, AdminError> {
    let mut chunks = crate::export::chunks(state.store.clone(), format);
    let first = match chunks.recv().await {
        Some(Ok(chunk)) => Some(chunk),
        Some(Err(e)) => return Err(AdminError::ExportFailed(e)),
        None => None,
    };
    let rest = futures_util::stream::unfold(Some(chunks), |chunks| async move {
        let mut chunks = chunks?;
        let stopped = match tokio::time::timeout(REQUEST_TIME_LIMIT, chunks.recv()).await {
            Ok(Some(Ok(chunk))) => return Some((Ok(chunk), Some(chunks))),
            Ok(None) => return None,
            Ok(Some(Err(e))) => e,
            Err(_) => anyhow::anyhow!("no chunk within {}s", REQUEST_TIME_LIMIT.as_secs()),
        };
        tracing::warn!(error = %stopped, "inbox: an export stopped before its end");
        Some((Err(stopped), None))
    });
    let first = futures_util::stream::iter(first.map(Ok::<Bytes, anyhow::Error>));
    Ok(Body::from_stream(first.chain(rest)))
}

/// An export's answer, `zayavky-DATE.EXTENSION`, with its audit entry (the format as its detail).
async fn exported(
    state: &AppState,
    session: &Session,
    client: &ClientInfo,
    extension: &str,
    content_type: &'static str,
    body: Body,
) -> Result<Response, AdminError> {
    tracing::info!(operator = session.operator_id, "inbox: leads exported");
    let detail = Some(extension.to_owned());
    state.store.audit(audit_entry(session, client, Action::Exported, None, detail)).await?;
    let filename =
        format!("attachment; filename=\"zayavky-{}.{extension}\"", state.clock.now().strftime("%Y-%m-%d"));
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CONTENT_DISPOSITION, HeaderValue::from_str(&filename).expect("ASCII")),
        ],
        body,
    )
        .into_response())
}

const XLSX_CONTENT_TYPE: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
