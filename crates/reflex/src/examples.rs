//! The reflexes the documents show, verbatim — what a new hub can start with, and what the
//! tests and benchmarks prove works as written.

/// The autonomy document's "Reflex Definition Format" example, character for character.
pub const SUMMARIZE_URL: &str = r#"name: summarize-url
description: Fetch a URL and return a summary
trigger:
  pattern: "summarize (https?://\\S+)"
  extract: [url]
pipeline:
  - action: fetch_url
    input: $url
    output: content
  - action: ollama_prompt
    model: qwen2.5:14b
    prompt: "Summarize in 2-3 sentences: {{content}}"
    output: summary
  - action: reply
    message: "{{summary}}"
"#;

/// `state/notes/reflexes.md`: how the agent writes reflexes (the executive reads it before
/// calling `reflex_write`). [`crate::Engine::notes`] appends the actions' own docs.
pub const NOTES: &str = r#"# Reflexes

A reflex answers an item without waking me. Each is a file `state/reflexes/NAME.yaml`; I
create or change one with the `reflex_write` tool (`name`, `yaml`, and `text`: the message
it should handle). It is checked, dry-run on that message, then written in shadow mode and
committed: it records what it would have done on the next such messages (compared with what
I do) and acts once the owner approves it or it has agreed with me often enough. I may change
only the reflexes I or cn wrote (`learned:`), not the owner's.

```yaml
name: summarize-url              # lowercase letters, digits, `-`
description: Fetch a URL and return a summary
trigger:
  pattern: "summarize (https?://\\S+)"   # level 0: a regex
  extract: [url]                         # names for its capture groups
  # source: discord                      # only items from this sense
  # level 1 heuristics (all given must hold):
  #   keywords: [remind, todo]   min_length: 3   max_length: 200
  #   question: true             has_url: true (sets $url)
  #   routine: true              (a request about tasks, ideas or the schedule)
  # level 2 triage by the local model:
  #   classifier: local
  #   intents: [ask-time]        (sets $intent)
pipeline:
  - action: fetch_url            # a core action, or a reflex marked `callable: true`
    input: $url                  # the action's main value; $var = value, {{var}} = text
    output: content              # a name later steps can use
  - action: ollama_prompt
    prompt: "Summarize in 2-3 sentences: {{content}}"
    output: summary
  - action: reply
    message: "{{summary}}"
```

Variables: what the trigger extracted, `text`, `source`, `item`, `intent`, and earlier
outputs (`{{pr.title}}` reaches into JSON). A failing step stops the pipeline and the item
comes to me; `action: escalate` (with `reason`) hands it over on purpose. A reflex that fails
too often is disabled and surfaced; saving its file again re-enables it.

## Actions
"#;
