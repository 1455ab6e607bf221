//! What a batch run reports: a record per input (printed as stderr lines in input order and
//! written as the `--json`/`--report` file) and the summary line. The error kinds and the JSON
//! layout are documented in docs/cli.md.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::batch::write_stdout;
use crate::cli_error::{CliError, one_line};

/// Why one input failed: a short kind for the report and the one-line message (with the path).
#[derive(Debug)]
pub struct Failure {
    pub kind: &'static str,
    pub message: String,
}

impl Failure {
    pub fn new(kind: &'static str, error: CliError) -> Self {
        Failure {
            kind,
            message: error.0,
        }
    }

    /// A translator error, its kind named after the step or rule that failed.
    pub fn translator(name: &str, e: &translator::Error) -> Self {
        use translator::{Error, ErrorKind};
        let kind = match (e, e.kind()) {
            (Error::Container(_), _) => "container",
            (Error::Decode(_) | Error::D3d9Decode(_), _) => "decode",
            (_, ErrorKind::Malformed) => "malformed",
            (_, ErrorKind::Unsupported) => "unsupported",
            (_, ErrorKind::Invalid) => "invalid",
            (_, ErrorKind::Binding) => "binding",
            (_, ErrorKind::StreamOutput) => "stream-output",
            (_, ErrorKind::Internal) => "internal",
        };
        Failure::new(kind, CliError::input(name, e))
    }
}

/// One input's line in the `--json` report.
#[derive(Debug, Serialize)]
pub struct Record {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
    /// `ok`, `error` or `skipped`.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorRecord>,
    /// Why a skipped file was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_size: Option<u64>,
    /// Reading, processing and writing, in milliseconds.
    pub time_ms: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct ErrorRecord {
    kind: &'static str,
    message: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub ok: usize,
    pub failed: usize,
    pub skipped: usize,
}

#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    summary: &'a Summary,
    files: &'a [Record],
}

impl Record {
    pub fn new(path: &Path, output: Option<String>) -> Self {
        Record {
            path: path.display().to_string(),
            output,
            status: "ok",
            error: None,
            reason: None,
            output_size: None,
            time_ms: 0.0,
            warnings: Vec::new(),
        }
    }

    pub fn failed(mut self, f: Failure) -> Self {
        self.status = "error";
        self.error = Some(ErrorRecord {
            kind: f.kind,
            message: one_line(&f.message),
        });
        self
    }

    pub fn skipped(mut self, reason: &'static str) -> Self {
        self.status = "skipped";
        self.reason = Some(reason);
        self
    }

    /// Its stderr lines: warnings, or the error.
    pub fn print(&self) {
        for w in &self.warnings {
            eprintln!("dxbc: warning: {}", one_line(w));
        }
        if let Some(e) = &self.error {
            eprintln!("dxbc: error: {}", e.message);
        }
    }
}

impl Summary {
    /// Counts the records by status.
    pub fn of(records: &[Record]) -> Self {
        let mut summary = Summary::default();
        for r in records {
            match r.status {
                "ok" => summary.ok += 1,
                "error" => summary.failed += 1,
                _ => summary.skipped += 1,
            }
        }
        summary
    }

    /// `N <verb>, M failed, K skipped`, with the skips by reason when there are any.
    pub fn line(&self, verb: &str, records: &[Record]) -> String {
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for r in records {
            if let Some(reason) = r.reason {
                *reasons.entry(reason).or_default() += 1;
            }
        }
        let mut line = format!(
            "{} {verb}, {} failed, {} skipped",
            self.ok, self.failed, self.skipped
        );
        if !reasons.is_empty() {
            let parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{r}: {n}")).collect();
            line.push_str(&format!(" ({})", parts.join(", ")));
        }
        line
    }
}

pub fn write_report(
    path: &Path,
    command: &'static str,
    summary: &Summary,
    files: &[Record],
) -> Result<(), CliError> {
    let report = Report {
        command,
        summary,
        files,
    };
    let mut text =
        serde_json::to_string_pretty(&report).map_err(|e| CliError(format!("report: {e}")))?;
    text.push('\n');
    if path.as_os_str() == "-" {
        write_stdout(text.as_bytes())
    } else {
        std::fs::write(path, text).map_err(|e| CliError::input(&path.display().to_string(), e))
    }
}
