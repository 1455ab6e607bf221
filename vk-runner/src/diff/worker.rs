//! Running each side in a child process, so that a driver crash (lavapipe segfaults on some
//! SPIR-V) or a hang costs one shader, not the run. A worker (`vk-runner diff --worker SIDE`)
//! creates the device once, then reads one job per line on stdin and answers each with one
//! line on stdout; the parent restarts a worker that died or overran its time, recording the
//! shader it was on as `crashed (SIDE)` or `timed out (SIDE)`.
//!
//! The protocol lines start with `@@diff ` so that anything else a driver prints on stdout is
//! ignored.

use super::exec;
use super::inject::Inject;
use super::outputs::SideResult;
use super::shader;
use crate::backend::Backend;
use crate::vk::context::Gpu;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

const TAG: &str = "@@diff ";

/// One shader for a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub path: PathBuf,
    pub seed: u64,
    pub inject: Option<String>,
}

/// What a worker says.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Message {
    Ready { device: String },
    NoDevice { reason: String },
    Result { result: SideResult },
}

fn send(m: &Message) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{TAG}{}",
        serde_json::to_string(m).unwrap_or_else(|_| "{}".into())
    );
    let _ = out.flush();
}

/// The worker's main loop (in the child).
pub fn serve(backend: &Backend, gpu: Option<Gpu>, no_device: String) -> i32 {
    let Some(gpu) = gpu else {
        send(&Message::NoDevice { reason: no_device });
        return 1;
    };
    send(&Message::Ready {
        device: gpu.describe(),
    });
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let result = match serde_json::from_str::<Job>(&line) {
            Ok(job) => run_job(&gpu, backend, &job),
            Err(e) => SideResult::NotRun {
                reason: format!("bad job line: {e}"),
                unsupported: true,
            },
        };
        send(&Message::Result { result });
    }
    0
}

fn run_job(gpu: &Gpu, backend: &Backend, job: &Job) -> SideResult {
    let bytes = match std::fs::read(&job.path) {
        Ok(b) => b,
        Err(e) => {
            return SideResult::NotRun {
                reason: format!("{}: {e}", job.path.display()),
                unsupported: true,
            };
        }
    };
    let shader = match shader::load(bytes) {
        Ok(s) => s,
        Err(e) => {
            return SideResult::NotRun {
                reason: e,
                unsupported: true,
            };
        }
    };
    let inject = match job.inject.as_deref().map(Inject::parse).transpose() {
        Ok(i) => i,
        Err(e) => {
            return SideResult::NotRun {
                reason: e,
                unsupported: true,
            };
        }
    };
    // Only our side is ever miscompiled on purpose.
    let inject = inject.filter(|_| backend.is_ours());
    exec::run(gpu, backend, &shader, job.seed, inject.as_ref())
}

/// How a job ended for one side, seen from the parent.
#[derive(Debug, Clone)]
pub enum Outcome {
    Done(SideResult),
    /// The worker died (signal or exit) while on the job.
    Crashed(String),
    TimedOut(Duration),
    /// The worker could not start or has no device.
    NoWorker(String),
}

/// The parent's handle on one worker process.
pub struct Worker {
    side: &'static str,
    command: Vec<String>,
    child: Option<(Child, ChildStdin, Receiver<Option<String>>)>,
    /// The device the worker reported.
    pub device: Option<String>,
    /// The last lines the worker wrote on stderr (crash context).
    stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    no_device: Option<String>,
}

impl Worker {
    /// `command`: the program and arguments that start a worker for `side`.
    pub fn new(side: &'static str, command: Vec<String>) -> Worker {
        Worker {
            side,
            command,
            child: None,
            device: None,
            stderr: Default::default(),
            no_device: None,
        }
    }

    fn start(&mut self) -> Result<(), String> {
        if self.child.is_some() {
            return Ok(());
        }
        if let Some(r) = &self.no_device {
            return Err(r.clone());
        }
        let (prog, args) = self.command.split_first().ok_or("no worker command")?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the {} worker ({prog}): {e}", self.side))?;
        let stdin = child.stdin.take().ok_or("no worker stdin")?;
        let stdout = child.stdout.take().ok_or("no worker stdout")?;
        let stderr = child.stderr.take().ok_or("no worker stderr")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(m) = line.strip_prefix(TAG)
                    && tx.send(Some(m.to_string())).is_err()
                {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        if let Ok(mut k) = self.stderr.lock() {
            k.clear();
        }
        let keep = self.stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut k) = keep.lock() {
                    k.push(line);
                    let n = k.len();
                    if n > 20 {
                        k.drain(..n - 20);
                    }
                }
            }
        });
        self.child = Some((child, stdin, rx));
        match self.receive(Duration::from_secs(120)) {
            Ok(Message::Ready { device }) => {
                self.device = Some(device);
                Ok(())
            }
            Ok(Message::NoDevice { reason }) => {
                self.stop();
                self.no_device = Some(format!("no Vulkan device: {reason}"));
                Err(self.no_device.clone().unwrap_or_default())
            }
            Ok(_) => {
                self.stop();
                Err(format!("the {} worker spoke out of turn", self.side))
            }
            Err(Outcome::Crashed(e)) | Err(Outcome::NoWorker(e)) => {
                self.stop();
                Err(format!("the {} worker did not start: {e}", self.side))
            }
            Err(Outcome::TimedOut(_)) => {
                self.stop();
                Err(format!("the {} worker did not start in 120 s", self.side))
            }
            Err(Outcome::Done(_)) => Err("unreachable".into()),
        }
    }

    fn receive(&mut self, timeout: Duration) -> Result<Message, Outcome> {
        let Some((child, _, rx)) = self.child.as_mut() else {
            return Err(Outcome::NoWorker("not started".into()));
        };
        match rx.recv_timeout(timeout) {
            Ok(Some(line)) => serde_json::from_str(&line)
                .map_err(|e| Outcome::Crashed(format!("unreadable answer: {e}"))),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = child.wait().map(describe_exit).unwrap_or_default();
                let tail = self
                    .stderr
                    .lock()
                    .map(|k| k.iter().rev().take(2).rev().cloned().collect::<Vec<_>>())
                    .unwrap_or_default()
                    .join(" | ");
                let tail = if tail.is_empty() {
                    String::new()
                } else {
                    format!(" (stderr: {tail})")
                };
                self.child = None;
                Err(Outcome::Crashed(format!("{status}{tail}")))
            }
            Err(RecvTimeoutError::Timeout) => Err(Outcome::TimedOut(timeout)),
        }
    }

    /// Kills the worker (ours: we started it).
    fn stop(&mut self) {
        if let Some((mut child, stdin, _)) = self.child.take() {
            drop(stdin);
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends a job; the answer comes from [`Worker::finish`].
    pub fn submit(&mut self, job: &Job) -> Result<(), Outcome> {
        self.start().map_err(Outcome::NoWorker)?;
        let Some((_, stdin, _)) = self.child.as_mut() else {
            return Err(Outcome::NoWorker("not started".into()));
        };
        let line = serde_json::to_string(job).unwrap_or_default();
        if writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .is_err()
        {
            // It died since the last job: the answer reports how.
        }
        Ok(())
    }

    /// Waits for the answer to the job submitted last.
    pub fn finish(&mut self, timeout: Duration) -> Outcome {
        match self.receive(timeout) {
            Ok(Message::Result { result }) => Outcome::Done(result),
            Ok(_) => {
                self.stop();
                Outcome::Crashed("the worker spoke out of turn".into())
            }
            Err(o @ Outcome::TimedOut(_)) => {
                self.stop();
                o
            }
            Err(o) => o,
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// "killed by signal 11 (SIGSEGV)", "exit status 101".
pub fn describe_exit(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (_, Some(sig)) => {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            format!("killed by signal {sig}{name}")
        }
        (Some(c), _) => format!("exit status {c}"),
        _ => "ended".into(),
    }
}

/// The command that starts this program again: under lavapipe's wrapper when the run is
/// under one (the wrapper starts programs through its own loader, so `/proc/self/exe` is the
/// loader and a plain re-exec would see no driver).
pub fn self_command() -> Result<Vec<String>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let is_loader = exe
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("ld-") || n.starts_with("ld."));
    let exe = if is_loader {
        let argv0 = std::env::args_os().next().ok_or("no argv[0]")?;
        let p = PathBuf::from(argv0);
        std::fs::canonicalize(&p).map_err(|e| format!("{}: {e}", p.display()))?
    } else {
        exe
    };
    let mut cmd = Vec::new();
    // Started through a wrapper's loader: start the child through the same wrapper. Started
    // directly: directly (the caller may have hidden the driver on purpose).
    for var in ["DXBC_SPIRV_LAVAPIPE", "WITH_NEW_LAVAPIPE"] {
        if let Some(w) = std::env::var_os(var).filter(|w| is_loader && !w.is_empty()) {
            cmd.push(w.to_string_lossy().into_owned());
            break;
        }
    }
    cmd.push(exe.to_string_lossy().into_owned());
    Ok(cmd)
}
