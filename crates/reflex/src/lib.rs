//! Reflexes: YAML pipelines at levels 0-2, escalation, analytics.
