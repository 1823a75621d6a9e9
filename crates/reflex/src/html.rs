//! HTML to plain text, for `fetch_url`: a summary prompt should hold the page's words, not
//! its markup. Deliberately small — drop `script`/`style`/`head` bodies (but keep the
//! `title`), turn block elements into line breaks, decode the common entities, collapse
//! whitespace. It never fails: anything it does not understand passes through as text.

/// The readable text of an HTML document.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    let mut skip_until: Option<&'static str> = None;
    while let Some(lt) = rest.find('<') {
        if skip_until.is_none() {
            push_text(&mut out, &rest[..lt]);
        }
        let after = &rest[lt + 1..];
        if let Some(comment) = after.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let Some(gt) = after.find('>') else {
            rest = "";
            break;
        };
        let tag = &after[..gt];
        rest = &after[gt + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if let Some(end) = skip_until {
            if closing && name == end {
                skip_until = None;
            }
            continue;
        }
        match name.as_str() {
            "script" | "style" | "noscript" | "svg" | "template" if !closing && !tag.ends_with('/') => {
                skip_until = Some(match name.as_str() {
                    "script" => "script",
                    "style" => "style",
                    "noscript" => "noscript",
                    "svg" => "svg",
                    _ => "template",
                })
            }
            "br" | "p" | "div" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "title" | "section"
            | "article" | "header" | "footer" | "ul" | "ol" | "table" | "blockquote" | "pre" | "hr" => out.push('\n'),
            "td" | "th" => out.push(' '),
            _ => {}
        }
    }
    if skip_until.is_none() {
        push_text(&mut out, rest);
    }
    // Collapse runs of spaces inside lines and runs of blank lines.
    let mut text = String::with_capacity(out.len());
    for line in out.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        text.push_str(&words.join(" "));
        text.push('\n');
    }
    text.trim_end().to_string()
}

fn push_text(out: &mut String, raw: &str) {
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| entity(&after[..e]));
        match (end, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &after[e + 1..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

fn entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "rsquo" => '’',
        "lsquo" => '‘',
        "rdquo" => '”',
        "ldquo" => '“',
        "copy" => '©',
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(code)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_words_drops_markup() {
        let html = "<!doctype html><html><head><title>Otters</title><style>p{color:red}</style>\
            <script>var x = '<p>';</script></head><body><h1>Sea otters</h1><p>They hold hands &amp; sleep.</p>\
            <!-- hidden --><ul><li>Tools</li><li>Fur&#x21;</li></ul>a &notanentity b</body></html>";
        assert_eq!(html_to_text(html), "Otters\nSea otters\nThey hold hands & sleep.\nTools\nFur!\na &notanentity b");
        assert_eq!(html_to_text("plain text"), "plain text");
        assert_eq!(html_to_text("unclosed <b"), "unclosed");
    }
}
