//! Crash isolation for the D3D12 executor: the files run in a worker process forked from
//! vk-runner before vkd3d is loaded, which reports each check through a pipe as one JSON
//! line. When the worker dies (a crash in vkd3d, the driver or a shader compiler) or a file
//! runs past its time limit, the file it was running gets a failed `crash` check, and a new
//! worker carries on with the next file. The device is created once per worker, so a run
//! without crashes creates it once.
//!
//! The worker is forked rather than started afresh so that it runs with exactly the
//! process's loader, library path and preloads (under `tools/lavapipe.sh` or
//! `tools/in-vkd3d.sh` the program runs through another root's dynamic loader, which a new
//! process would not get). The parent stays single-threaded and never loads vkd3d or
//! Vulkan, so forking it is sound.

use super::ffi::process;
use crate::report::{Check, Report, Status};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One line from the worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum Message {
    /// The device was created: its description.
    Ready(String),
    /// The executor cannot run here (libraries missing, no device): why.
    Unavailable(String),
    /// Starting file N of the list.
    File(usize),
    Check(WireCheck),
    /// Finished file N.
    Done(usize),
}

/// A [`Check`] on the wire (its kind as a string).
#[derive(Debug, Serialize, Deserialize)]
pub struct WireCheck {
    file: String,
    line: u32,
    status: Status,
    todo: bool,
    kind: String,
    message: String,
}

impl From<&Check> for WireCheck {
    fn from(c: &Check) -> Self {
        WireCheck {
            file: c.file.clone(),
            line: c.line,
            status: c.status,
            todo: c.todo,
            kind: c.kind.to_string(),
            message: c.message.clone(),
        }
    }
}

impl From<WireCheck> for Check {
    fn from(c: WireCheck) -> Self {
        const KINDS: [&str; 8] = [
            "probe", "draw", "dispatch", "copy", "parse", "file", "crash", "",
        ];
        Check {
            file: c.file,
            line: c.line,
            status: c.status,
            todo: c.todo,
            kind: KINDS
                .iter()
                .find(|k| **k == c.kind)
                .copied()
                .unwrap_or("file"),
            message: c.message,
        }
    }
}

/// The worker's end of the pipe.
pub struct Sender {
    out: std::fs::File,
}

impl Sender {
    /// Another sender on the same pipe.
    pub fn try_clone(&self) -> std::io::Result<Sender> {
        Ok(Sender {
            out: self.out.try_clone()?,
        })
    }

    pub fn send(&mut self, m: &Message) {
        let mut line = serde_json::to_string(m).unwrap_or_default();
        line.push('\n');
        // The parent reads until it has what it needs; if it is gone there is nobody to
        // tell.
        let _ = self.out.write_all(line.as_bytes());
    }
}

/// What the parent learned from the workers.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The device description, or why the executor is unavailable.
    pub device: Option<Result<String, String>>,
    /// Files whose worker crashed or timed out.
    pub crashes: usize,
}

/// Runs `files` in workers. `work(sender, first)` is what a worker does: create the device,
/// send `Ready` or `Unavailable`, then run files `first..` sending `File`, each check (all
/// skipped when unavailable), and `Done`. `unavailable(reason, file)` reports a file's checks
/// as skipped when no worker can run it.
/// `announce` is called once, with the first worker's device description or reason.
pub fn run_isolated(
    files: &[PathBuf],
    timeout: Duration,
    report: &mut Report,
    work: &dyn Fn(&mut Sender, usize),
    unavailable: &dyn Fn(&str, &std::path::Path, &mut Report),
    announce: &dyn Fn(&Result<String, String>),
) -> Outcome {
    let mut outcome = Outcome::default();
    let mut next = 0usize;
    while next < files.len() {
        let first = next;
        let worker = match Worker::spawn(|s| work(s, first)) {
            Ok(w) => w,
            Err(e) => {
                let why = format!("no worker process: {e}");
                if outcome.device.is_none() {
                    announce(outcome.device.insert(Err(why.clone())));
                }
                for f in &files[next..] {
                    unavailable(&why, f, report);
                }
                break;
            }
        };
        let mut reader = BufReader::new(worker.read);
        let mut current: Option<usize> = None;
        let mut started = Instant::now();
        let mut ended = None;
        loop {
            let line = match read_line(&mut reader, started + timeout, timeout) {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(why) => {
                    ended = Some(why);
                    break;
                }
            };
            match serde_json::from_str::<Message>(&line) {
                Ok(Message::Ready(d)) => {
                    if outcome.device.is_none() {
                        announce(outcome.device.insert(Ok(d)));
                    }
                }
                Ok(Message::Unavailable(why)) => {
                    if outcome.device.is_none() {
                        announce(outcome.device.insert(Err(why)));
                    }
                }
                Ok(Message::File(i)) => {
                    current = Some(i);
                    started = Instant::now();
                }
                Ok(Message::Check(c)) => report.add(c.into()),
                Ok(Message::Done(i)) => {
                    next = i + 1;
                    current = None;
                }
                Err(e) => eprintln!("vk-runner: d3d12: bad message from the worker ({e}): {line}"),
            }
        }
        if ended.is_some() {
            process::kill(worker.pid);
        }
        let status = process::wait(worker.pid);
        let clean = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
        if current.is_none() && ended.is_none() && !clean {
            // Between files: no check lost, but say so (a crash while tearing down).
            eprintln!(
                "vk-runner: d3d12: the worker {} after its last file",
                describe_status(status)
            );
        }
        if let Some(i) = current {
            outcome.crashes += 1;
            let why = ended.unwrap_or_else(|| describe_status(status));
            report.add(Check {
                file: files[i].display().to_string(),
                line: 0,
                status: Status::Fail,
                todo: false,
                kind: "crash",
                message: format!(
                    "the d3d12 worker {why} while running this file; its later checks did not run"
                ),
            });
            next = i + 1;
            continue;
        }
        if next < files.len() && next == first {
            // The worker ended without starting a file: nothing more can run.
            let why = match &outcome.device {
                Some(Err(why)) => why.clone(),
                _ => format!(
                    "the d3d12 worker {} before running a file",
                    ended.unwrap_or_else(|| describe_status(status))
                ),
            };
            if outcome.device.is_none() {
                announce(outcome.device.insert(Err(why.clone())));
            }
            for f in &files[next..] {
                unavailable(&why, f, report);
            }
            break;
        }
    }
    outcome
}

/// A forked worker: its pid and the read end of its pipe.
struct Worker {
    pid: process::Pid,
    read: std::fs::File,
}

impl Worker {
    fn spawn(work: impl FnOnce(&mut Sender)) -> Result<Worker, String> {
        let (read, write) = process::pipe()?;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        let mut write = Some(write);
        let pid = process::fork(|| {
            let mut s = Sender {
                out: write.take().expect("the write end"),
            };
            work(&mut s);
        })?;
        drop(write);
        Ok(Worker { pid, read })
    }
}

/// Reads one line before `deadline`: `Ok(None)` at the end of the stream, `Err` when the
/// time ran out (`limit`: the time limit, for the message).
fn read_line(
    r: &mut BufReader<std::fs::File>,
    deadline: Instant,
    limit: Duration,
) -> Result<Option<String>, String> {
    let mut line = Vec::new();
    loop {
        if r.buffer().is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("ran past the {} s time limit", limit.as_secs()));
            }
            let ms = left.as_millis().min(i32::MAX as u128) as i32;
            match process::readable(r.get_ref(), ms) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("could not be read ({e})")),
            }
        }
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("could not be read ({e})")),
        };
        if available.is_empty() {
            return Ok((!line.is_empty()).then(|| String::from_utf8_lossy(&line).into_owned()));
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(p) => {
                line.extend_from_slice(&available[..p]);
                r.consume(p + 1);
                return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
            }
            None => {
                let n = available.len();
                line.extend_from_slice(available);
                r.consume(n);
            }
        }
    }
}

/// "died of signal 11 (SIGSEGV)", "exited with status 3".
fn describe_status(status: i32) -> String {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        let name = match sig {
            libc::SIGSEGV => " (SIGSEGV)",
            libc::SIGABRT => " (SIGABRT)",
            libc::SIGBUS => " (SIGBUS)",
            libc::SIGFPE => " (SIGFPE)",
            libc::SIGILL => " (SIGILL)",
            libc::SIGKILL => " (SIGKILL)",
            _ => "",
        };
        format!("died of signal {sig}{name}")
    } else if libc::WIFEXITED(status) {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    } else {
        format!("stopped (wait status {status:#x})")
    }
}
