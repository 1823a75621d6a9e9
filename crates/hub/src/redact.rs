//! Redaction: secrets never reach the journal, an error message or a commit. Credentials in
//! URLs (`https://user:token@host/…` → `https://***@host/…`) and bearer tokens are replaced
//! where an error is formatted ([`crate::git::GitError`], the tools' HTTP errors).

/// `text` with every URL's userinfo and every `Bearer` token replaced by `***`.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority ends at the first `/`, `?`, `#`, whitespace or quote.
        let end = tail.find(|c: char| matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>') || c.is_whitespace());
        let authority = &tail[..end.unwrap_or(tail.len())];
        match authority.rfind('@') {
            Some(i) => {
                out.push_str("***");
                out.push_str(&authority[i..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[authority.len()..];
    }
    out.push_str(rest);
    redact_bearer(&out)
}

fn redact_bearer(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("Bearer ") {
        let (head, tail) = rest.split_at(at + "Bearer ".len());
        out.push_str(head);
        let end = tail.find(|c: char| c.is_whitespace() || c == '"' || c == '\'').unwrap_or(tail.len());
        out.push_str("***");
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_urls_and_bearer_tokens_are_replaced() {
        assert_eq!(
            redact("fatal: unable to access 'https://ada:hunter2@git.example/x.git/': refused"),
            "fatal: unable to access 'https://***@git.example/x.git/': refused"
        );
        assert_eq!(redact("ssh://git@host:22/r and https://h/p?q=1"), "ssh://***@host:22/r and https://h/p?q=1");
        assert_eq!(redact("Authorization: Bearer ghp_abc123 sent"), "Authorization: Bearer *** sent");
        assert_eq!(redact("no secrets here"), "no secrets here");
        assert_eq!(redact("x://"), "x://");
    }
}
