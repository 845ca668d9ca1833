//! The inbox's JSON API as an operator's browser calls it, in-process: signing in (with a second
//! factor's code when the account has one) and then requests with the session cookie and the
//! CSRF token. Every request says it comes from 203.0.113.7 (believed where the test trusts
//! 127.0.0.1 as a proxy).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use super::{Answer, TestApp};

pub const PASSWORD: &str = "a long enough secret";
const CLIENT: &str = "203.0.113.7";

/// `POST /admin/api/login`; `code` is the second factor's, empty for none.
pub async fn sign_in(app: &TestApp, email: &str, password: &str, code: &str) -> Answer {
    sign_in_from(app, CLIENT, email, password, code).await
}

/// The same from another address, where a test signs in more often than the login limit lets
/// one address.
pub async fn sign_in_from(app: &TestApp, client: &str, email: &str, password: &str, code: &str) -> Answer {
    let body = json!({ "email": email, "password": password, "code": code }).to_string();
    let request = Request::post("/admin/api/login")
        .header("content-type", "application/json")
        .header("x-forwarded-for", client)
        .body(Body::from(body))
        .unwrap();
    app.call(request).await
}

pub struct SignedIn {
    pub cookie: String,
    pub csrf: String,
}

/// Signed in from `client` with `PASSWORD` and `code`, or the test fails.
pub async fn signed_in_with(app: &TestApp, client: &str, email: &str, code: &str) -> SignedIn {
    let answer = sign_in_from(app, client, email, PASSWORD, code).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let cookie = answer.header("set-cookie").split(';').next().unwrap().to_owned();
    SignedIn { cookie, csrf: answer.json()["csrf_token"].as_str().unwrap().to_owned() }
}

pub async fn signed_in(app: &TestApp, email: &str) -> SignedIn {
    signed_in_with(app, CLIENT, email, "").await
}

impl SignedIn {
    pub async fn get(&self, app: &TestApp, path: &str) -> Answer {
        let request = Request::get(path)
            .header("cookie", &self.cookie)
            .header("x-forwarded-for", CLIENT)
            .body(Body::empty())
            .unwrap();
        app.call(request).await
    }

    /// The ids a list filter of the inbox shows this operator.
    pub async fn listed(&self, app: &TestApp, filter: &str) -> Vec<i64> {
        let answer = self.get(app, &format!("/admin/api/leads?filter={filter}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        answer.json()["leads"].as_array().unwrap().iter().map(|l| l["id"].as_i64().unwrap()).collect()
    }

    pub async fn post(&self, app: &TestApp, path: &str, body: Value) -> Answer {
        self.post_with(app, path, &[], body).await
    }

    /// The same with more headers (an `Idempotency-Key`).
    pub async fn post_with(
        &self,
        app: &TestApp,
        path: &str,
        headers: &[(&str, &str)],
        body: Value,
    ) -> Answer {
        let mut request = Request::post(path)
            .header("cookie", &self.cookie)
            .header("x-csrf-token", &self.csrf)
            .header("x-forwarded-for", CLIENT)
            .header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        app.call(request.body(Body::from(body.to_string())).unwrap()).await
    }

    pub async fn delete(&self, app: &TestApp, path: &str) -> Answer {
        let request = Request::delete(path)
            .header("cookie", &self.cookie)
            .header("x-csrf-token", &self.csrf)
            .header("x-forwarded-for", CLIENT)
            .body(Body::empty())
            .unwrap();
        app.call(request).await
    }

    /// The audit trail, newest first (an admin's).
    pub async fn audit(&self, app: &TestApp) -> Vec<Value> {
        let answer = self.get(app, "/admin/api/audit").await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        answer.json()["entries"].as_array().unwrap().clone()
    }
}
