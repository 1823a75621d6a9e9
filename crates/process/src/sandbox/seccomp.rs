//! A seccomp filter for what Landlock cannot hold on this kernel (Linux only):
//!
//! - **no network**: `socket(2)` for any family but local (`AF_UNIX`) and `AF_NETLINK` is
//!   refused with `EACCES` — Landlock's network rules cover TCP only, this covers UDP and raw
//!   sockets too;
//! - **signals stay in the sandbox**, where Landlock has no signal scope (before Linux 6.12):
//!   `kill`, `tkill`, `tgkill` and `rt_(tg)sigqueueinfo` may target only the sandboxed
//!   process's own group and processes (or groups) younger than it — its descendants. cn,
//!   its ancestors and everything that ran before the sandbox started (the owner's shell, the
//!   daemon) are refused with `EPERM`, cn and its ancestors by number even after the pid
//!   counter wraps. `pidfd_send_signal` answers `ENOSYS`, so callers fall back to `kill`.
//!   What this cannot see: a process someone else started after the sandbox stays reachable
//!   (Landlock's scope and a PID namespace have no such gap). `fcntl(F_SETOWN[_EX])` and the
//!   `FIOSETOWN`/`SIOCSPGRP` ioctls, which would have the kernel send `SIGIO` (or any signal)
//!   to another process, are refused too;
//! - **no escape from the process group**, where there is no PID namespace to hold the
//!   command's processes: `setsid` and `setpgid` to any group but the sandbox's own are
//!   refused, so the whole group cn kills when the command ends (or times out) is every
//!   process it started (`timeout(1)` ignores the refusal; `setsid(1)` and Python's
//!   `start_new_session` fail there).
//!
//! Syscalls of another architecture (32-bit on a 64-bit kernel, x32) answer `ENOSYS`.
//!
//! Invariant: [`Filter::install`] runs between fork and exec: it patches the child's own pid
//! into the prepared program and makes one `prctl`; nothing is allocated.

use std::io;

const LD_W_ABS: u16 = 0x20;
const JEQ: u16 = 0x15;
const JGT: u16 = 0x25;
const JGE: u16 = 0x35;
const RET: u16 = 0x06;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0: u32 = 16;
const ARG1: u32 = 24;

#[cfg(target_arch = "x86_64")]
const NATIVE: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const NATIVE: u32 = 0xC000_00B7;

#[derive(Clone, Copy)]
enum K {
    Const(u32),
    /// The sandboxed child's own pid (its process group), known only in the child.
    OwnPid,
    /// 2³² minus it: `-pid` as an unsigned 32-bit value.
    MinusOwnPid,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Label {
    Next,
    Nr,
    Socket,
    Setpgid,
    Fcntl,
    Ioctl,
    Pid,
    Pos,
    Neg,
    Allow,
    Eperm,
    Enosys,
}

enum Ins {
    Ld(u32),
    Jmp(u16, K, Label, Label),
    Ret(u32),
    At(Label),
}

/// A prepared filter; installed in the child by [`Filter::install`].
pub(crate) struct Filter {
    program: Vec<libc::sock_filter>,
    /// Indexes of the instructions whose constant is [`K::OwnPid`] or [`K::MinusOwnPid`].
    patch: Vec<(usize, bool)>,
}

impl Filter {
    /// The filter for a sandbox without network (`no_network`), where Landlock has no
    /// signal scope (`signals`: signals kept inside), and where no PID namespace holds its
    /// processes (`contain`: no leaving the group); `None` when none is needed. Err when this
    /// architecture has no filter (the caller refuses to run).
    pub(crate) fn new(no_network: bool, signals: bool, contain: bool) -> Result<Option<Filter>, String> {
        if !no_network && !signals && !contain {
            return Ok(None);
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            return Err(format!("no seccomp filter for {}", std::env::consts::ARCH));
        }
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        Ok(Some(Filter::assemble(&program(Rules { no_network, signals, contain }, &ancestors()))))
    }

    fn assemble(ins: &[Ins]) -> Filter {
        // Positions of the labels: every instruction but `At` takes one slot.
        let mut at = Vec::new();
        let mut n = 0usize;
        for i in ins {
            match i {
                Ins::At(l) => at.push((*l, n)),
                _ => n += 1,
            }
        }
        let target = |l: Label, pos: usize| -> u8 {
            if l == Label::Next {
                return 0;
            }
            let (_, to) = at.iter().find(|(x, _)| *x == l).copied().unwrap_or((l, pos + 1));
            u8::try_from(to - (pos + 1)).unwrap_or(0)
        };
        let mut program = Vec::with_capacity(n);
        let mut patch = Vec::new();
        for i in ins {
            let pos = program.len();
            let f = match i {
                Ins::At(_) => continue,
                Ins::Ld(off) => libc::sock_filter { code: LD_W_ABS, jt: 0, jf: 0, k: *off },
                Ins::Ret(v) => libc::sock_filter { code: RET, jt: 0, jf: 0, k: *v },
                Ins::Jmp(code, k, t, f) => {
                    let k = match k {
                        K::Const(c) => *c,
                        K::OwnPid => {
                            patch.push((pos, false));
                            0
                        }
                        K::MinusOwnPid => {
                            patch.push((pos, true));
                            0
                        }
                    };
                    libc::sock_filter { code: *code, jt: target(*t, pos), jf: target(*f, pos), k }
                }
            };
            program.push(f);
        }
        Filter { program, patch }
    }

    /// In the child between fork and exec, after `no_new_privs` is set (Landlock sets it).
    ///
    /// # Safety
    /// Call only in a forked child before exec.
    pub(crate) unsafe fn install(&mut self) -> io::Result<()> {
        // SAFETY: getpid reads the calling process's id.
        let pid = unsafe { libc::getpid() } as u32;
        for (i, minus) in &self.patch {
            self.program[*i].k = if *minus { pid.wrapping_neg() } else { pid };
        }
        let prog = libc::sock_fprog { len: self.program.len() as u16, filter: self.program.as_mut_ptr() };
        // SAFETY: the program outlives the call, which copies it into the kernel.
        let r = unsafe {
            libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER as libc::c_ulong, &prog as *const _ as usize)
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Which of the filter's parts are needed.
#[derive(Clone, Copy)]
struct Rules {
    no_network: bool,
    signals: bool,
    contain: bool,
}

/// `fcntl` commands that set a file's owner (x86-64 and arm64 numbers).
const F_SETOWN: u32 = 8;
const F_SETOWN_EX: u32 = 15;
/// `ioctl`s that set a file's owner (the process `SIGIO` goes to).
const FIOSETOWN: u32 = 0x8901;
const SIOCSPGRP: u32 = 0x8902;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn program(r: Rules, forbidden: &[u32]) -> Vec<Ins> {
    use Ins::*;
    use Label::*;
    let nr = |s: libc::c_long| K::Const(s as u32);
    let mut p = vec![Ld(ARCH), Jmp(JEQ, K::Const(NATIVE), Nr, Enosys), At(Nr), Ld(NR)];
    #[cfg(target_arch = "x86_64")]
    p.push(Jmp(JGE, K::Const(0x4000_0000), Enosys, Next));
    if r.no_network {
        p.push(Jmp(JEQ, nr(libc::SYS_socket), Socket, Next));
    }
    if r.signals {
        for s in
            [libc::SYS_kill, libc::SYS_tkill, libc::SYS_tgkill, libc::SYS_rt_sigqueueinfo, libc::SYS_rt_tgsigqueueinfo]
        {
            p.push(Jmp(JEQ, nr(s), Pid, Next));
        }
        p.push(Jmp(JEQ, nr(libc::SYS_pidfd_send_signal), Enosys, Next));
        p.push(Jmp(JEQ, nr(libc::SYS_fcntl), Fcntl, Next));
        p.push(Jmp(JEQ, nr(libc::SYS_ioctl), Ioctl, Next));
    }
    if r.contain {
        p.push(Jmp(JEQ, nr(libc::SYS_setsid), Eperm, Next));
        p.push(Jmp(JEQ, nr(libc::SYS_setpgid), Setpgid, Next));
    }
    p.push(Ret(RET_ALLOW));
    if r.contain {
        // setpgid(pid, pgid): only into the sandbox's own group.
        p.extend([At(Setpgid), Ld(ARG1), Jmp(JEQ, K::OwnPid, Allow, Eperm)]);
    }
    if r.signals {
        p.extend([
            At(Fcntl),
            Ld(ARG1),
            Jmp(JEQ, K::Const(F_SETOWN), Eperm, Next),
            Jmp(JEQ, K::Const(F_SETOWN_EX), Eperm, Allow),
            At(Ioctl),
            Ld(ARG1),
            Jmp(JEQ, K::Const(FIOSETOWN), Eperm, Next),
            Jmp(JEQ, K::Const(SIOCSPGRP), Eperm, Allow),
        ]);
    }
    if r.no_network {
        p.extend([
            At(Socket),
            Ld(ARG0),
            Jmp(JEQ, K::Const(libc::AF_UNIX as u32), Allow, Next),
            Jmp(JEQ, K::Const(libc::AF_NETLINK as u32), Allow, Next),
            Ret(RET_ERRNO | libc::EACCES as u32),
        ]);
    }
    if r.signals {
        p.extend([At(Pid), Ld(ARG0), Jmp(JEQ, K::Const(0), Allow, Next)]);
        for f in forbidden {
            p.push(Jmp(JEQ, K::Const(*f), Eperm, Next));
            p.push(Jmp(JEQ, K::Const(f.wrapping_neg()), Eperm, Next));
        }
        p.extend([
            Jmp(JGE, K::Const(0x8000_0000), Neg, Pos),
            At(Pos),
            Jmp(JGE, K::OwnPid, Allow, Eperm),
            At(Neg),
            Jmp(JGT, K::MinusOwnPid, Eperm, Allow),
        ]);
    }
    p.extend([At(Allow), Ret(RET_ALLOW), At(Eperm), Ret(RET_ERRNO | libc::EPERM as u32), At(Enosys)]);
    p.push(Ret(RET_ERRNO | libc::ENOSYS as u32));
    p
}

/// cn and its ancestors: their pids, process groups and sessions (never 0 or 1).
fn ancestors() -> Vec<u32> {
    let mut out = Vec::new();
    let mut pid = std::process::id();
    for _ in 0..32 {
        if pid <= 1 {
            break;
        }
        out.push(pid);
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { break };
        // `pid (comm) state ppid pgrp session …`; comm may hold spaces and parentheses.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { break };
        let fields: Vec<u32> = rest.split_whitespace().skip(1).take(3).filter_map(|f| f.parse().ok()).collect();
        let [ppid, pgrp, session] = fields[..] else { break };
        out.extend([pgrp, session].into_iter().filter(|id| *id > 1));
        pid = ppid;
    }
    out.sort_unstable();
    out.dedup();
    // A long chain must not overflow the jumps (at most 255 instructions apart).
    out.truncate(48);
    out
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;

    #[test]
    fn jumps_land_on_their_labels_and_pids_are_patched() {
        let f = Filter::assemble(&program(Rules { no_network: true, signals: true, contain: true }, &[100, 200]));
        assert!(f.program.len() < 255);
        assert_eq!(f.patch.len(), 3);
        // The last two instructions return EPERM and ENOSYS.
        let n = f.program.len();
        assert_eq!(f.program[n - 1].k, RET_ERRNO | libc::ENOSYS as u32);
        assert_eq!(f.program[n - 2].k, RET_ERRNO | libc::EPERM as u32);
        assert!(ancestors().contains(&std::process::id()));
    }
}
