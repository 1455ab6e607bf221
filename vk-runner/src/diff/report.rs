//! The differential report: one verdict per shader (`agree`, `differ` with the first
//! differing output, or `not run` with the reason; with the outputs left uncompared because
//! they depend on the order threads run in), coverage per class (bytecode and stage), speed,
//! the count of outputs not compared, and the closing line
//! `diff: N shaders, R ran, A agree, D differ, S not run`; optionally the same as JSON.

use super::compare::{Difference, Excluded};
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
    /// Outputs not compared because their values depend on the order threads run in
    /// (`u0`, `SV_TARGET0.x`), each with why.
    pub not_compared: Vec<Excluded>,
}

impl Entry {
    /// "; 2 outputs order-dependent, not compared: u0 (why), u1 (why)", or nothing.
    fn not_compared_text(&self) -> String {
        let n = self.not_compared.len();
        if n == 0 {
            return String::new();
        }
        let list: Vec<String> = self
            .not_compared
            .iter()
            .map(|x| match x.elements {
                Some(n) => format!("{} ({n} elements: {})", x.output, x.why),
                None => format!("{} ({})", x.output, x.why),
            })
            .collect();
        format!(
            "; {n} output{} order-dependent, not compared: {}",
            if n == 1 { "" } else { "s" },
            list.join(", ")
        )
    }
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
    /// Outputs not compared (order-dependent), and the shaders that have any.
    pub not_compared: usize,
    pub order_dependent: usize,
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
                    Some(format!(
                        "{}: agree ({values} values{})",
                        e.path,
                        e.not_compared_text()
                    ))
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
                Some(format!(
                    "{}: differ: {what}{repro}{}",
                    e.path,
                    e.not_compared_text()
                ))
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
            if !matches!(e.verdict, Verdict::NotRun { .. }) {
                c.not_compared += e.not_compared.len();
                c.order_dependent += usize::from(!e.not_compared.is_empty());
            }
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
            t.not_compared += c.not_compared;
            t.order_dependent += c.order_dependent;
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
            "diff: {} outputs of {} shaders order-dependent, not compared",
            t.not_compared, t.order_dependent
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
            "not_compared_outputs": t.not_compared,
            "order_dependent_shaders": t.order_dependent,
            "seconds": seconds,
            "shaders_per_second": t.shaders as f64 / seconds.max(1e-9),
            "classes": self.classes(),
            "run": extra,
            "entries": self.entries,
        })
    }
}
