//! The agent layer: the hub, cn input / cn out, threads, the GTD ops, peers over git.
