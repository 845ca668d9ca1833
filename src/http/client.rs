//! Who is asking: the client's address (through trusted proxies only) and whether the visitor's
//! connection is HTTPS. A middleware works it out once per request and hands it to handlers as an
//! extension; on HTTPS it also adds HSTS.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;

use crate::http::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientInfo {
    pub ip: IpAddr,
    pub https: bool,
}

/// The value of the request's cookie `name`, from any of its `Cookie` headers.
pub fn request_cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_owned())
}

/// One year, subdomains included: the top grade of Mozilla's HTTP Observatory.
const HSTS: &str = "max-age=31536000; includeSubDomains";

pub async fn identify(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip());
    let client = client_info(peer, request.headers(), &state.settings.trusted_proxies);
    request.extensions_mut().insert(client);
    let mut response = next.run(request).await;
    if client.https {
        response.headers_mut().insert(header::STRICT_TRANSPORT_SECURITY, HeaderValue::from_static(HSTS));
    }
    response
}

/// The peer's address, unless the peer is a trusted proxy: then the nearest address in
/// `X-Forwarded-For` that is not itself a trusted proxy (the right-most ones were added by our
/// own proxies; anything left of them the client could have written).
pub fn client_info(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpNet]) -> ClientInfo {
    // In-process tests have no socket; they count as one local client.
    let peer = peer.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return ClientInfo { ip: peer, https: false };
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    // From the right: past our proxies to the first address none of them is. An entry that is no
    // address ends the walk: skipped, it would leave the one the client wrote left of it.
    let mut ip = peer;
    for item in forwarded.iter().rev() {
        let Some(address) = forwarded_address(item) else { break };
        ip = address;
        if !is_trusted(&address) {
            break;
        }
    }
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|proto| proto.split(',').next().unwrap_or("").trim().eq_ignore_ascii_case("https"));
    ClientInfo { ip, https }
}

/// An `X-Forwarded-For` entry's address: some proxies write a port too (`ip:port`, `[ip]:port`).
fn forwarded_address(item: &str) -> Option<IpAddr> {
    let item = item.trim();
    item.parse::<IpAddr>()
        .ok()
        .or_else(|| item.parse::<SocketAddr>().ok().map(|address| address.ip()))
        .or_else(|| item.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
}

/// Headers a proxy adds to a request it passes on.
const FORWARDING: [&str; 4] = ["x-forwarded-for", "x-forwarded-proto", "forwarded", "x-real-ip"];

/// Whether a request from `client` (`client_info`'s address) came from this machine or a private
/// network, straight to zayavka: loopback, private (RFC 1918), link-local or IPv6 unique-local,
/// and without a header a proxy adds to what it passes on.
pub fn from_inside(client: IpAddr, headers: &HeaderMap) -> bool {
    let inside = match client.to_canonical() {
        IpAddr::V4(ip) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        IpAddr::V6(ip) => ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local(),
    };
    inside && !FORWARDING.iter().any(|name| headers.contains_key(*name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_request_from_inside_sent_straight_counts_as_from_inside() {
        let client = |ip: &str| ip.parse::<IpAddr>().unwrap();
        let none = HeaderMap::new();
        for inside in
            ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.1.2.3", "172.17.0.2", "192.168.1.5", "fd00::7"]
        {
            assert!(from_inside(client(inside), &none), "{inside}");
        }
        for outside in ["203.0.113.9", "2001:db8::1", "::ffff:8.8.8.8", "100.64.0.1"] {
            assert!(!from_inside(client(outside), &none), "{outside}");
        }
        // Passed on by a proxy on this machine: the proxy's client may be anyone.
        assert!(!from_inside(client("127.0.0.1"), &headers("127.0.0.1", "http")));
    }

    fn headers(xff: &str, proto: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", xff.parse().unwrap());
        headers.insert("x-forwarded-proto", proto.parse().unwrap());
        headers
    }

    #[test]
    fn forwarded_headers_from_an_untrusted_peer_are_ignored() {
        let info = client_info(Some("203.0.113.9".parse().unwrap()), &headers("198.51.100.1", "https"), &[]);
        assert_eq!(info, ClientInfo { ip: "203.0.113.9".parse().unwrap(), https: false });
    }

    #[test]
    fn a_trusted_proxy_names_the_client_and_the_scheme() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        // The client wrote a fake first entry; our proxies appended the real one and their own.
        let info = client_info(
            Some("10.0.0.2".parse().unwrap()),
            &headers("1.2.3.4, 198.51.100.7, 10.0.0.1", "https"),
            &trusted,
        );
        assert_eq!(info, ClientInfo { ip: "198.51.100.7".parse().unwrap(), https: true });
    }

    #[test]
    fn a_proxy_that_writes_ports_still_names_the_client_and_nothing_is_skipped() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let client =
            |xff: &str| client_info(Some("10.0.0.2".parse().unwrap()), &headers(xff, "https"), &trusted).ip;
        let real: IpAddr = "198.51.100.7".parse().unwrap();
        assert_eq!(client("1.2.3.4, 198.51.100.7:4431"), real);
        assert_eq!(client("1.2.3.4, [2001:db8::7]:4431, 10.0.0.1"), "2001:db8::7".parse::<IpAddr>().unwrap());
        // An entry that is no address is not skipped to believe the one the client wrote.
        assert_eq!(client("1.2.3.4, unknown, 10.0.0.1"), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}
