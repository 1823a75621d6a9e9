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
