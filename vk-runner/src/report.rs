//! Check results: one line per check as it happens, a closing `N passed, N failed, N skipped`,
//! or JSON for tools.

use serde::Serialize;
use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

/// One check: a probe, a draw or dispatch, or a line that could not be parsed.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub file: String,
    pub line: u32,
    pub status: Status,
    /// The line was marked `todo` for the shader model it ran at.
    pub todo: bool,
    /// `probe`, `draw`, `dispatch`, `parse`, `file`.
    pub kind: &'static str,
    /// Failure details or skip reason; empty for passes.
    pub message: String,
}

/// Collects checks and prints them.
pub struct Report {
    pub checks: Vec<Check>,
    json: bool,
    verbose: bool,
    /// Where checks go instead of stdout (a worker process's pipe).
    sink: Option<Sink>,
}

/// Where a forwarding report sends its checks.
type Sink = Box<dyn FnMut(&Check)>;

impl Report {
    /// `json`: print nothing per check (the caller prints [`Report::to_json`]).
    /// `verbose`: print passes too (failures and skips are always printed).
    pub fn new(json: bool, verbose: bool) -> Self {
        Report {
            checks: Vec::new(),
            json,
            verbose,
            sink: None,
        }
    }

    /// A report that hands each check to `sink` as it is added and prints nothing.
    pub fn forwarding(sink: impl FnMut(&Check) + 'static) -> Self {
        Report {
            checks: Vec::new(),
            json: true,
            verbose: false,
            sink: Some(Box::new(sink)),
        }
    }

    pub fn add(&mut self, c: Check) {
        if let Some(sink) = &mut self.sink {
            sink(&c);
        }
        if !self.json && (self.verbose || c.status != Status::Pass) {
            let status = match c.status {
                Status::Pass => "pass",
                Status::Fail => "fail",
                Status::Skip => "skip",
            };
            let todo = if c.todo { " (todo)" } else { "" };
            let msg = if c.message.is_empty() {
                String::new()
            } else {
                format!(": {}", c.message)
            };
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "{}:{}: {status}{todo} [{}]{msg}",
                c.file, c.line, c.kind
            );
        }
        self.checks.push(c);
    }

    pub fn count(&self, s: Status) -> usize {
        self.checks.iter().filter(|c| c.status == s).count()
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.count(Status::Pass),
            self.count(Status::Fail),
            self.count(Status::Skip)
        )
    }

    pub fn to_json(&self, extra: serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "checks": self.checks,
            "passed": self.count(Status::Pass),
            "failed": self.count(Status::Fail),
            "skipped": self.count(Status::Skip),
            "run": extra,
        })
    }
}
