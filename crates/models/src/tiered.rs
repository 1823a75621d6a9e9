//! The router: one model per level, chosen by `plan.level`. This is the `Model` the kernel
//! gets; what answers each level is configuration (`models:` in `cn.yaml`).

use std::collections::BTreeMap;

use cn_compute::{Answer, Level, Model, ModelError, Plan};

#[derive(Default)]
pub struct Tiered {
    levels: BTreeMap<Level, Box<dyn Model>>,
}

impl Tiered {
    pub fn new() -> Self {
        Tiered::default()
    }

    /// Let `model` answer plans at `level` (replacing any before).
    pub fn with(mut self, level: Level, model: Box<dyn Model>) -> Self {
        self.levels.insert(level, model);
        self
    }

    pub fn insert(&mut self, level: Level, model: Box<dyn Model>) {
        self.levels.insert(level, model);
    }

    pub fn has(&self, level: Level) -> bool {
        self.levels.contains_key(&level)
    }

    pub fn levels(&self) -> impl Iterator<Item = Level> + '_ {
        self.levels.keys().copied()
    }
}

impl std::fmt::Debug for Tiered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tiered").field("levels", &self.levels.keys().collect::<Vec<_>>()).finish()
    }
}

impl Model for Tiered {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        match self.levels.get_mut(&plan.level) {
            Some(m) => m.ask(plan),
            None => {
                let have: Vec<String> = self.levels.keys().map(|l| l.to_string()).collect();
                Err(ModelError::Config(format!(
                    "no model for level {} (configured levels: {}); set `models.{}` in cn.yaml",
                    plan.level,
                    if have.is_empty() { "none".into() } else { have.join(", ") },
                    if plan.level >= 3 { "executive" } else { "local" }
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_compute::Scripted;

    #[test]
    fn routes_by_level_and_names_the_missing_one() {
        let mut t =
            Tiered::new().with(2, Box::new(Scripted::new(["local"]))).with(3, Box::new(Scripted::new(["exec"])));
        let ask = |t: &mut Tiered, level| t.ask(&Plan { level, ..Default::default() });
        assert_eq!(ask(&mut t, 3).unwrap().markdown, "exec");
        assert_eq!(ask(&mut t, 2).unwrap().markdown, "local");
        let e = ask(&mut Tiered::new().with(2, Box::new(Scripted::new(["x"]))), 3).unwrap_err();
        assert!(e.to_string().contains("models.executive"), "{e}");
    }
}
