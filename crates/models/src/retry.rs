//! Retries around any model: exponential backoff with jitter, honouring the server's
//! `Retry-After` on 429 and 503.
//!
//! What is retried: connect failures, timeouts, cut streams, malformed streams, 408, 409,
//! 429 and 5xx (529 "overloaded" included). Never 400, 401, 403, 404, 422 (asking again
//! cannot fix the request), nor budget or config errors. After the last try the last
//! error is returned: the caller keeps the item (it goes back to the queue) and journals it.

use std::time::Duration;

use cn_compute::{Answer, Model, ModelError, Plan};

/// How to retry.
pub struct RetryPolicy {
    /// Tries after the first.
    pub retries: u32,
    /// The first backoff; doubled each try.
    pub base: Duration,
    /// No single wait is longer (a longer `Retry-After` ends the retries instead).
    pub max_delay: Duration,
    /// How to wait; tests record the delays instead of sleeping.
    pub sleep: Box<dyn FnMut(Duration) + Send>,
}

impl RetryPolicy {
    pub fn new(retries: u32) -> Self {
        RetryPolicy {
            retries,
            base: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
            sleep: Box::new(std::thread::sleep),
        }
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy::new(3)
    }
}

impl std::fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RetryPolicy {{ retries: {}, base: {:?}, max_delay: {:?} }}", self.retries, self.base, self.max_delay)
    }
}

/// Whether another try could succeed.
pub fn retryable(e: &ModelError) -> bool {
    match e {
        ModelError::Connect(_) | ModelError::Timeout(_) | ModelError::Cut(_) | ModelError::Malformed(_) => true,
        ModelError::Status { status, .. } => matches!(status, 408 | 409 | 429) || *status >= 500,
        ModelError::Budget(_) | ModelError::Config(_) | ModelError::Other(_) => false,
    }
}

/// The wait before try `attempt` (1-based): the server's `Retry-After` on 429/503, else
/// `base * 2^(attempt-1)` with "equal jitter" (half fixed, half random) so many agents
/// hitting one server do not retry in step. `None`: the server asks for longer than
/// `max_delay`, so give up now rather than hold the item.
pub fn delay(policy: &RetryPolicy, attempt: u32, error: &ModelError) -> Option<Duration> {
    if let ModelError::Status { status: 429 | 503, retry_after_ms: Some(ms), .. } = error {
        let d = Duration::from_millis(*ms);
        return (d <= policy.max_delay).then_some(d);
    }
    let exp = policy.base.saturating_mul(1u32 << (attempt - 1).min(20)).min(policy.max_delay);
    let half = exp / 2;
    Some(half + half.mul_f64(fastrand::f64()))
}

/// A model that retries its inner model.
#[derive(Debug)]
pub struct Retry<M> {
    pub inner: M,
    pub policy: RetryPolicy,
}

impl<M: Model> Retry<M> {
    pub fn new(inner: M, policy: RetryPolicy) -> Self {
        Retry { inner, policy }
    }
}

impl<M: Model> Model for Retry<M> {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let mut attempt = 0;
        loop {
            let error = match self.inner.ask(plan) {
                Ok(answer) => return Ok(answer),
                Err(e) => e,
            };
            attempt += 1;
            if attempt > self.policy.retries || !retryable(&error) {
                return Err(error);
            }
            let Some(wait) = delay(&self.policy, attempt, &error) else { return Err(error) };
            tracing::info!(attempt, ?wait, error = %cn_compute::Chain(&error), "model call failed; retrying");
            (self.policy.sleep)(wait);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    struct Failing(VecDeque<Result<Answer, ModelError>>, usize);
    impl Model for Failing {
        fn ask(&mut self, _: &Plan) -> Result<Answer, ModelError> {
            self.1 += 1;
            self.0.pop_front().unwrap_or_else(|| Ok(Answer::default()))
        }
    }

    fn status(status: u16, retry_after_ms: Option<u64>) -> ModelError {
        ModelError::Status { status, message: "x".into(), retry_after_ms }
    }

    fn policy(slept: &Arc<Mutex<Vec<Duration>>>) -> RetryPolicy {
        let s = slept.clone();
        RetryPolicy {
            retries: 3,
            base: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
            sleep: Box::new(move |d| s.lock().unwrap().push(d)),
        }
    }

    #[test]
    fn backs_off_exponentially_with_jitter_and_honours_retry_after() {
        let slept = Arc::new(Mutex::new(Vec::new()));
        let errors = vec![Err(status(500, None)), Err(status(503, None)), Err(status(429, Some(1000)))];
        let mut m = Retry::new(Failing(errors.into(), 0), policy(&slept));
        assert!(m.ask(&Plan::default()).is_ok());
        let slept = slept.lock().unwrap().clone();
        assert!(slept[0] >= Duration::from_millis(50) && slept[0] <= Duration::from_millis(100), "{slept:?}");
        assert!(slept[1] >= Duration::from_millis(100) && slept[1] <= Duration::from_millis(200), "{slept:?}");
        assert_eq!(slept[2], Duration::from_secs(1));
    }

    #[test]
    fn never_retries_what_cannot_succeed() {
        for e in [status(400, None), status(401, None), ModelError::Budget("x".into())] {
            let slept = Arc::new(Mutex::new(Vec::new()));
            let mut m = Retry::new(Failing(vec![Err(e.clone())].into(), 0), policy(&slept));
            assert_eq!(m.ask(&Plan::default()).unwrap_err(), e);
            assert_eq!(m.inner.1, 1);
        }
    }

    #[test]
    fn gives_up_after_the_last_retry_with_the_last_error() {
        let slept = Arc::new(Mutex::new(Vec::new()));
        let errors: Vec<_> = (0..10).map(|_| Err(ModelError::Timeout("slow".into()))).collect();
        let mut m = Retry::new(Failing(errors.into(), 0), policy(&slept));
        assert!(matches!(m.ask(&Plan::default()), Err(ModelError::Timeout(_))));
        assert_eq!(m.inner.1, 4);
        // A Retry-After beyond max_delay ends the retries at once.
        let mut m = Retry::new(Failing(vec![Err(status(429, Some(3_600_000)))].into(), 0), policy(&slept));
        assert!(m.ask(&Plan::default()).is_err());
        assert_eq!(m.inner.1, 1);
    }
}
