//! Running test files in a child process, so that a driver crash (lavapipe segfaults on some
//! SPIR-V, e.g. vkd3d's hull shader in `stages/tess-join-phase-loop.shader_test`) costs the
//! file it happened in, not the run: the parent starts `vk-runner` again with the same options
//! and the files still to run (`--child`); the child runs them one after another, announcing
//! each file and sending its checks as JSON on stdout; when the child dies, the parent records
//! a failed `[crash]` check for the file it was on (`crashed (BACKEND): killed by signal 11
//! (SIGSEGV)`) and starts a new child with the files after it.
//!
//! Protocol lines start with `@@vk-runner ` (anything else on the child's stdout is ignored);
//! the child's stderr is the parent's.

use crate::report::{Check, Report, Status};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

const TAG: &str = "@@vk-runner ";

/// What the child reports once at the start (before any file) and its validation counts.
#[derive(Debug, Default, Clone)]
pub struct ChildInfo {
    /// `vk-runner: device ...` and `vk-runner: backend ...` lines, printed by the parent.
    pub banner: Vec<String>,
    pub device: Option<String>,
    pub validation_errors: u32,
    pub validation_warnings: u32,
    /// The exit status of a child that ended by itself before running a file (a usage
    /// error, say): the run stops with it.
    pub exit: Option<i32>,
}

/// Child side: announces the start of file `index`.
pub fn begin_file(index: usize) {
    send(&serde_json::json!({ "file": index }));
}

/// Child side: the checks of the file just run, and the device's validation counts so far.
pub fn end_file(report: &Report, errors: u32, warnings: u32) {
    send(&serde_json::json!({
        "checks": report.checks,
        "validation": [errors, warnings],
    }));
}

/// Child side: a banner line for the parent to print.
pub fn banner(line: &str, device: Option<&str>) {
    send(&serde_json::json!({ "banner": line, "device": device }));
}

fn send(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{TAG}{v}");
    let _ = out.flush();
}

/// A check's kind as the `&'static str` [`Check`] holds.
fn kind(s: &str) -> &'static str {
    match s {
        "probe" => "probe",
        "draw" => "draw",
        "dispatch" => "dispatch",
        "copy" => "copy",
        "parse" => "parse",
        "file" => "file",
        "crash" => "crash",
        _ => "",
    }
}

fn check_from(v: &Value) -> Option<Check> {
    Some(Check {
        file: v["file"].as_str()?.to_string(),
        line: v["line"].as_u64()? as u32,
        status: match v["status"].as_str()? {
            "pass" => Status::Pass,
            "fail" => Status::Fail,
            _ => Status::Skip,
        },
        todo: v["todo"].as_bool().unwrap_or(false),
        kind: kind(v["kind"].as_str().unwrap_or("")),
        message: v["message"].as_str().unwrap_or("").to_string(),
    })
}

/// Parent side: runs `files` in children started by `command` (this program with the run's
/// options and `--child`; the files are appended), adding every check to `report`. `backend`
/// names the side in crash messages.
pub fn run(
    command: &[String],
    files: &[PathBuf],
    backend: &str,
    report: &mut Report,
    quiet_banner: bool,
) -> ChildInfo {
    let mut info = ChildInfo::default();
    let mut next = 0;
    let mut errors_before = (0, 0);
    while next < files.len() {
        let Some((prog, args)) = command.split_first() else {
            break;
        };
        let child = Command::new(prog)
            .args(args)
            .args(&files[next..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                for f in &files[next..] {
                    report.add(crash_check(
                        f,
                        &format!("cannot start vk-runner ({prog}): {e}"),
                    ));
                }
                break;
            }
        };
        let Some(stdout) = child.stdout.take() else {
            break;
        };
        let mut current: Option<usize> = None;
        let mut reported = 0;
        let mut last_counts = (0, 0);
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Some(json) = line.strip_prefix(TAG) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(json) else {
                continue;
            };
            if let Some(b) = v["banner"].as_str() {
                if info.banner.iter().all(|x| x != b) {
                    if !quiet_banner {
                        println!("{b}");
                    }
                    info.banner.push(b.to_string());
                }
                if let Some(d) = v["device"].as_str() {
                    info.device = Some(d.to_string());
                }
            } else if let Some(i) = v["file"].as_u64() {
                current = Some(next + i as usize);
            } else if let Some(checks) = v["checks"].as_array() {
                for c in checks.iter().filter_map(check_from) {
                    report.add(c);
                }
                if let (Some(e), Some(w)) =
                    (v["validation"][0].as_u64(), v["validation"][1].as_u64())
                {
                    last_counts = (e as u32, w as u32);
                }
                current = None;
                reported += 1;
            }
        }
        let status = child.wait();
        info.validation_errors = errors_before.0 + last_counts.0;
        info.validation_warnings = errors_before.1 + last_counts.1;
        errors_before = (info.validation_errors, info.validation_warnings);
        let code = status.as_ref().ok().and_then(|s| s.code());
        if current.is_none() && reported == 0 && code.is_some_and(|c| c != 0) {
            info.exit = code;
            break;
        }
        // Died before announcing the next file (at start-up): that file takes the blame.
        if current.is_none() && next + reported < files.len() {
            current = Some(next + reported);
        }
        match current {
            // Died inside a file: record the crash, go on after it.
            Some(i) => {
                let how = status
                    .map(crate::diff::worker::describe_exit)
                    .unwrap_or_else(|e| e.to_string());
                report.add(crash_check(
                    &files[i],
                    &format!("crashed ({backend}): {how}"),
                ));
                next = i + 1;
            }
            None => break,
        }
    }
    info
}

fn crash_check(file: &std::path::Path, message: &str) -> Check {
    Check {
        file: file.display().to_string(),
        line: 0,
        status: Status::Fail,
        todo: false,
        kind: "crash",
        message: message.to_string(),
    }
}
