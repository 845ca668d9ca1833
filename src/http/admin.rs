//! The operators' inbox: the React app's HTML shell on `/admin` and `/admin/…`, and its JSON API
//! under `/admin/api` (`docs/admin-api.md`). Every API answer is `Cache-Control: no-store` (it
//! holds personal data) and every API error is JSON; every state-changing request needs the
//! session's CSRF token.

use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Extension, Json, Router};
use jiff::Timestamp;
use serde::Deserialize;
use serde_json::json;
use tower_http::set_header::SetResponseHeaderLayer;

use super::client::ClientInfo;
use super::inbox_api::{
    AdminError, AdminOnly, AnySession, MAX_BODY_BYTES, OverHttps, SignedIn, audit_entry, errors_as_json,
    read_json, same_origin, session_cookie, session_token,
};
use crate::application;
use crate::auth;
use crate::http::AppState;
use crate::inbox::{CallPlan, LeadRecord, LeadView, Outcome, PROMISE, Search};
use crate::store::{AuditEntry, CountsAt, Holder, LeadQuery, Operator, Session};
use crate::team::{Action, account_detail};

/// Longest call note, in characters.
const MAX_NOTE_CHARS: usize = 1000;
/// Days the inbox's figures look back.
pub const STATS_DAYS: i64 = 30;

/// The inbox's routes, with the other areas of its API (`areas`: claims, team, second factor),
/// under one set of layers: the body limit, JSON errors and `no-store`.
pub fn router(areas: Router<AppState>) -> Router<AppState> {
    let api = Router::new()
        .route("/admin/api/session", get(session))
        .route("/admin/api/login", post(login))
        .route("/admin/api/setup", post(setup))
        .route("/admin/api/logout", post(logout))
        .route("/admin/api/leads", get(list_leads))
        .route("/admin/api/leads/{id}", get(lead))
        .route("/admin/api/leads/{id}/attempts", post(add_attempt))
        .route("/admin/api/leads/{id}/release", post(release))
        .route("/admin/api/stats", get(stats))
        .route("/admin/api/erase", post(erase))
        .merge(areas)
        .route("/admin/api", any(not_found))
        .route("/admin/api/", any(not_found))
        .route("/admin/api/{*rest}", any(not_found))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::map_response(errors_as_json))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ));
    Router::new()
        .route("/admin", get(shell))
        .route("/admin/setup", get(setup_page))
        .route("/admin/{*path}", get(shell))
        .merge(api)
}

/// The inbox app; it signs in and loads everything through the API.
async fn shell(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let mut response = super::pages::page(&state.site.admin, &headers);
    response.headers_mut().insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    response
}

/// The first start's setup page: the inbox app, which shows the form to create the first operator,
/// while the link's token works; otherwise the site's "not found" page, as for any unknown path.
async fn setup_page(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    headers: HeaderMap,
    query: Result<Query<SetupQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let token = query.map(|Query(query)| query.token).unwrap_or_default();
    let offered = match setup_offered(&state, &client, &token).await {
        Ok(offered) => offered,
        Err(e) => return e.into_response(),
    };
    if !offered {
        return super::pages::not_found_page(&state, &headers);
    }
    shell(State(state), headers).await
}

#[derive(Deserialize)]
struct SetupQuery {
    #[serde(default)]
    token: String,
}

/// Whether this client may create the first operator with this token: only over a connection a
/// stranger on the network cannot read (this machine, or HTTPS), with a token that is still
/// good, while no operator exists.
async fn setup_offered(state: &AppState, client: &ClientInfo, token: &str) -> Result<bool, AdminError> {
    if !(client.ip.is_loopback() || client.https) || token.is_empty() {
        return Ok(false);
    }
    Ok(state.store.setup_token_valid(auth::token_hash(token)).await?)
}

async fn not_found() -> AdminError {
    AdminError::new(StatusCode::NOT_FOUND, "Не знайдено.")
}

fn session_answer(state: &AppState, session: &Session) -> serde_json::Value {
    json!({
        "email": session.email,
        "role": session.role,
        "csrf_token": session.csrf_token,
        "second_factor": { "on": session.second_factor, "required": state.settings.require_2fa },
    })
}

async fn session(State(state): State<AppState>, AnySession(session): AnySession) -> Json<serde_json::Value> {
    Json(session_answer(&state, &session))
}

#[derive(Deserialize)]
struct Login {
    email: String,
    password: String,
    /// The authenticator app's code or a recovery code, for an account with a second factor.
    #[serde(default)]
    code: String,
}

async fn login(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    OverHttps(https): OverHttps,
    request: Request,
) -> Result<Response, AdminError> {
    if !same_origin(request.headers(), https) {
        return Err(AdminError::foreign_origin());
    }
    // Before the body is read: a flood from one address costs a header each, not its bodies.
    state.login_limiter.check_address(client.ip).map_err(AdminError::too_many_logins)?;
    let Login { email, password, code } = read_json(request).await?;
    let email = auth::normalise_email(&email);
    state.login_limiter.check_account(client.ip, &email).map_err(AdminError::too_many_logins)?;
    let operator = state.store.operator(email.clone()).await?;
    let hash = operator.as_ref().map(|o| o.password_hash.clone());
    let matches = auth::check_password(hash, password).await;
    let Some(operator) = operator.filter(|_| matches) else {
        tracing::warn!("inbox: failed login");
        let typed = email.chars().take(auth::MAX_EMAIL_CHARS).collect();
        state.store.audit(failed_sign_in(typed, None, &client)).await?;
        return Err(AdminError::new(StatusCode::UNAUTHORIZED, "Неправильна електронна пошта або пароль."));
    };
    let mut detail = None;
    if let Some(secret) = &operator.totp_secret {
        if code.trim().is_empty() {
            // The password was right: whoever typed it has it, which the owner must be able to see.
            let detail = Some("right password, no second-factor code".to_owned());
            state.store.audit(failed_sign_in(operator.email, detail, &client)).await?;
            return Err(AdminError::code_required("Введіть код із застосунку автентифікації."));
        }
        let now = Timestamp::now();
        super::second_factor::refuse_codes_while_guessed(&state, &operator, &code, now).await?;
        let secret = super::second_factor::open_secret(&state, operator.id, secret)?;
        match second_factor_passes(&state, &operator, &secret, &code).await? {
            SecondFactor::App => {}
            SecondFactor::RecoveryCode { left } => {
                detail = Some(format!("with a recovery code, {left} left"))
            }
            SecondFactor::Refused => {
                tracing::warn!("inbox: failed login (second factor)");
                let detail = Some("wrong second-factor code".to_owned());
                state.store.audit(failed_sign_in(operator.email.clone(), detail, &client)).await?;
                super::second_factor::count_wrong_code(&state, &operator, now).await?;
                return Err(AdminError::code_required(
                    "Код не підходить. Спробуйте наступний код із застосунку.",
                ));
            }
        }
    }
    sign_in(&state, operator, &client, https, detail).await
}

/// The audit entry of a refused sign-in: `actor` is the account, or what was typed as its e-mail.
fn failed_sign_in(actor: String, detail: Option<String>, client: &ClientInfo) -> AuditEntry {
    AuditEntry {
        actor,
        action: Action::SignInFailed,
        lead_id: None,
        detail,
        address: Some(client.ip.to_string()),
    }
}

/// How the second factor of a sign-in went.
enum SecondFactor {
    App,
    RecoveryCode { left: i64 },
    Refused,
}

/// Checks an app's code (each time step signs in once) or uses up a recovery code.
async fn second_factor_passes(
    state: &AppState,
    operator: &Operator,
    secret: &str,
    code: &str,
) -> Result<SecondFactor, AdminError> {
    use auth::second_factor;
    if second_factor::is_recovery_code(code) {
        let hash = second_factor::recovery_code_hash(code);
        if !state.store.use_recovery_code(operator.id, hash).await? {
            return Ok(SecondFactor::Refused);
        }
        let left = state.store.recovery_codes_left(operator.id).await?;
        return Ok(SecondFactor::RecoveryCode { left });
    }
    let Some(step) = second_factor::code_step(secret, code, Timestamp::now()) else {
        return Ok(SecondFactor::Refused);
    };
    Ok(if state.store.use_code_step(operator.id, step).await? {
        SecondFactor::App
    } else {
        SecondFactor::Refused
    })
}

#[derive(Deserialize)]
struct Setup {
    token: String,
    email: String,
    password: String,
}

/// Creates the first operator with the first start's setup token, and signs them in.
async fn setup(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    OverHttps(https): OverHttps,
    request: Request,
) -> Result<Response, AdminError> {
    if !same_origin(request.headers(), https) {
        return Err(AdminError::foreign_origin());
    }
    let Setup { token, email, password } = read_json(request).await?;
    // Checked before the password is hashed: a request without a good token costs a lookup only.
    if !setup_offered(&state, &client, &token).await? {
        return Err(AdminError::new(StatusCode::NOT_FOUND, "Не знайдено."));
    }
    let (email, hash) = new_account(&email, password).await?;
    let Some(operator) = state.store.add_first_operator(auth::token_hash(&token), email, hash).await? else {
        // Used a moment ago, or expired meanwhile.
        return Err(AdminError::new(StatusCode::NOT_FOUND, "Не знайдено."));
    };
    tracing::info!(operator = operator.id, "inbox: the first operator was created with the setup link");
    let added = AuditEntry {
        actor: operator.email.clone(),
        action: Action::AddedOperator,
        lead_id: None,
        detail: Some(format!(
            "{}, with the first start's link",
            account_detail(&operator.email, operator.role)
        )),
        address: Some(client.ip.to_string()),
    };
    state.store.audit(added).await?;
    sign_in(&state, operator, &client, https, None).await
}

/// A new account's e-mail (normalised) and password hash, or what is wrong with them.
pub async fn new_account(email: &str, password: String) -> Result<(String, String), AdminError> {
    let email = auth::normalise_email(email);
    auth::check_new_account(&email, &password).map_err(|problem| match problem {
        auth::NewAccountError::NotAnEmail(_) => {
            AdminError::bad_request("Це не схоже на адресу електронної пошти.")
        }
        auth::NewAccountError::ShortPassword => {
            AdminError::bad_request("Пароль має містити щонайменше 10 символів.")
        }
    })?;
    let hash = auth::new_password_hash(password).await.map_err(|e| {
        tracing::error!(error = %e, "inbox: hashing a new operator's password");
        AdminError::new(StatusCode::INTERNAL_SERVER_ERROR, "Щось пішло не так. Спробуйте ще раз.")
    })?;
    Ok((email, hash))
}

/// Starts a session for the operator: the cookie, and the session's CSRF token in the answer.
async fn sign_in(
    state: &AppState,
    operator: Operator,
    client: &ClientInfo,
    https: bool,
    audit_detail: Option<String>,
) -> Result<Response, AdminError> {
    let (token, csrf_token) = (auth::new_token(), auth::new_token());
    let token_hash = auth::token_hash(&token);
    let expires_at = Timestamp::now() + auth::SESSION_LIFETIME;
    // An account with a second factor gets here only once a code passed.
    let second_factor = operator.totp_secret.is_some();
    state
        .store
        .create_session(token_hash.clone(), operator.id, csrf_token.clone(), expires_at, second_factor)
        .await?;
    tracing::info!(operator = operator.id, "inbox: signed in");
    let cookie = session_cookie(token, auth::SESSION_LIFETIME.as_secs(), https);
    let session = Session {
        token_hash,
        operator_id: operator.id,
        email: operator.email,
        role: operator.role,
        csrf_token,
        second_factor,
        seen_due: false,
    };
    state.store.audit(audit_entry(&session, client, Action::SignedIn, None, audit_detail)).await?;
    Ok(([(header::SET_COOKIE, cookie)], Json(session_answer(state, &session))).into_response())
}

async fn logout(
    State(state): State<AppState>,
    OverHttps(https): OverHttps,
    AnySession(_): AnySession,
    headers: HeaderMap,
) -> Result<Response, AdminError> {
    if let Some(token) = session_token(&headers, https) {
        state.store.delete_session(auth::token_hash(&token)).await?;
    }
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, session_cookie(String::new(), 0, https))])
        .into_response())
}

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    filter: Option<String>,
    before_id: Option<i64>,
    limit: Option<u32>,
}

async fn list_leads(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Query(query) = query.map_err(|_| AdminError::bad_request("Некоректні параметри пошуку."))?;
    let now = Timestamp::now();
    let filter = query.filter.as_deref().unwrap_or("all");
    let limit = query.limit.unwrap_or(50).clamp(1, 200);
    let (leads, next_before_id, search) = if filter == "due" {
        // The calls to make now, in their order: one list, not pages of a newest-first one.
        if !query.q.trim().is_empty() || query.before_id.is_some() {
            return Err(AdminError::bad_request("Черга дзвінків не поєднується з пошуком і сторінками."));
        }
        (state.store.due_leads(now, limit).await?, None, "")
    } else {
        list_page(&state, &session, &query, filter, now, limit).await?
    };
    // Reading the list is reading leads: the trail says which were shown (ids, never the search's
    // text, which may be a name or a phone), so paging through it is no quieter than an export.
    if !leads.is_empty() {
        let ids: Vec<String> = leads.iter().map(|lead| lead.id.to_string()).collect();
        let detail = format!("{filter}{search}: {}", ids.join(" "));
        state.store.audit(audit_entry(&session, &client, Action::ListedLeads, None, Some(detail))).await?;
    }
    let leads: Vec<LeadView> = leads.into_iter().map(LeadView::from).collect();
    Ok(Json(json!({ "now": time(now), "leads": leads, "next_before_id": next_before_id })))
}

/// A page of the newest-first list under `filter`, the id to ask the next page before, and how
/// the search read the text (for the audit trail).
async fn list_page(
    state: &AppState,
    session: &Session,
    query: &ListQuery,
    filter: &str,
    now: Timestamp,
    limit: u32,
) -> Result<(Vec<LeadRecord>, Option<i64>, &'static str), AdminError> {
    let (open_only, created_before, held, holder) = match filter {
        "all" => (false, None, false, Holder::Anyone),
        "open" => (true, None, false, Holder::Anyone),
        "overdue" => (true, Some(now - PROMISE), false, Holder::Anyone),
        "mine" => (true, None, false, Holder::Operator { id: session.operator_id, now }),
        "free" => (true, None, false, Holder::Nobody { now }),
        "held" => (false, None, true, Holder::Anyone),
        _ => {
            return Err(AdminError::bad_request(
                "Невідомий фільтр: due, all, open, overdue, mine, free або held.",
            ));
        }
    };
    let (name_pattern, phone_pattern) = Search::parse(&query.q).patterns();
    let search = match (&name_pattern, &phone_pattern) {
        (Some(_), _) => ", search by name",
        (_, Some(_)) => ", search by phone",
        _ => "",
    };
    let leads = state
        .store
        .find_leads(LeadQuery {
            name_pattern,
            phone_pattern,
            open_only,
            created_before,
            before_id: query.before_id,
            limit: limit + 1,
            held,
            holder,
        })
        .await?;
    let (leads, next_before_id) = one_page(leads, limit, |lead| lead.id);
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

pub async fn lead_answer(state: &AppState, id: i64) -> Result<serde_json::Value, AdminError> {
    let lead = state.store.lead(id).await?.ok_or_else(AdminError::lead_not_found)?;
    let attempts = state.store.attempts(id).await?;
    let repeats = state.store.repeats(id).await?;
    Ok(json!({
        "now": time(Timestamp::now()),
        "lead": LeadView::from(lead),
        "attempts": attempts,
        "repeats": repeats,
    }))
}

async fn lead(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Json<serde_json::Value>, AdminError> {
    let answer = lead_answer(&state, id).await?;
    state.store.audit(audit_entry(&session, &client, Action::OpenedLead, Some(id), None)).await?;
    Ok(Json(answer))
}

#[derive(Deserialize)]
struct NewAttempt {
    /// Without one, a call that sets `call_back_at` is a `call_back`.
    #[serde(default)]
    outcome: Option<String>,
    #[serde(default)]
    note: String,
    /// "Передзвонити о …": when the person asked to be called (RFC 3339).
    #[serde(default)]
    call_back_at: Option<String>,
}

/// The furthest ahead a call-back may be set.
const CALL_BACK_WITHIN: jiff::SignedDuration = jiff::SignedDuration::from_hours(24 * 90);

async fn add_attempt(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
    request: Request,
) -> Result<Response, AdminError> {
    let NewAttempt { outcome, note, call_back_at } = read_json(request).await?;
    let now = Timestamp::now();
    let call_back_at = match call_back_at.as_deref().map(str::trim).filter(|at| !at.is_empty()) {
        None => None,
        Some(text) => {
            let at = text.parse::<Timestamp>().map_err(|_| {
                AdminError::bad_request("Час передзвону не розпізнано: потрібні дата й час (RFC 3339).")
            })?;
            if at > now + CALL_BACK_WITHIN {
                return Err(AdminError::bad_request("Передзвонити можна не пізніше ніж за 90 днів."));
            }
            Some(at)
        }
    };
    let outcome = match (outcome, call_back_at) {
        (None, Some(_)) => Outcome::CallBack,
        (outcome, _) => serde_json::from_value(json!(outcome))
            .map_err(|_| AdminError::bad_request("Оберіть результат дзвінка."))?,
    };
    if call_back_at.is_some() && !outcome.status_after(0).is_open() {
        return Err(AdminError::bad_request(
            "Час передзвону вказують для заявки, що лишається відкритою: «Не відповіли» або «Просить передзвонити».",
        ));
    }
    if outcome == Outcome::CallBack && call_back_at.is_none() {
        return Err(AdminError::bad_request("Вкажіть, о котрій передзвонити."));
    }
    // The cadence's times (a walk through working time) only where a retry is to be scheduled.
    let settings = &state.settings;
    let retries = if outcome == Outcome::NoAnswer && call_back_at.is_none() {
        settings.retry_cadence.retries_after(&settings.calendar(), now)
    } else {
        Vec::new()
    };
    let plan = CallPlan { now, call_back_at, retries };
    let note = crate::lead::clean::multi_line(&note);
    if note.chars().count() > MAX_NOTE_CHARS {
        return Err(AdminError::bad_request("Нотатка задовга: не більше 1000 символів."));
    }
    if !state.store.add_attempt(id, session.email.clone(), outcome, note, plan).await? {
        return Err(AdminError::lead_not_found());
    }
    tracing::info!(id, outcome = outcome.as_str(), operator = session.operator_id, "inbox: call logged");
    let detail = Some(outcome.as_str().to_owned());
    state.store.audit(audit_entry(&session, &client, Action::RecordedCall, Some(id), detail)).await?;
    Ok((StatusCode::CREATED, Json(lead_answer(&state, id).await?)).into_response())
}

/// Moves a held lead to the call list; its notifications then go out, once.
async fn release(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    SignedIn(session): SignedIn,
    Path(id): Path<i64>,
) -> Result<Response, AdminError> {
    let audit = audit_entry(&session, &client, Action::Released, Some(id), None);
    if !application::release(&state.store, &state.settings, id, audit).await? {
        // A colleague may have released it a moment ago.
        return Err(match state.store.lead(id).await? {
            Some(_) => AdminError::new(StatusCode::CONFLICT, "Цю заявку вже передано в роботу."),
            None => AdminError::lead_not_found(),
        });
    }
    state.notifier.wake();
    tracing::info!(id, operator = session.operator_id, "inbox: held lead released");
    Ok(Json(lead_answer(&state, id).await?).into_response())
}

async fn stats(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
) -> Result<Json<serde_json::Value>, AdminError> {
    let now = Timestamp::now();
    // Days as the operators live them (Kyiv); the store counts whole UTC hours, and Kyiv's
    // offset from UTC is whole hours.
    let zone = crate::notice::operators_zone();
    let first_day = now.to_zoned(zone.clone()).date() - jiff::Span::new().days(STATS_DAYS - 1);
    let window_start = first_day.to_zoned(zone.clone()).map_err(|e| {
        tracing::error!(error = %e, "inbox: the stats window");
        AdminError::new(StatusCode::INTERNAL_SERVER_ERROR, "Не вдалося порахувати.")
    })?;
    let counts = state
        .store
        .counts(CountsAt { overdue_before: now - PROMISE, window_start: window_start.timestamp() })
        .await?;
    let mut per_day: Vec<(jiff::civil::Date, i64)> = (0..STATS_DAYS)
        .filter_map(|n| first_day.checked_add(jiff::Span::new().days(n)).ok())
        .map(|day| (day, 0))
        .collect();
    for (hour, count) in &counts.per_hour {
        let Ok(at) = format!("{hour}:00:00Z").parse::<Timestamp>() else { continue };
        let day = at.to_zoned(zone.clone()).date();
        if let Some(entry) = per_day.iter_mut().find(|(d, _)| *d == day) {
            entry.1 += count;
        }
    }
    let per_day: Vec<serde_json::Value> =
        per_day.iter().map(|(day, count)| json!({ "date": day.to_string(), "count": count })).collect();
    // What the configured channels have not delivered yet: a channel that keeps failing (a
    // revoked bot token, a mailbox that refuses) would otherwise leave the operators unaware of
    // new leads.
    let channels = state.settings.notify.channels();
    let notifications: Vec<serde_json::Value> = state
        .store
        .outbox_queues()
        .await?
        .into_iter()
        .filter(|queue| channels.contains(&queue.channel))
        .map(|queue| {
            json!({
                "channel": queue.channel.name(),
                "waiting": queue.waiting,
                "failing": queue.failing,
                "oldest_at": queue.oldest_at,
                "last_error": queue.last_error,
            })
        })
        .collect();
    Ok(Json(json!({
        "now": time(now),
        "held": counts.held,
        "open": counts.open,
        "overdue": counts.overdue,
        "reached_in_time": { "reached": counts.reached_in_time, "due": counts.due },
        "per_day": per_day,
        "notifications": notifications,
    })))
}

#[derive(Deserialize)]
struct Erase {
    phone: String,
}

async fn erase(
    State(state): State<AppState>,
    Extension(client): Extension<ClientInfo>,
    AdminOnly(session): AdminOnly,
    request: Request,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Erase { phone } = read_json(request).await?;
    let e164 = crate::lead::normalise_phone(&phone)
        .ok_or_else(|| AdminError::bad_request("Це не схоже на номер телефону."))?;
    let erased = state.store.erase_phone(&e164).await?;
    tracing::info!(erased, operator = session.operator_id, "inbox: a person's leads erased");
    let detail = Some(format!("{erased} lead(s)"));
    state.store.audit(audit_entry(&session, &client, Action::Erased, None, detail)).await?;
    Ok(Json(json!({ "erased": erased })))
}

fn time(at: Timestamp) -> String {
    format!("{at:.6}")
}
