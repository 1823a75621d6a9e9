//! rest — intentional inactivity. Takes no input, returns no output; undecorated it does
//! nothing. Waiting between moves is a decorator (`Decorator::pacing`, or the daemon's
//! event-driven wake).

pub fn rest() {}
