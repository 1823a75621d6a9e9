//! Helpers for the control room's tests: `cn serve` as a child process (its first line of
//! output is the address with the owner token), and cn-testkit's plain HTTP/1.1 client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Stdio};

use crate::daemon_common::cn_cmd;
pub use cn_testkit::http::{http, Room};

pub mod webdriver;

/// A running `cn serve`: its child, and the address it printed first (`http://ADDR/?token=TOKEN`).
pub struct Serve {
    pub child: Child,
    room: Room,
}

impl std::ops::Deref for Serve {
    type Target = Room;
    fn deref(&self) -> &Room {
        &self.room
    }
}

impl Serve {
    pub fn start(hub: &Path, args: &[&str]) -> Serve {
        let mut child = cn_cmd(hub)
            .arg("serve")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cn serve starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let url = first.trim().to_string();
        if url.is_empty() {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("cn serve printed no address: {err}");
        }
        Serve { room: Room::of_url(&url), child }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
