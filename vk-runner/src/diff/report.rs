//! The differential report: one verdict per shader (`agree`, `differ` with the first
//! differing output, or `not run` with the reason), coverage per class (bytecode and stage),
//! speed, and the closing line `diff: N shaders, R ran, A agree, D differ, S not run`;
//! optionally the same as JSON.

use super::compare::Difference;
use serde::Serialize;
use std::collections::BTreeMap;

/// The verdict on one shader.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Verdict {
    Agree { values: usize },
    Differ { difference: Difference },
    NotRun { reason: String },
}

/// One shader's entry.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub path: String,
    /// `dxbc ps`, `d3d9 vs`, ...
    pub class: String,
    pub model: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Per side: `ran`, or why not.
    pub ours: String,
    pub theirs: String,
    /// What to run to see it again, and the inputs as made (differences only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<Reproduce>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reproduce {
    pub command: String,
    pub seed: u64,
    pub inputs: Vec<String>,
}

/// Collects entries and prints them.
pub struct Report {
    pub entries: Vec<Entry>,
    quiet: bool,
}

/// Counts per class.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClassCount {
    pub shaders: usize,
    pub ran: usize,
    pub agree: usize,
    pub differ: usize,
    pub not_run: usize,
}

impl Report {
    pub fn new(quiet: bool) -> Report {
        Report {
            entries: Vec::new(),
            quiet,
        }
    }

    pub fn add(&mut self, e: Entry) {
        let line = match &e.verdict {
            Verdict::Agree { values } => {
                if self.quiet {
                    None
                } else {
                    Some(format!("{}: agree ({values} values)", e.path))
                }
            }
            Verdict::Differ { difference: d } => {
                let what = if !d.location.is_empty() {
                    let note = if d.note.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", d.note)
                    };
                    format!(
                        "{}.{} at {}: ours {}, vkd3d {} (tolerance {}){}",
                        d.output,
                        ["x", "y", "z", "w"]
                            .get(d.component as usize)
                            .map_or_else(|| d.component.to_string(), |s| s.to_string()),
                        d.location,
                        d.ours_text,
                        d.theirs_text,
                        d.tolerance,
                        note
                    )
                } else {
                    d.note.clone()
                };
                let repro = e
                    .reproduce
                    .as_ref()
                    .map_or(String::new(), |r| format!("; reproduce: {}", r.command));
                Some(format!("{}: differ: {what}{repro}", e.path))
            }
            Verdict::NotRun { reason } => Some(format!("{}: not run ({reason})", e.path)),
        };
        if let Some(l) = line {
            println!("{l}");
        }
        self.entries.push(e);
    }

    pub fn classes(&self) -> BTreeMap<String, ClassCount> {
        let mut m: BTreeMap<String, ClassCount> = BTreeMap::new();
        for e in &self.entries {
            let c = m.entry(e.class.clone()).or_default();
            c.shaders += 1;
            match e.verdict {
                Verdict::Agree { .. } => {
                    c.ran += 1;
                    c.agree += 1
                }
                Verdict::Differ { .. } => {
                    c.ran += 1;
                    c.differ += 1
                }
                Verdict::NotRun { .. } => c.not_run += 1,
            }
        }
        m
    }

    pub fn total(&self) -> ClassCount {
        let mut t = ClassCount::default();
        for c in self.classes().values() {
            t.shaders += c.shaders;
            t.ran += c.ran;
            t.agree += c.agree;
            t.differ += c.differ;
            t.not_run += c.not_run;
        }
        t
    }

    /// Prints coverage per class, speed, and the closing line.
    pub fn summary(&self, seconds: f64) {
        for (class, c) in self.classes() {
            println!(
                "diff: {class}: {} shaders, {} ran on both sides ({:.1} %), {} agree, {} differ, {} not run",
                c.shaders,
                c.ran,
                100.0 * c.ran as f64 / c.shaders.max(1) as f64,
                c.agree,
                c.differ,
                c.not_run
            );
        }
        let t = self.total();
        println!(
            "diff: {:.1} s, {:.2} shaders per second",
            seconds,
            t.shaders as f64 / seconds.max(1e-9)
        );
        println!(
            "diff: {} shaders, {} ran, {} agree, {} differ, {} not run",
            t.shaders, t.ran, t.agree, t.differ, t.not_run
        );
    }

    pub fn to_json(&self, seconds: f64, extra: serde_json::Value) -> serde_json::Value {
        let t = self.total();
        serde_json::json!({
            "shaders": t.shaders,
            "ran": t.ran,
            "agree": t.agree,
            "differ": t.differ,
            "not_run": t.not_run,
            "seconds": seconds,
            "shaders_per_second": t.shaders as f64 / seconds.max(1e-9),
            "classes": self.classes(),
            "run": extra,
            "entries": self.entries,
        })
    }
}
