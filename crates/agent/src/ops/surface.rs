//! `do surface --desc`: surface a concern for the community as
//! `state/mca/<ts>-<slug>.md` (frontmatter `id`, `surfaced-by`, `created`, `status: open`).

use cn_storage::Doc;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::{io_at, Result};
use cn_hub::id::stable as stable_id;

/// `Surface of {desc}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Surface {
    /// The concern, for the community.
    pub desc: String,
}

impl OpKind for Surface {
    const NAME: &'static str = "surface";
    const FIELDS: &'static [Field] = &[Field::required("desc", "TEXT")];
    const DOC: &'static str = "do surface: surface a concern (MCA) for the community.";
    const EXAMPLE: &'static str = "desc: CI has been red for two days\n";

    fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        perform(ctx, &self.desc)
    }
}

fn perform(ctx: &Ctx, desc: &str) -> Result<Effect> {
    let stamp: String = ctx.ts.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let path = ctx.hub.layout().mca_file(&format!("{stamp}-{}.md", slug(desc)));
    let mut doc = Doc::default();
    doc.set("id", stable_id(&format!("{}:{}:mca", ctx.item.id, ctx.key)));
    doc.set("surfaced-by", ctx.hub.name());
    doc.set("created", ctx.ts);
    doc.set("status", "open");
    doc.set("item", ctx.item.id.as_str());
    doc.body = crate::item::ensure_newline(desc);
    cn_storage::write_atomic(&path, doc.render().as_bytes()).map_err(io_at(&path))?;
    let mut e = Effect::done(format!("surfaced: {desc}"));
    e.facts.insert("mca".into(), ctx.hub.layout().relative(&path).to_string_lossy().into_owned().into());
    Ok(e)
}

/// Lowercase words joined by `-`, at most 40 characters; `mca` when nothing is left.
fn slug(text: &str) -> String {
    let mut s = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        if s.len() + word.len() + 1 > 40 {
            break;
        }
        if !s.is_empty() {
            s.push('-');
        }
        s.push_str(&word.to_ascii_lowercase());
    }
    if s.is_empty() {
        s.push_str("mca");
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn slugs_are_safe_file_names() {
        assert_eq!(super::slug("Flaky CI on main!"), "flaky-ci-on-main");
        assert_eq!(super::slug("../../etc"), "etc");
        assert_eq!(super::slug("¿?"), "mca");
        assert!(super::slug(&"word ".repeat(50)).len() <= 40);
    }
}
