//! One HTTP request under policy, shared by `fetch_url` and `github_api`: only http(s), every
//! URL (redirects included) checked against the allowlist, the body capped at `max_bytes`,
//! the whole exchange bounded by the policy's time limit.

use cn_compute::ToolError;
use cn_tools::ToolContext;

/// What came back.
pub(crate) struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub body: String,
    /// The URL the body came from (after redirects).
    pub url: String,
}

const MAX_REDIRECTS: usize = 5;

pub(crate) fn request(
    ctx: &ToolContext,
    method: &str,
    url: &str,
    headers: &[(&str, String)],
    body: Option<String>,
) -> Result<Fetched, ToolError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(super::timeout(ctx)))
        // Redirects are followed here, so each hop is checked against the allowlist.
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let limit = super::max_bytes(ctx);
    let mut url = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ToolError::BadParams(format!("`{url}` is not an http(s) URL")));
        }
        if !ctx.policy.url_allowed(&url) {
            return Err(ToolError::Denied(format!("`{url}` is not in the policy's URL allowlist (policy.urls)")));
        }
        let result = match (method, &body) {
            ("GET", _) => with_headers(agent.get(&url), headers).call(),
            ("DELETE", _) => with_headers(agent.delete(&url), headers).call(),
            ("POST", b) => with_headers(agent.post(&url), headers).send(b.clone().unwrap_or_default()),
            ("PUT", b) => with_headers(agent.put(&url), headers).send(b.clone().unwrap_or_default()),
            ("PATCH", b) => with_headers(agent.patch(&url), headers).send(b.clone().unwrap_or_default()),
            (m, _) => return Err(ToolError::BadParams(format!("method `{m}`: use GET, POST, PUT, PATCH or DELETE"))),
        };
        let mut resp = result.map_err(|e| ToolError::Failed(format!("{method} {url}: {e}")))?;
        let status = resp.status().as_u16();
        if (300..400).contains(&status) {
            if let Some(next) = resp.headers().get("location").and_then(|v| v.to_str().ok()) {
                url = resolve(&url, next);
                continue;
            }
        }
        let content_type =
            resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
        let bytes = resp.body_mut().with_config().limit(limit).read_to_vec().map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => {
                ToolError::Failed(format!("{url}: the response is larger than the policy's limit of {limit} bytes"))
            }
            e => ToolError::Failed(format!("{url}: {e}")),
        })?;
        return Ok(Fetched { status, content_type, body: String::from_utf8_lossy(&bytes).into_owned(), url });
    }
    Err(ToolError::Failed(format!("{url}: more than {MAX_REDIRECTS} redirects")))
}

fn with_headers<B>(mut req: ureq::RequestBuilder<B>, headers: &[(&str, String)]) -> ureq::RequestBuilder<B> {
    req = req.header("User-Agent", concat!("cn/", env!("CARGO_PKG_VERSION")));
    for (k, v) in headers {
        req = req.header(*k, v.as_str());
    }
    req
}

/// A redirect's `Location`, made absolute against the URL that sent it.
fn resolve(base: &str, location: &str) -> String {
    if location.starts_with("http://") || location.starts_with("https://") {
        return location.to_string();
    }
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..].find('/').map_or(base.len(), |i| scheme_end + i);
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{}{rest}", &base[..scheme_end]);
    }
    if location.starts_with('/') {
        return format!("{}{location}", &base[..host_end]);
    }
    let dir_end = base.rfind('/').filter(|&i| i >= host_end).map_or(base.len(), |i| i + 1);
    let dir = &base[..dir_end];
    if dir.ends_with('/') {
        format!("{dir}{location}")
    } else {
        format!("{dir}/{location}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_against_the_sender() {
        assert_eq!(resolve("http://h:1/a/b?x", "/c"), "http://h:1/c");
        assert_eq!(resolve("http://h/a/b", "c"), "http://h/a/c");
        assert_eq!(resolve("http://h", "c"), "http://h/c");
        assert_eq!(resolve("https://h/a", "//g/x"), "https://g/x");
        assert_eq!(resolve("https://h/a", "http://o/"), "http://o/");
    }
}
