//! The embedded local model: llama.cpp on the CPU (crate `llama-cpp-2`) running
//! SmolLM2-135M-Instruct, the default level 2.
//!
//! The model loads on first use and is shared by every `Embedded` of the process that names
//! the same file (one `LlamaBackend`, one model per file, counted: the last user frees it).
//! Each ask feeds the ChatML prompt — evaluating only what its start does not share with
//! what the context already holds — and samples greedily, through the plan's grammar when
//! it has one, until end of generation or `max_tokens`.
//!
//! Three things keep it cheap on a small, shared machine:
//! - **Threads by what is free.** Before each ask the threads are chosen from the CPUs not
//!   busy at that moment (`/proc/loadavg`'s running count), at most the configured number:
//!   llama.cpp's workers spin-wait for each other, so two threads on two busy cores crawl,
//!   where one thread does not. A change of thread count makes a new context and moves the
//!   held keys and values into it (`state_seq_get` / `state_seq_set`), so the prompt cache
//!   survives.
//! - **Release when idle.** A model unused for `release_after` (default 5 min) is freed with
//!   its context by [`release_idle`], which the daemon calls while it rests: the idle daemon
//!   returns to its few MB, and the next ask loads it again (~150 ms).
//! - **A prompt cache on disk.** The keys and values of the level's system prompt and tool
//!   docs (the same from one ask to the next) are saved once to the hub's
//!   `state/cache/local-model-<key>.kv`; a fresh process (`cn ask --level 2`, a restarted
//!   daemon) loads them instead of evaluating ~180 prompt tokens again. The key names the
//!   model file (path, size, mtime) and the context size; a file that does not load is
//!   ignored and replaced.
//!
//! The grammar is checked lazily, as llama.cpp's own common sampler does: the greedy token
//! of the raw logits is offered to the grammar alone (a one-candidate array), and only when
//! the grammar rejects it is the whole vocabulary (~49k tokens) filtered and the best allowed
//! token taken. The answer is the same as filtering every candidate at every token (tested
//! against `with_full_grammar`), at a fraction of the cost: most tokens of an answer are the
//! model's own first choice.
//!
//! Jump-forward (as SGLang and llguidance do): about half of a tool call is text the grammar
//! forces — the fence, `tool:`, each required key, the rest of a name or enum value once it is
//! unambiguous, the closing fence. After each token the grammar is probed for the characters
//! it forces next; their tokens go into the answer without the model choosing them, and are
//! evaluated together with the model's last pick in one pass. Once the grammar allows only
//! the end, the answer is complete without another pass. A level-2 answer takes about half
//! the model passes it took token by token. The answer is the same call, though not always
//! the same bytes: the forced text is tokenized as the tokenizer would, and evaluating
//! several tokens in one pass rounds differently, which can flip a near-tie later on.
//!
//! Invariants: text from the item (system and user content) is tokenized with special-token
//! parsing off, so an item containing `<|im_end|>` cannot forge a turn; with a grammar, an
//! answer that hits `max_tokens` before the grammar completes is an error, never returned.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use cn_compute::{Answer, Model, ModelError, Plan};
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::session::LlamaStateSeqFlags;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

/// The most threads an ask uses when `threads:` is not set (fewer when CPUs are busy): a
/// 135M model gains little past four.
pub const MAX_DEFAULT_THREADS: i32 = 4;
/// Context window (prompt + answer). SmolLM2 was trained on 8192; 2048 keeps memory and
/// prompt time small, and plan fits level 2's prompt well within it.
pub const DEFAULT_CONTEXT: u32 = 2048;
/// How long an unused model stays loaded when `release_after:` is not set.
pub const DEFAULT_RELEASE_AFTER: Duration = Duration::from_secs(300);
const BATCH: usize = 512;

static BACKEND: Mutex<Option<&'static LlamaBackend>> = Mutex::new(None);
/// The loaded models: file, model, how many [`ModelUse`]s hold it.
static MODELS: Mutex<Vec<(PathBuf, &'static LlamaModel, usize)>> = Mutex::new(Vec::new());
/// Every `Embedded`'s slot, for [`release_idle`].
static SLOTS: Mutex<Vec<Weak<Mutex<Slot>>>> = Mutex::new(Vec::new());

fn backend() -> Result<&'static LlamaBackend, ModelError> {
    let mut slot = BACKEND.lock().map_err(|_| ModelError::Other("llama backend lock poisoned".into()))?;
    if let Some(b) = *slot {
        return Ok(b);
    }
    // llama.cpp logs through tracing (its load chatter is info/debug, hidden by default).
    llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
    let b = LlamaBackend::init().map_err(|e| ModelError::Other(format!("cannot start llama.cpp: {e}")))?;
    let b: &'static LlamaBackend = Box::leak(Box::new(b));
    *slot = Some(b);
    Ok(b)
}

/// One holder's use of a loaded model; the model is freed when the last use is dropped.
struct ModelUse(&'static LlamaModel);

impl ModelUse {
    /// Load `path`, or share the model already loaded from it.
    fn acquire(path: &Path) -> Result<ModelUse, ModelError> {
        let backend = backend()?;
        let mut models = MODELS.lock().map_err(|_| ModelError::Other("model cache lock poisoned".into()))?;
        if let Some((_, m, users)) = models.iter_mut().find(|(p, _, _)| p == path) {
            *users += 1;
            return Ok(ModelUse(m));
        }
        if !path.is_file() {
            return Err(ModelError::Config(format!(
                "the local model {} is missing; run `cn model pull` (or set CN_MODEL_PATH / models.local.path)",
                path.display()
            )));
        }
        let m = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| ModelError::Config(format!("cannot load {}: {e}", path.display())))?;
        let m: &'static LlamaModel = Box::leak(Box::new(m));
        models.push((path.to_path_buf(), m, 1));
        Ok(ModelUse(m))
    }
}

impl Drop for ModelUse {
    fn drop(&mut self) {
        // A poisoned lock leaks the model rather than risk freeing it while in use.
        let Ok(mut models) = MODELS.lock() else { return };
        let Some(i) = models.iter().position(|(_, m, _)| std::ptr::eq(*m, self.0)) else { return };
        models[i].2 -= 1;
        if models[i].2 == 0 {
            let (_, model, _) = models.swap_remove(i);
            // SAFETY: `model` came from `Box::leak` in `acquire` and is no longer in
            // MODELS, so no new use can start. Every reference to it lives in a `Loaded`
            // (its context, borrowing the model, and this use), and `Loaded` drops its context
            // before its use (field order); an ask borrows it only while holding its slot.
            // This was the last use, so nothing refers to the model any more.
            drop(unsafe { Box::from_raw(model as *const LlamaModel as *mut LlamaModel) });
        }
    }
}

/// Free every embedded model that has gone unused for its `release_after`, with its context;
/// returns how many were released. A model in the middle of an ask is skipped. The next ask
/// loads it again.
pub fn release_idle() -> usize {
    let slots: Vec<Arc<Mutex<Slot>>> = match SLOTS.lock() {
        Ok(mut all) => {
            all.retain(|w| w.strong_count() > 0);
            all.iter().filter_map(Weak::upgrade).collect()
        }
        Err(_) => return 0,
    };
    let mut released = 0;
    for slot in slots {
        let Ok(mut s) = slot.try_lock() else { continue };
        let due = s.release_after.is_some_and(|after| s.last_used.elapsed() >= after);
        if due && s.loaded.take().is_some() {
            released += 1;
        }
    }
    released
}

/// Threads for an ask: the CPUs not busy right now (`cpus` less the runnable tasks other
/// than this one), at least 1 and at most `max`.
fn threads_for(cpus: usize, running: Option<usize>, max: i32) -> i32 {
    let busy = running.map_or(0, |r| r.saturating_sub(1));
    let free = cpus.saturating_sub(busy) as i32;
    free.clamp(1, max.max(1))
}

/// The tasks running or runnable on the machine this instant (`/proc/loadavg`'s fourth
/// field, `running/total`), this one included.
fn running_now() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_ascii_whitespace().nth(3)?.split('/').next()?.parse().ok()
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Timings of the last ask, for benchmarks and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    /// Time to load the model (zero when it was already loaded).
    pub load: Duration,
    pub prompt_tokens: usize,
    /// Of `prompt_tokens`, those whose keys and values were still in the context from the
    /// previous ask (the shared start: system prompt, tool docs), so not evaluated again.
    pub prompt_reused: usize,
    pub prompt_time: Duration,
    pub generated_tokens: usize,
    pub generate_time: Duration,
    /// Of `generate_time`, the time spent choosing tokens (the rest is llama.cpp's decode).
    pub sample_time: Duration,
    /// Tokens for which the greedy pick was rejected by the grammar, so the grammar had to
    /// filter the whole vocabulary.
    pub grammar_full_passes: usize,
    /// Of `generated_tokens`, those the grammar forced (jump-forward): placed in the answer
    /// without the model choosing them.
    pub forced_tokens: usize,
    /// Model evaluations (llama.cpp decodes) the answer took. Without jump-forward, one per
    /// generated token; with it, fewer.
    pub model_passes: usize,
}

impl Stats {
    pub fn tokens_per_second(&self) -> f64 {
        self.generated_tokens as f64 / self.generate_time.as_secs_f64().max(1e-9)
    }
}

pub struct Embedded {
    path: PathBuf,
    /// The most threads an ask uses (fewer when CPUs are busy).
    threads: i32,
    n_ctx: u32,
    /// Run the grammar over the whole vocabulary at every token (see `with_full_grammar`).
    full_grammar: bool,
    /// Jump forward over the text the grammar forces (see `jump_forward`); off only in tests
    /// and benchmarks that compare against token by token decoding.
    jump_forward: bool,
    /// Choose threads by the machine's load before each ask (off: always `threads`).
    by_load: bool,
    /// The model and context while loaded; shared with [`release_idle`].
    slot: Arc<Mutex<Slot>>,
    /// Where the prompt's keys and values are kept between processes, if anywhere.
    prompt_cache: Option<PathBuf>,
    /// The prompt cache was written by this process (or found good): not again.
    prompt_cache_done: bool,
    pub stats: Stats,
}

/// What an `Embedded` holds while loaded, and when it was last used.
struct Slot {
    loaded: Option<Loaded>,
    last_used: Instant,
    release_after: Option<Duration>,
}

/// A loaded model and its context. Field order matters: the context borrows the model and
/// is dropped before `model` gives the model up.
struct Loaded {
    ctx: LlamaContext<'static>,
    /// What jump-forward offers the grammar to learn which bytes may come next (found on the
    /// first ask with a grammar).
    bytes: Option<ByteProbe>,
    /// The tokens whose keys and values the context holds, at positions 0.., as the last
    /// ask left them (its prompt, then each token it generated and decoded). Empty when the
    /// cache's state is unknown (an ask failed) — the next ask then starts from scratch.
    cached: Vec<LlamaToken>,
    threads: i32,
    model: ModelUse,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded = self.slot.lock().map(|s| s.loaded.is_some()).unwrap_or(false);
        f.debug_struct("Embedded")
            .field("path", &self.path)
            .field("threads", &self.threads)
            .field("loaded", &loaded)
            .finish()
    }
}

fn lock(slot: &Mutex<Slot>) -> Result<MutexGuard<'_, Slot>, ModelError> {
    slot.lock().map_err(|_| ModelError::Other("the local model's lock is poisoned".into()))
}

impl Embedded {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        let slot = Arc::new(Mutex::new(Slot {
            loaded: None,
            last_used: Instant::now(),
            release_after: Some(DEFAULT_RELEASE_AFTER),
        }));
        if let Ok(mut all) = SLOTS.lock() {
            all.push(Arc::downgrade(&slot));
        }
        Embedded {
            path: path.into(),
            threads: (cpus() as i32).clamp(1, MAX_DEFAULT_THREADS),
            n_ctx: DEFAULT_CONTEXT,
            full_grammar: false,
            jump_forward: true,
            by_load: true,
            slot,
            prompt_cache: None,
            prompt_cache_done: false,
            stats: Stats::default(),
        }
    }

    /// At most `threads` threads (fewer when the machine's CPUs are busy).
    pub fn with_threads(mut self, threads: i32) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Exactly `threads` threads, whatever the load (benchmarks that compare thread counts).
    pub fn with_fixed_threads(mut self, threads: i32) -> Self {
        self.threads = threads.max(1);
        self.by_load = false;
        self
    }

    pub fn with_context(mut self, n_ctx: u32) -> Self {
        self.n_ctx = n_ctx.max(256);
        self
    }

    /// Free the model after it has gone unused this long (`None`: keep it loaded); see
    /// [`release_idle`].
    pub fn with_release_after(self, after: Option<Duration>) -> Self {
        if let Ok(mut s) = self.slot.lock() {
            s.release_after = after;
        }
        self
    }

    /// Keep the prompt's keys and values in `dir` between processes (see the module doc).
    pub fn with_prompt_cache(mut self, dir: &Path) -> Self {
        self.prompt_cache = cache_key(&self.path, self.n_ctx).map(|key| dir.join(format!("local-model-{key}.kv")));
        self
    }

    /// Filter every candidate through the grammar at every token, as a `[grammar, greedy]`
    /// sampler chain does: slower, same answers. Only for tests that check exactly that.
    #[doc(hidden)]
    pub fn with_full_grammar(mut self) -> Self {
        self.full_grammar = true;
        self
    }

    /// Choose every token with the model, even those the grammar forces. Only for tests and
    /// benchmarks that compare against jump-forward.
    #[doc(hidden)]
    pub fn without_jump_forward(mut self) -> Self {
        self.jump_forward = false;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the model is loaded now (it is freed by [`release_idle`]).
    pub fn is_loaded(&self) -> bool {
        self.slot.lock().map(|s| s.loaded.is_some()).unwrap_or(false)
    }

    /// The threads the last ask ran with.
    pub fn threads_used(&self) -> Option<i32> {
        self.slot.lock().ok().and_then(|s| s.loaded.as_ref().map(|l| l.threads))
    }

    /// Load the model and make the context now rather than on the first ask.
    pub fn load(&mut self) -> Result<(), ModelError> {
        let slot = self.slot.clone();
        let mut s = lock(&slot)?;
        let threads = self.threads_now();
        self.ensure_loaded(&mut s, threads)
    }

    fn threads_now(&self) -> i32 {
        if self.by_load {
            threads_for(cpus(), running_now(), self.threads)
        } else {
            self.threads
        }
    }

    fn new_context(&self, model: &'static LlamaModel, threads: i32) -> Result<LlamaContext<'static>, ModelError> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.n_ctx))
            .with_n_batch(BATCH as u32)
            .with_n_threads(threads)
            .with_n_threads_batch(threads)
            // llama.cpp's default (auto) turns flash attention on wherever the backend has
            // it; on these CPUs it decodes this model ~13 % slower (llama-bench, fa 0 vs 1
            // at depth 512), so it is off, as in llama-bench.
            .with_flash_attention_policy(llama_cpp_sys_2::LLAMA_FLASH_ATTN_TYPE_DISABLED);
        model
            .new_context(backend()?, params)
            .map_err(|e| ModelError::Other(format!("cannot create a llama.cpp context: {e}")))
    }

    /// Have a model and a context with `threads` threads in `slot`: load them (with the
    /// prompt cache from disk, if any), or move the held keys and values into a context with
    /// the new thread count.
    fn ensure_loaded(&mut self, slot: &mut Slot, threads: i32) -> Result<(), ModelError> {
        let started = Instant::now();
        self.stats.load = Duration::ZERO;
        match slot.loaded.take() {
            Some(loaded) if loaded.threads == threads => slot.loaded = Some(loaded),
            Some(Loaded { ctx, bytes, cached, model, .. }) => {
                let held =
                    if cached.is_empty() { None } else { ctx.state_seq_get(0, LlamaStateSeqFlags::empty()).ok() };
                drop(ctx);
                let mut ctx = self.new_context(model.0, threads)?;
                let cached = match held {
                    Some(state) if ctx.state_seq_set(&state, 0).is_ok() => cached,
                    _ => {
                        ctx.clear_kv_cache();
                        Vec::new()
                    }
                };
                tracing::debug!(
                    threads,
                    kept = cached.len(),
                    ms = started.elapsed().as_millis() as u64,
                    "local model: threads changed"
                );
                slot.loaded = Some(Loaded { ctx, bytes, cached, threads, model });
            }
            None => {
                let model = ModelUse::acquire(&self.path)?;
                let mut ctx = self.new_context(model.0, threads)?;
                let cached = self.read_prompt_cache(&mut ctx);
                slot.loaded = Some(Loaded { ctx, bytes: None, cached, threads, model });
                self.stats.load = started.elapsed();
            }
        }
        Ok(())
    }

    /// The tokens of the prompt cache file loaded into `ctx`'s sequence 0, or none.
    fn read_prompt_cache(&mut self, ctx: &mut LlamaContext<'static>) -> Vec<LlamaToken> {
        let Some(path) = self.prompt_cache.as_ref().filter(|p| p.is_file()) else { return Vec::new() };
        match ctx.state_seq_load_file(path, 0, self.n_ctx as usize) {
            Ok((tokens, _)) => tokens,
            Err(err) => {
                tracing::debug!(path = %path.display(), %err, "the local model's prompt cache does not load; it will be written again");
                ctx.clear_kv_cache();
                Vec::new()
            }
        }
    }

    /// After an ask that reused little of its prompt, save what the context holds for the
    /// next process (once per process; temp file + rename).
    fn write_prompt_cache(&mut self, ctx: &LlamaContext<'static>, held: &[LlamaToken]) {
        let Some(path) = self.prompt_cache.clone() else { return };
        if self.prompt_cache_done {
            return;
        }
        self.prompt_cache_done = true;
        if self.stats.prompt_reused * 4 >= self.stats.prompt_tokens * 3 {
            return; // the file (or this process) already holds most of the prompt
        }
        let Some(dir) = path.parent() else { return };
        let tmp = dir.join(format!(".local-model.kv.tmp.{}", std::process::id()));
        let saved = std::fs::create_dir_all(dir)
            .map_err(CacheError::Io)
            .and_then(|()| ctx.state_seq_save_file(&tmp, 0, held).map_err(CacheError::Save))
            .and_then(|_| std::fs::rename(&tmp, &path).map_err(CacheError::Io));
        match saved {
            Ok(()) => {
                // Caches of other model files or context sizes are stale now.
                if let Ok(entries) = std::fs::read_dir(dir) {
                    for e in entries.flatten() {
                        let name = e.file_name();
                        let name = name.to_string_lossy();
                        if name.starts_with("local-model-") && name.ends_with(".kv") && e.path() != path {
                            let _ = std::fs::remove_file(e.path());
                        }
                    }
                }
            }
            Err(err) => {
                let _ = std::fs::remove_file(&tmp);
                tracing::debug!(path = %path.display(), %err, "the local model's prompt cache was not saved");
            }
        }
    }

    /// The ChatML prompt as tokens: markers parsed as special tokens, content never.
    fn prompt_tokens(model: &LlamaModel, plan: &Plan, room: usize) -> Vec<LlamaToken> {
        let vocab = model.vocab();
        let special = |s: &str| vocab.tokenize(s.as_bytes(), false, true);
        let text = |s: &str| vocab.tokenize(s.as_bytes(), false, false);
        let mut system = text(&plan.system);
        let user = text(&plan.prompt);
        let mut head = special("<|im_start|>system\n");
        let mid = special("<|im_end|>\n<|im_start|>user\n");
        let tail = special("<|im_end|>\n<|im_start|>assistant\n");
        let fixed = head.len() + mid.len() + tail.len();
        // Too long: shorten the system prompt (plan already fitted the item's parts), then
        // keep the end of the user turn, where the item is.
        let over = (fixed + system.len() + user.len()).saturating_sub(room);
        system.truncate(system.len().saturating_sub(over));
        let user_room = room.saturating_sub(fixed + system.len());
        let user = &user[user.len().saturating_sub(user_room)..];
        head.extend(system);
        head.extend(mid);
        head.extend_from_slice(user);
        head.extend(tail);
        head
    }
}

impl Model for Embedded {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let slot = self.slot.clone();
        let mut s = lock(&slot)?;
        let threads = self.threads_now();
        self.ensure_loaded(&mut s, threads)?;
        let Some(loaded) = s.loaded.as_mut() else {
            return Err(ModelError::Other("the local model did not load".into()));
        };
        // What the context holds is known again only once this ask succeeds.
        let cached = std::mem::take(&mut loaded.cached);
        let result = self.ask_from(plan, loaded, cached);
        s.last_used = Instant::now();
        let (answer, kept) = result?;
        if let Some(loaded) = s.loaded.as_mut() {
            if plan.grammar.is_some() {
                self.write_prompt_cache(&loaded.ctx, &kept);
            }
            loaded.cached = kept;
        }
        Ok(answer)
    }
}

/// What names a prompt cache: the model file (path, size, modification time) and the
/// context size, hashed.
fn cache_key(path: &Path, n_ctx: u32) -> Option<String> {
    use sha2::{Digest, Sha256};
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    let mut h = Sha256::new();
    h.update(path.as_os_str().as_encoded_bytes());
    h.update(meta.len().to_le_bytes());
    h.update(mtime.to_le_bytes());
    h.update(n_ctx.to_le_bytes());
    Some(h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect())
}

impl Embedded {
    /// One ask, given the loaded model and what its context holds (`cached`); returns the
    /// answer and what the context holds after it.
    fn ask_from(
        &mut self,
        plan: &Plan,
        loaded: &mut Loaded,
        cached: Vec<LlamaToken>,
    ) -> Result<(Answer, Vec<LlamaToken>), ModelError> {
        let started = Instant::now();
        let model = loaded.model.0;
        let ctx = &mut loaded.ctx;
        let max_tokens = if plan.max_tokens > 0 { plan.max_tokens as usize } else { 256 };
        let max_tokens = max_tokens.min(self.n_ctx as usize / 2);
        let tokens = Embedded::prompt_tokens(model, plan, self.n_ctx as usize - max_tokens);

        // Prompt caching (as llama.cpp's server does): keep the keys and values of the start
        // this prompt shares with what the context holds — the system prompt and tool docs
        // are the same from one ask to the next — and evaluate only the rest. At least the
        // last token is evaluated again, for its logits.
        let t0 = Instant::now();
        let mut reuse =
            cached.iter().zip(&tokens).take_while(|(a, b)| a == b).count().min(tokens.len().saturating_sub(1));
        let trimmed = reuse > 0 && ctx.clear_kv_cache_seq(Some(0), Some(reuse as u32), None).unwrap_or(false);
        if !trimmed {
            ctx.clear_kv_cache();
            reuse = 0;
        }
        let mut batch = LlamaBatch::new(BATCH, 1);
        let last = tokens.len().saturating_sub(1);
        for (chunk_no, chunk) in tokens[reuse..].chunks(BATCH).enumerate() {
            batch.clear();
            for (i, t) in chunk.iter().enumerate() {
                let pos = reuse + chunk_no * BATCH + i;
                batch
                    .add(*t, pos as i32, &[0], pos == last)
                    .map_err(|e| ModelError::Other(format!("llama batch: {e}")))?;
            }
            ctx.decode(&mut batch).map_err(|e| ModelError::Other(format!("llama decode: {e}")))?;
        }
        self.stats.prompt_reused = reuse;
        self.stats.prompt_tokens = tokens.len();
        self.stats.prompt_time = t0.elapsed();

        // Greedy decoding, with the grammar checked lazily (as llama.cpp's common sampler
        // does): take the best token of the raw logits, ask the grammar about that one token,
        // and only when it is rejected run the grammar over the whole vocabulary and take
        // the best allowed token. Either way the result is the greedy pick among the tokens
        // the grammar allows, so answers are the same as filtering every candidate first.
        let mut grammar = match plan.grammar.as_deref() {
            Some(g) => Some(
                LlamaSampler::grammar(model, g, "root")
                    .map_err(|e| ModelError::Config(format!("the plan's grammar does not load: {e}")))?,
            ),
            None => None,
        };
        let vocab = model.vocab();
        let mut one = LlamaTokenDataArray::new(Vec::with_capacity(1), false);
        let mut all = LlamaTokenDataArray::new(Vec::new(), false);
        let mut probe = LlamaTokenDataArray::new(Vec::with_capacity(257), false);
        let probe_bytes = match grammar {
            Some(_) if self.jump_forward => Some(&*loaded.bytes.get_or_insert_with(|| ByteProbe::new(model))),
            _ => None,
        };
        let t1 = Instant::now();
        let mut sample_time = Duration::ZERO;
        let mut full_passes = 0;
        let mut bytes = Vec::with_capacity(max_tokens * 4);
        let mut n_past = tokens.len() as i32;
        let mut held = tokens.clone();
        let mut generated = 0;
        let mut passes = 0;
        let mut ended = false;
        let mut logits_at = batch.n_tokens() - 1;
        // Tokens in the answer that the context has not evaluated yet: the model's last pick
        // and whatever the grammar forces after it, evaluated together in one pass.
        let mut pending: Vec<LlamaToken> = Vec::new();
        let mut forced = 0;
        loop {
            // Jump forward over what the grammar forces next; if that completes the answer,
            // nothing pending needs evaluating.
            if let (Some(g), Some(by_byte)) = (grammar.as_mut(), probe_bytes) {
                let ts = Instant::now();
                let before = pending.len();
                ended = jump_forward(g, model, by_byte, &mut probe, &mut one, max_tokens - generated, &mut pending);
                for token in &pending[before..] {
                    vocab.token_to_piece_into(*token, &mut bytes, false, None);
                }
                generated += pending.len() - before;
                forced += pending.len() - before;
                sample_time += ts.elapsed();
                if ended {
                    break;
                }
            }
            if !pending.is_empty() {
                batch.clear();
                for (i, t) in pending.iter().enumerate() {
                    batch
                        .add(*t, n_past + i as i32, &[0], i + 1 == pending.len())
                        .map_err(|e| ModelError::Other(format!("llama batch: {e}")))?;
                }
                ctx.decode(&mut batch).map_err(|e| ModelError::Other(format!("llama decode: {e}")))?;
                passes += 1;
                n_past += pending.len() as i32;
                logits_at = batch.n_tokens() - 1;
                held.append(&mut pending);
            }
            if generated >= max_tokens {
                break;
            }
            let ts = Instant::now();
            let logits = ctx.get_logits_ith(logits_at);
            let mut token = LlamaToken(greedy(logits.iter().copied()) as i32);
            if let Some(grammar) = grammar.as_mut() {
                if self.full_grammar || !allowed(grammar, &mut one, token, logits[token.0 as usize]) {
                    full_passes += 1;
                    all.data.clear();
                    all.data
                        .extend((0..).zip(logits).map(|(id, &logit)| LlamaTokenData::new(LlamaToken(id), logit, 0.0)));
                    all.selected = None;
                    all.sorted = false;
                    grammar.apply(&mut all);
                    let best = greedy(all.data.iter().map(LlamaTokenData::logit));
                    if all.data[best].logit() == f32::NEG_INFINITY {
                        return Err(ModelError::Other("the plan's grammar allows no next token".into()));
                    }
                    token = all.data[best].id();
                }
                if !vocab.is_eog(token) {
                    grammar.accept(token);
                }
            }
            sample_time += ts.elapsed();
            if vocab.is_eog(token) {
                ended = true;
                break;
            }
            vocab.token_to_piece_into(token, &mut bytes, false, None);
            generated += 1;
            pending.push(token);
        }
        self.stats.generated_tokens = generated;
        self.stats.generate_time = t1.elapsed();
        self.stats.sample_time = sample_time;
        self.stats.grammar_full_passes = full_passes;
        self.stats.forced_tokens = forced;
        self.stats.model_passes = passes;
        if !ended && plan.grammar.is_some() {
            return Err(ModelError::Cut(format!(
                "the local model reached max_tokens ({max_tokens}) before finishing its answer"
            )));
        }
        tracing::info!(
            load_ms = self.stats.load.as_millis() as u64,
            prompt_tokens = self.stats.prompt_tokens,
            prompt_reused = self.stats.prompt_reused,
            prompt_ms = self.stats.prompt_time.as_millis() as u64,
            generated_tokens = generated,
            generate_ms = self.stats.generate_time.as_millis() as u64,
            sample_ms = self.stats.sample_time.as_millis() as u64,
            grammar_full_passes = full_passes,
            forced_tokens = self.stats.forced_tokens,
            model_passes = passes,
            tokens_per_second = format!("{:.1}", self.stats.tokens_per_second()),
            "local model answered"
        );
        let answer = Answer {
            markdown: String::from_utf8_lossy(&bytes).into_owned(),
            model: self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "embedded".into()),
            tokens_in: tokens.len() as u64,
            tokens_out: generated as u64,
            elapsed: started.elapsed() + self.stats.load,
        };
        Ok((answer, held))
    }
}

/// Most characters one jump-forward probes: forced runs in a tool call are a key and its
/// punctuation, or the rest of a name or enum value once it is unambiguous.
const MAX_FORCED: usize = 64;

/// Jump-forward decoding (as SGLang and llguidance do for constrained output): find the text
/// the grammar forces next — the characters that are, one after another, the only ones it
/// allows — and append its tokens to `placed` (at most `room`), accepted by `grammar`. The
/// last token of a forced run that does not end the answer is left to the model, so that it
/// can merge with what follows the way the model would write it (`tool:` is forced, ` reply`
/// is the model's). Returns true when the answer is complete: the grammar then allows only
/// the end, so no model pass is needed at all.
///
/// The grammar is the judge: a probe offers a copy of it a token for each byte (see
/// `ByteProbe`) and the end-of-generation token; exactly one byte allowed means the
/// character is forced.
fn jump_forward(
    grammar: &mut LlamaSampler,
    model: &LlamaModel,
    bytes: &ByteProbe,
    probe: &mut LlamaTokenDataArray,
    one: &mut LlamaTokenDataArray,
    room: usize,
    placed: &mut Vec<LlamaToken>,
) -> bool {
    let vocab = model.vocab();
    let end = vocab.eos();
    let mut copy = grammar.clone();
    let mut text = Vec::new();
    let complete = loop {
        probe.data.clear();
        probe.data.extend(bytes.tokens.iter().map(|&(_, t)| LlamaTokenData::new(t, 0.0, 0.0)));
        probe.data.push(LlamaTokenData::new(end, 0.0, 0.0));
        probe.selected = None;
        probe.sorted = false;
        copy.apply(probe);
        // The grammar sets a rejected candidate's logit to -inf and keeps the order.
        let mut next = None;
        let mut ends = false;
        let mut several = false;
        for (d, &(byte, _)) in probe.data.iter().zip(bytes.tokens.iter().chain([&(0, end)])) {
            if d.logit() == f32::NEG_INFINITY {
                continue;
            }
            if d.id() == end {
                ends = true;
            } else if next.is_some_and(|b| b != byte) {
                several = true;
            } else {
                next = Some(byte);
            }
        }
        match (next, ends, several) {
            (None, true, _) => break true,
            (Some(byte), false, false) if text.len() < MAX_FORCED => match bytes.single[byte as usize] {
                Some(t) => {
                    copy.accept(t);
                    text.push(byte);
                }
                None => break false,
            },
            _ => break false,
        }
    };
    // Whole characters only; a forced run may stop inside one.
    let whole = match std::str::from_utf8(&text) {
        Ok(_) => text.len(),
        Err(e) => e.valid_up_to(),
    };
    let mut tokens = vocab.tokenize(&text[..whole], false, false);
    let complete = complete && whole == text.len();
    if !complete {
        tokens.pop();
    }
    let mut all_placed = true;
    for (n, token) in tokens.into_iter().enumerate() {
        if n >= room || !allowed(grammar, one, token, 0.0) {
            all_placed = false;
            break;
        }
        grammar.accept(token);
        placed.push(token);
    }
    complete && all_placed
}

/// For each byte, the tokens that stand for it in a jump-forward probe: its single-byte
/// token, or, for a byte with none (SmolLM2's vocabulary lacks a few control characters),
/// every token that starts with it. A byte no token starts with cannot be written next by
/// the model at all, so leaving it out changes nothing.
struct ByteProbe {
    /// (first byte, token), in byte order.
    tokens: Vec<(u8, LlamaToken)>,
    /// The single-byte token of each byte, if any: how a forced byte is accepted.
    single: Vec<Option<LlamaToken>>,
}

impl ByteProbe {
    fn new(model: &LlamaModel) -> Self {
        let vocab = model.vocab();
        let mut single = vec![None; 256];
        let mut starting: Vec<Vec<LlamaToken>> = vec![Vec::new(); 256];
        let mut piece = Vec::with_capacity(16);
        for token in vocab.tokens() {
            if vocab.is_control(token) || vocab.is_eog(token) {
                continue;
            }
            piece.clear();
            vocab.token_to_piece_into(token, &mut piece, false, None);
            match piece[..] {
                [byte] => {
                    single[byte as usize].get_or_insert(token);
                }
                [byte, ..] => starting[byte as usize].push(token),
                [] => {}
            }
        }
        let mut tokens = Vec::with_capacity(256);
        for (byte, others) in starting.into_iter().enumerate() {
            match single[byte] {
                Some(t) => tokens.push((byte as u8, t)),
                None => tokens.extend(others.into_iter().map(|t| (byte as u8, t))),
            }
        }
        ByteProbe { tokens, single }
    }
}

/// Index of the first highest logit — exactly what llama.cpp's greedy sampler picks.
fn greedy(logits: impl Iterator<Item = f32>) -> usize {
    let mut best = 0;
    let mut best_logit = f32::NEG_INFINITY;
    for (i, logit) in logits.enumerate() {
        if i == 0 || logit > best_logit {
            best = i;
            best_logit = logit;
        }
    }
    best
}

/// Does the grammar, in its current state, accept `token` next? It is applied to a
/// one-candidate array and sets a rejected token's logit to -inf.
fn allowed(grammar: &mut LlamaSampler, one: &mut LlamaTokenDataArray, token: LlamaToken, logit: f32) -> bool {
    one.data.clear();
    one.data.push(LlamaTokenData::new(token, logit, 0.0));
    one.selected = None;
    one.sorted = false;
    grammar.apply(one);
    one.data.first().is_some_and(|d| d.logit() != f32::NEG_INFINITY)
}

/// Why the prompt cache was not saved (logged, never fatal: the next process recomputes).
#[derive(Debug, thiserror::Error)]
enum CacheError {
    #[error(transparent)]
    Io(std::io::Error),
    #[error(transparent)]
    Save(llama_cpp_2::context::session::SaveSeqStateError),
}

#[cfg(test)]
mod tests {
    use super::{greedy, threads_for};

    #[test]
    fn threads_are_the_cpus_nobody_else_is_running_on() {
        // Idle machine (only this thread runs): every CPU, up to the most allowed.
        assert_eq!(threads_for(2, Some(1), 4), 2);
        assert_eq!(threads_for(8, Some(1), 4), 4);
        // One other busy task on two CPUs: one thread. Load 4 on two: still one, never zero.
        assert_eq!(threads_for(2, Some(2), 4), 1);
        assert_eq!(threads_for(2, Some(5), 4), 1);
        assert_eq!(threads_for(8, Some(4), 4), 4);
        assert_eq!(threads_for(8, Some(7), 4), 2);
        // Load unknown (no /proc): the most allowed.
        assert_eq!(threads_for(2, None, 2), 2);
        assert_eq!(threads_for(1, Some(0), 0), 1);
    }

    #[test]
    fn greedy_takes_the_first_of_equal_maxima_like_llama_cpp() {
        assert_eq!(greedy([1.0, 3.0, 2.0, 3.0].into_iter()), 1);
        assert_eq!(greedy([f32::NEG_INFINITY, f32::NEG_INFINITY].into_iter()), 0);
        assert_eq!(greedy([-5.0, f32::NEG_INFINITY, -1.0].into_iter()), 2);
        assert_eq!(greedy([f32::NAN, 1.0].into_iter()), 0); // NaN compares false both ways, as in C
    }
}
