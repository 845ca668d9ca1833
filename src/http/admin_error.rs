//! The inbox API's one error type. Each variant knows its status and its sentence in Ukrainian;
//! the body is always `{"error": "…"}` (`ErrorBody`), with a flag the inbox acts on where it must
//! do more than show the sentence. A failure on the server's side is logged here, once, as the
//! answer is made.

use std::borrow::Cow;
use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use ts_rs::TS;

use crate::store::StoreError;

/// Every error answer of the inbox's API: the sentence to show, and a flag where the inbox must do
/// more than show it.
#[derive(Debug, Serialize, TS)]
pub struct ErrorBody {
    pub error: String,
    /// The password was right; the account's second factor is asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "true")]
    pub code_required: Option<bool>,
    /// The settings require a second factor this session has not set up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "true")]
    pub second_factor_required: Option<bool>,
}

#[derive(Debug)]
pub enum AdminError {
    /// 400: the request is not what the API takes, as the sentence says.
    BadRequest(&'static str),
    /// 401: no session, or it has ended.
    SignedOut,
    /// 401: the e-mail or the password is wrong (which one is not said).
    WrongPassword,
    /// 401: the password was right; the account's second factor is asked
    /// (`"code_required": true`), as the sentence says.
    CodeRequired(&'static str),
    /// 403: the CSRF token or `Origin` is not this site's.
    ForeignOrigin,
    /// 403: the settings require a second factor this session has not set up
    /// (`"second_factor_required": true`).
    SecondFactorRequired,
    /// 403: only an admin may do this.
    NotAnAdmin,
    /// 404: no such path, or a setup link that does not work (the same answer).
    NotFound,
    LeadNotFound,
    NoSuchAccount,
    /// The notification was sent or dropped meanwhile.
    NotificationGone,
    /// The day is not on the inbox's list of closed days.
    NotAClosedDay,
    /// 409: the lead or account is not in a state for this, as the sentence says.
    Conflict(&'static str),
    /// 409: the lead is held for review, to be released before anyone takes or calls it.
    LeadHeld,
    /// 413
    TooLarge,
    /// 422: the request asks for something it contradicts, as the sentence says.
    Unprocessable(&'static str),
    /// 415
    NotJson,
    /// 429: too many sign-ins from this address or for this account.
    TooManyLogins(Duration),
    /// 429: the sentence says until when; `Retry-After` says it in seconds.
    TryLater(String, Duration),
    /// 500: hashing a new password failed.
    Hashing(anyhow::Error),
    /// 500: the figures' 30 days could not be placed in the operators' zone.
    StatsWindow(jiff::Error),
    /// 500: the second factor's QR code could not be made.
    QrCode(anyhow::Error),
    /// 503: an operator's second-factor secret does not open with the secret key file.
    SecretKey {
        operator_id: i64,
    },
    /// 503: the database did not answer.
    Database(StoreError),
    /// 503: an export could not begin (its first page did not come).
    ExportFailed(anyhow::Error),
    /// An error axum answered itself (a method the path does not take, a malformed path
    /// parameter), given the API's shape.
    Plain(StatusCode, &'static str),
}

impl AdminError {
    pub fn status(&self) -> StatusCode {
        match self {
            AdminError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminError::SignedOut | AdminError::WrongPassword | AdminError::CodeRequired(_) => {
                StatusCode::UNAUTHORIZED
            }
            AdminError::ForeignOrigin | AdminError::SecondFactorRequired | AdminError::NotAnAdmin => {
                StatusCode::FORBIDDEN
            }
            AdminError::NotFound
            | AdminError::LeadNotFound
            | AdminError::NoSuchAccount
            | AdminError::NotificationGone
            | AdminError::NotAClosedDay => StatusCode::NOT_FOUND,
            AdminError::Conflict(_) | AdminError::LeadHeld => StatusCode::CONFLICT,
            AdminError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            AdminError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AdminError::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AdminError::TooManyLogins(_) | AdminError::TryLater(..) => StatusCode::TOO_MANY_REQUESTS,
            AdminError::Hashing(_) | AdminError::StatsWindow(_) | AdminError::QrCode(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            AdminError::SecretKey { .. } | AdminError::Database(_) | AdminError::ExportFailed(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AdminError::Plain(status, _) => *status,
        }
    }

    fn message(&self) -> Cow<'static, str> {
        let sentence = match self {
            AdminError::BadRequest(sentence)
            | AdminError::CodeRequired(sentence)
            | AdminError::Conflict(sentence)
            | AdminError::Unprocessable(sentence)
            | AdminError::Plain(_, sentence) => sentence,
            AdminError::SignedOut => "Увійдіть, щоб продовжити.",
            AdminError::WrongPassword => "Неправильна електронна пошта або пароль.",
            AdminError::ForeignOrigin => "Запит відхилено. Оновіть сторінку.",
            AdminError::SecondFactorRequired => "Спершу увімкніть двоетапну перевірку.",
            AdminError::NotAnAdmin => "Це може зробити лише адміністратор.",
            AdminError::NotFound => "Не знайдено.",
            AdminError::LeadNotFound => "Заявку не знайдено (можливо, її видалено).",
            AdminError::LeadHeld => "Ця заявка на перевірці: спершу передайте її в роботу.",
            AdminError::NoSuchAccount => "Такого облікового запису немає.",
            AdminError::NotificationGone => {
                "Цього сповіщення вже немає в черзі: його надіслано або відкинуто."
            }
            AdminError::NotAClosedDay => "Цього дня немає в списку вихідних.",
            AdminError::TooLarge => "Запит завеликий.",
            AdminError::NotJson => "Надсилайте дані як JSON.",
            AdminError::TooManyLogins(_) => "Забагато спроб входу. Спробуйте за хвилину.",
            AdminError::TryLater(sentence, _) => return sentence.clone().into(),
            AdminError::Hashing(_) => "Щось пішло не так. Спробуйте ще раз.",
            AdminError::StatsWindow(_) => "Не вдалося порахувати.",
            AdminError::QrCode(_) => "Не вдалося створити QR-код. Спробуйте ще раз.",
            AdminError::SecretKey { .. } => "Не вдалося перевірити код. Зверніться до адміністратора.",
            AdminError::Database(_) => "База даних зараз недоступна. Спробуйте за хвилину.",
            AdminError::ExportFailed(_) => "Не вдалося зібрати файл. Спробуйте ще раз.",
        };
        sentence.into()
    }

    /// The answer's body: the sentence, with the flag the inbox acts on, if any.
    fn body(&self) -> ErrorBody {
        let flag = |set: bool| set.then_some(true);
        ErrorBody {
            error: self.message().into_owned(),
            code_required: flag(matches!(self, AdminError::CodeRequired(_))),
            second_factor_required: flag(matches!(self, AdminError::SecondFactorRequired)),
        }
    }

    /// Seconds to wait, for `Retry-After`.
    fn retry_after(&self) -> Option<u64> {
        match self {
            AdminError::TooManyLogins(wait) | AdminError::TryLater(_, wait) => {
                Some(wait.as_secs_f64().ceil().max(1.0) as u64)
            }
            _ => None,
        }
    }

    /// What the server's log says of it: failures on our side, and sign-in floods.
    fn log(&self) {
        match self {
            AdminError::TooManyLogins(_) => tracing::warn!("inbox: login rate-limited"),
            AdminError::Hashing(e) => tracing::error!(error = %e, "inbox: hashing a new operator's password"),
            AdminError::StatsWindow(e) => tracing::error!(error = %e, "inbox: the stats window"),
            AdminError::QrCode(e) => tracing::error!(error = %e, "inbox: making the second factor's QR code"),
            AdminError::SecretKey { operator_id } => tracing::error!(
                operator = operator_id,
                "inbox: a second-factor secret does not open with the secret key file"
            ),
            AdminError::Database(e) => tracing::error!(error = %e, "inbox: database error"),
            AdminError::ExportFailed(e) => tracing::error!(error = %e, "inbox: export failed"),
            _ => {}
        }
    }
}

/// A new account's e-mail or password, as the inbox says what is wrong with them.
impl From<crate::application::accounts::AccountError> for AdminError {
    fn from(e: crate::application::accounts::AccountError) -> Self {
        use crate::application::accounts::AccountError;
        use crate::auth::NewAccountError;
        match e {
            AccountError::Invalid(NewAccountError::NotAnEmail(_)) => {
                AdminError::BadRequest("Це не схоже на адресу електронної пошти.")
            }
            AccountError::Invalid(NewAccountError::ShortPassword) => {
                const _: () =
                    assert!(crate::auth::MIN_PASSWORD_CHARS == 10, "the sentence below names the limit");
                AdminError::BadRequest("Пароль має містити щонайменше 10 символів.")
            }
            AccountError::Hashing(e) => AdminError::Hashing(e),
        }
    }
}

impl From<crate::application::export::ExportError> for AdminError {
    fn from(e: crate::application::export::ExportError) -> Self {
        use crate::application::export::ExportError;
        match e {
            ExportError::Failed(e) => AdminError::ExportFailed(e),
            ExportError::Store(e) => AdminError::Database(e),
        }
    }
}

impl From<crate::application::figures::FiguresError> for AdminError {
    fn from(e: crate::application::figures::FiguresError) -> Self {
        use crate::application::figures::FiguresError;
        match e {
            FiguresError::Store(e) => AdminError::Database(e),
            FiguresError::Window(e) => AdminError::StatsWindow(e),
        }
    }
}

impl From<StoreError> for AdminError {
    fn from(e: StoreError) -> AdminError {
        AdminError::Database(e)
    }
}

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        self.log();
        let mut response = (self.status(), Json(self.body())).into_response();
        if let Some(seconds) = self.retry_after() {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
