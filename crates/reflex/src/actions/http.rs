//! One HTTP request under policy, shared by `fetch_url` and `github_api`.
//!
//! Invariants: only http(s) URLs, parsed (`url`), with no credentials in them; every URL —
//! redirects included — matched against the allowlist by scheme, host, port and path (never
//! by string prefix); a host that resolves to a loopback, private, link-local, shared or
//! metadata address is refused unless a `policy.urls` entry names that host, and the check is
//! made by the resolver the connection uses, so DNS cannot change the answer in between;
//! headers marked `sensitive` (a token) are never sent to another origin than the first
//! URL's; the body is capped at `max_bytes` and the exchange at the policy's time limit;
//! errors quote URLs with their credentials redacted.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::ToolContext;
use url::Url;

/// What came back.
pub(crate) struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub body: String,
    /// The URL the body came from (after redirects).
    pub url: String,
}

/// A header to send; a sensitive one (a token) only to the first URL's origin.
pub(crate) struct Header<'a> {
    pub name: &'a str,
    pub value: String,
    pub sensitive: bool,
}

impl<'a> Header<'a> {
    pub fn new(name: &'a str, value: impl Into<String>) -> Self {
        Header { name, value: value.into(), sensitive: false }
    }
    pub fn secret(name: &'a str, value: impl Into<String>) -> Self {
        Header { name, value: value.into(), sensitive: true }
    }
}

const MAX_REDIRECTS: usize = 5;

/// Whether `ip` is an address on the public internet (not loopback, private, link-local —
/// the cloud metadata address 169.254.169.254 is one —, shared, reserved or multicast).
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) embeds an IPv4 address.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                return public_v4(Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] & 0xffc0) == 0xfec0 // site-local
                || v6 == Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 1))
        }
    }
}

fn public_v4(v4: Ipv4Addr) -> bool {
    let [a, b, ..] = v4.octets();
    !(v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && v4.octets()[2] == 0)
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240)
}

/// The resolver every request connects through: it refuses non-public addresses unless the
/// host is one the allowlist names.
#[derive(Debug)]
struct Guarded {
    /// Hosts (`host:port`) an allowlist entry names.
    named: Arc<Vec<String>>,
}

impl ureq::unversioned::resolver::Resolver for Guarded {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let addrs = ureq::unversioned::resolver::DefaultResolver::default().resolve(uri, config, timeout)?;
        let host = uri.authority().map(|a| a.as_str().rsplit('@').next().unwrap_or("").to_ascii_lowercase());
        let named = host.as_ref().is_some_and(|h| self.named.iter().any(|n| n == h || n.split(':').next() == Some(h)));
        if !named {
            if let Some(bad) = addrs.iter().find(|a| !is_public(a.ip())) {
                return Err(ureq::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    refused_address(uri.host().unwrap_or(""), bad),
                )));
            }
        }
        Ok(addrs)
    }
}

fn refused_address(host: &str, addr: &SocketAddr) -> String {
    format!(
        "{host} resolves to {}, a loopback, private, link-local or metadata address; only a policy.urls entry naming this host lets a fetch reach it",
        addr.ip()
    )
}

/// Check `url` before any connection: http(s), no credentials, in the allowlist, and a
/// public address unless an entry names the host (the resolver checks again on connect).
fn check(ctx: &ToolContext, url: &str) -> Result<Url, ToolError> {
    let shown = cn_process::redact::redact(url);
    let parsed = Url::parse(url).map_err(|e| ToolError::BadParams(format!("`{shown}` is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ToolError::BadParams(format!("`{shown}` is not an http(s) URL")));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(ToolError::Denied(format!("`{shown}` carries credentials; they are never sent in a URL")));
    }
    if !ctx.policy.url_allowed(&parsed) {
        return Err(ToolError::Denied(format!("`{shown}` is not in the policy's URL allowlist (policy.urls)")));
    }
    if !ctx.policy.names_host(&parsed) {
        let host = parsed.host_str().unwrap_or("");
        let port = parsed.port_or_known_default().unwrap_or(80);
        let literal = match parsed.host() {
            Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        let addrs: Vec<SocketAddr> = match literal {
            Some(ip) => vec![SocketAddr::new(ip, port)],
            None => std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
                .map_err(|e| ToolError::Failed(format!("{shown}: cannot resolve {host}: {e}")))?
                .collect(),
        };
        if let Some(bad) = addrs.iter().find(|a| !is_public(a.ip())) {
            return Err(ToolError::Denied(format!("`{shown}` refused: {}", refused_address(host, bad))));
        }
    }
    Ok(parsed)
}

pub(crate) fn request(
    ctx: &ToolContext,
    method: &str,
    url: &str,
    headers: &[Header<'_>],
    body: Option<String>,
) -> Result<Fetched, ToolError> {
    let named: Vec<String> = ctx
        .policy
        .urls
        .iter()
        .flatten()
        .filter_map(|e| Url::parse(e).ok())
        .filter_map(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
        .collect();
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(super::timeout(ctx)))
        // Redirects are followed here, so each hop is checked against the allowlist.
        .max_redirects(0)
        .http_status_as_error(false)
        .build();
    let agent = ureq::Agent::with_parts(
        config,
        ureq::unversioned::transport::DefaultConnector::default(),
        Guarded { named: Arc::new(named) },
    );
    let limit = super::max_bytes(ctx);
    let first = check(ctx, url)?;
    let mut url = first.clone();
    for _ in 0..=MAX_REDIRECTS {
        let shown = cn_process::redact::redact(url.as_str());
        // A token goes only where it was meant to: the first URL's origin.
        let same = cn_hub::config::same_origin(&first, &url);
        let sent: Vec<&Header<'_>> = headers.iter().filter(|h| same || !h.sensitive).collect();
        let target = url.as_str();
        let result = match (method, &body) {
            ("GET", _) => with_headers(agent.get(target), &sent).call(),
            ("DELETE", _) => with_headers(agent.delete(target), &sent).call(),
            ("POST", b) => with_headers(agent.post(target), &sent).send(b.clone().unwrap_or_default()),
            ("PUT", b) => with_headers(agent.put(target), &sent).send(b.clone().unwrap_or_default()),
            ("PATCH", b) => with_headers(agent.patch(target), &sent).send(b.clone().unwrap_or_default()),
            (m, _) => return Err(ToolError::BadParams(format!("method `{m}`: use GET, POST, PUT, PATCH or DELETE"))),
        };
        let mut resp =
            result.map_err(|e| ToolError::Failed(cn_process::redact::redact(&format!("{method} {shown}: {e}"))))?;
        let status = resp.status().as_u16();
        if (300..400).contains(&status) {
            if let Some(next) = resp.headers().get("location").and_then(|v| v.to_str().ok()) {
                let next = url
                    .join(next)
                    .map_err(|e| ToolError::Failed(format!("{shown}: redirect to `{next}` is not a URL: {e}")))?;
                url = check(ctx, next.as_str())?;
                continue;
            }
        }
        let content_type =
            resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
        let bytes = resp.body_mut().with_config().limit(limit).read_to_vec().map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => {
                ToolError::Failed(format!("{shown}: the response is larger than the policy's limit of {limit} bytes"))
            }
            e => ToolError::Failed(format!("{shown}: {e}")),
        })?;
        return Ok(Fetched {
            status,
            content_type,
            body: String::from_utf8_lossy(&bytes).into_owned(),
            url: url.to_string(),
        });
    }
    Err(ToolError::Failed(format!("{}: more than {MAX_REDIRECTS} redirects", cn_process::redact::redact(url.as_str()))))
}

fn with_headers<B>(mut req: ureq::RequestBuilder<B>, headers: &[&Header<'_>]) -> ureq::RequestBuilder<B> {
    req = req.header("User-Agent", concat!("cn/", env!("CARGO_PKG_VERSION")));
    for h in headers {
        req = req.header(h.name, h.value.as_str());
    }
    req
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for ip in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1"] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "::"] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "1.1.1.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn urls_are_checked_before_any_connection() {
        let mut ctx = ToolContext::new(".");
        for (url, needle) in [
            ("http://127.0.0.1:9/", "loopback"),
            ("http://localhost:9/", "loopback"),
            ("http://[::1]:9/", "loopback"),
            ("http://169.254.169.254/latest/meta-data/", "metadata"),
            ("http://2130706433/", "loopback"),
            ("https://u:p@example.com/", "credentials"),
            ("file:///etc/passwd", "not an http(s) URL"),
        ] {
            let e = check(&ctx, url).unwrap_err().to_string();
            assert!(e.contains(needle), "{url}: {e}");
            assert!(!e.contains("u:p@"), "{e}");
        }
        ctx.policy.urls = Some(vec!["http://127.0.0.1:9/".into()]);
        assert!(check(&ctx, "http://127.0.0.1:9/page").is_ok(), "an entry names the host");
        assert!(check(&ctx, "http://127.0.0.1:10/page").is_err());
    }
}
