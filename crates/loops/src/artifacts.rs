//! The loop's files: `DIR/loop-run/` and the `{role}-output.md` contract. The naming is the
//! interface between components, so the names live here and nowhere else.

use std::path::{Path, PathBuf};

use cn_storage::Doc;

use crate::error::{LoopError, Result};

/// The artifacts' directory, relative to DIR.
pub const LOOP_RUN: &str = "loop-run";
pub const TASK: &str = "task.md";
pub const SENSOR_OUTPUT: &str = "sensor-output.md";
pub const CONTROLLER_OUTPUT: &str = "controller-output.md";
pub const ACTUATOR_OUTPUT: &str = "actuator-output.md";
pub const ORCHESTRATOR_OUTPUT: &str = "orchestrator-output.md";

/// Most bytes of one loop file cn reads.
pub const MAX_ARTIFACT: u64 = 16 << 20;

/// Where one loop lives: the codebase (a git working tree) and its `loop-run/`.
#[derive(Debug, Clone)]
pub struct LoopRun {
    /// The codebase, absolute.
    pub dir: PathBuf,
    /// `dir/loop-run`, absolute (what `CN_LOOP_RUN` holds).
    pub run: PathBuf,
    /// Variables of cn's environment the components see (task.md's `env:`), besides a
    /// minimal `PATH`, `HOME`, `LANG` and `CN_LOOP_*`.
    pub env: Vec<String>,
    /// task.md's `sandbox:` for the command components (default: the sandbox).
    pub sandbox: cn_hub::SandboxSpec,
    /// What no sandboxed component may read besides the secrets of the hubs holding the tree:
    /// those of the hub the loop runs for ([`cn_hub::protect::hub_secrets`]).
    pub unreadable: Vec<PathBuf>,
}

impl LoopRun {
    pub fn new(dir: &Path) -> Result<LoopRun> {
        let dir = dir
            .canonicalize()
            .map_err(|e| LoopError::input_from(format!("{}: cannot open the loop's directory", dir.display()), e))?;
        let run = dir.join(LOOP_RUN);
        // cn's writes in the tree never follow a link a component planted (`loop-run` swapped
        // for a link out of the tree, say): cn_storage::beneath.
        cn_storage::beneath::hold(&dir);
        Ok(LoopRun { dir, run, env: Vec::new(), sandbox: Default::default(), unreadable: Vec::new() })
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.run.join(file)
    }

    /// `loop-run/<file>`, as messages and git pathspecs name it.
    pub fn rel(file: &str) -> String {
        format!("{LOOP_RUN}/{file}")
    }

    /// The file's text, or `None` when it does not exist. A component writes some of these
    /// files, so a link (to cn's own `/proc/self/environ`, to a key) is refused, not followed,
    /// and a file past [`MAX_ARTIFACT`] is refused rather than read into memory.
    pub fn read(&self, file: &str) -> Result<Option<String>> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let path = self.path(file);
        let mut f = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(LoopError::input(format!(
                    "{}: a symbolic link; the loop's files must be files (a component may have planted it)",
                    path.display()
                )))
            }
            Err(e) => return Err(LoopError::Io { path, source: e }),
        };
        let mut bytes = Vec::new();
        (&mut f).take(MAX_ARTIFACT + 1).read_to_end(&mut bytes).map_err(LoopError::io(&path))?;
        if bytes.len() as u64 > MAX_ARTIFACT {
            return Err(LoopError::input(format!(
                "{}: larger than {} MiB; a loop's file is markdown a model or a person reads",
                path.display(),
                MAX_ARTIFACT >> 20
            )));
        }
        Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Write one artifact atomically: a killed process leaves the old file or the new one.
    /// Not fsynced: the durable copy is the iteration's commit, and a resumed loop rewrites
    /// every artifact of the iteration it resumes (this keeps the per-iteration overhead low).
    pub fn write(&self, file: &str, text: &str) -> Result<()> {
        let path = self.path(file);
        cn_storage::write_atomic_unsynced(&path, text.as_bytes()).map_err(LoopError::io(path))
    }

    pub fn write_doc(&self, file: &str, doc: &Doc) -> Result<()> {
        self.write(file, &doc.render())
    }

    /// Remove a component's previous output before it runs, so a component that writes
    /// nothing is noticed instead of its last iteration's file being read again. The old
    /// file is committed, so nothing is lost.
    pub fn remove(&self, file: &str) -> Result<()> {
        let path = self.path(file);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(LoopError::Io { path, source: e }),
        }
    }
}

/// A fenced block that holds `text` whatever it contains (the fence is longer than any
/// backtick run inside), so tool output can never break the artifact's markdown.
pub fn fenced(info: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.trim_end_matches('\n');
    format!("{fence}{info}\n{body}\n{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fenced("text", "a\n"), "```text\na\n```\n");
        assert_eq!(fenced("", "x ```` y"), "`````\nx ```` y\n`````\n");
    }
}
