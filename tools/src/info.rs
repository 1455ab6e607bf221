//! `dxbc info FILE [--json]`: what a container holds, without decoding the program; for one
//! input or whole trees (`batch`, outputs `.txt` or `.json`).
//!
//! Text output is a summary (size, version, checksum, stage and model, creator), the chunk
//! table, feature flags, then fxc's comment-header tables (buffers, bindings, signatures), then
//! statistics. `--json` prints the same facts as one JSON object (see `docs/formats.md`).

use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};
use translator::container::header::CommentHeader;
use translator::container::{ParsedContainer, chunk_description, format_checksum};

use crate::batch::{self, Failure, OutputArgs, Produced, Spec, Usage};
use crate::cli_error::CliError;
use crate::input::{InputArgs, InputsArgs, parse_checked};

/// Arguments of `dxbc info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputsArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write a JSON report of every input to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

pub fn run(args: &Args) -> Result<ExitCode, Usage> {
    let spec = Spec {
        command: "info",
        verb: "described",
        extension: if args.json { "json" } else { "txt" },
        report: args.report.as_deref(),
    };
    batch::run(&args.input, &args.out, &spec, &|input, data| {
        describe(args.json, input, data)
    })
}

fn describe(json: bool, input: &InputArgs, data: &[u8]) -> Result<Produced, Failure> {
    let name = input.name();
    if translator::d3dbc::is_d3dbc(data) {
        return crate::d3d9::produced(crate::d3d9::info(&name, data, json));
    }
    let (parsed, warning) = parse_checked(input, data)?;
    let stdout = if json {
        json_text(&name, &parsed).map_err(|e| Failure::new("internal", e))?
    } else {
        text(&name, &parsed)
    };
    Ok(Produced {
        bytes: stdout.into_bytes(),
        warnings: warning.into_iter().collect(),
    })
}

fn text(name: &str, p: &ParsedContainer<'_>) -> String {
    let c = &p.container;
    let mut out = String::new();
    let _ = writeln!(out, "file:      {name}");
    let _ = writeln!(out, "size:      {} bytes", c.data.len());
    let _ = writeln!(
        out,
        "container: version {}.{}, {} chunks",
        c.version.0,
        c.version.1,
        c.chunks.len()
    );
    let status = if p.checksum_matches() {
        "valid".to_string()
    } else {
        format!(
            "MISMATCH, contents hash to {}",
            format_checksum(&p.computed_checksum())
        )
    };
    let _ = writeln!(
        out,
        "checksum:  {} ({status})",
        format_checksum(&c.checksum)
    );
    match (p.version, p.program) {
        (Some(v), Some(chunk)) => {
            let _ = writeln!(
                out,
                "shader:    {v} ({}, {} bytes)",
                chunk.tag_str(),
                chunk.data.len()
            );
        }
        _ => {
            let _ = writeln!(out, "shader:    none (no SHDR/SHEX chunk)");
        }
    }
    if let Some(rdef) = &p.resources {
        let _ = writeln!(out, "creator:   {}", rdef.creator);
        let _ = writeln!(out, "flags:     {:#x}", rdef.flags);
    }

    let _ = writeln!(out, "\nchunks:\n  tag   offset      size  contents");
    for chunk in &c.chunks {
        let _ = writeln!(
            out,
            "  {:<4}  {:#08x} {:>8}  {}",
            chunk.tag_str(),
            chunk.offset - 8,
            chunk.data.len(),
            chunk_description(&chunk.tag).unwrap_or("unknown")
        );
    }

    if let Some(features) = p.features {
        let _ = writeln!(out, "\nfeature flags: {:#x}", features.bits);
        for (id, text) in features.names() {
            let _ = writeln!(out, "  {id:<44} {text}");
        }
        if features.unknown_bits() != 0 {
            let _ = writeln!(out, "  unknown bits {:#x}", features.unknown_bits());
        }
    }

    let _ = writeln!(out);
    let _ = write!(out, "{}", CommentHeader(p));

    if let Some(stats) = &p.statistics {
        let _ = writeln!(out, "\nstatistics:");
        for (field, value) in stats.fields() {
            let _ = writeln!(out, "  {field:<30} {value}");
        }
    }
    out
}

fn json_text(name: &str, p: &ParsedContainer<'_>) -> Result<String, CliError> {
    let c = &p.container;
    let to_value = |v: Result<Value, serde_json::Error>| {
        v.map_err(|e| CliError::input(name, format!("json: {e}")))
    };
    let chunks: Vec<Value> = c
        .chunks
        .iter()
        .map(|chunk| {
            json!({
                "tag": chunk.tag_str(),
                "offset": chunk.offset - 8,
                "data_offset": chunk.offset,
                "size": chunk.data.len(),
                "contents": chunk_description(&chunk.tag),
            })
        })
        .collect();
    let shader = match (p.version, p.program) {
        (Some(v), Some(chunk)) => json!({
            "profile": v.to_string(),
            "stage": v.stage,
            "major": v.major,
            "minor": v.minor,
            "chunk": chunk.tag_str(),
        }),
        _ => Value::Null,
    };
    let features = p.features.map(|f| {
        json!({
            "bits": f.bits,
            "names": f.names().map(|(id, _)| id).collect::<Vec<_>>(),
            "unknown_bits": f.unknown_bits(),
        })
    });
    let statistics = p.statistics.as_ref().map(|s| {
        s.fields()
            .map(|(k, v)| (k.to_string(), Value::from(v)))
            .collect::<serde_json::Map<String, Value>>()
    });
    let value = json!({
        "file": name,
        "size": c.data.len(),
        "container_version": [c.version.0, c.version.1],
        "checksum": {
            "stored": format_checksum(&c.checksum),
            "computed": format_checksum(&p.computed_checksum()),
            "valid": p.checksum_matches(),
        },
        "shader": shader,
        "chunks": chunks,
        "input_signature": to_value(serde_json::to_value(&p.input_signature))?,
        "output_signature": to_value(serde_json::to_value(&p.output_signature))?,
        "patch_constant_signature": to_value(serde_json::to_value(&p.patch_constant_signature))?,
        "resources": to_value(serde_json::to_value(&p.resources))?,
        "interfaces": to_value(serde_json::to_value(&p.interfaces))?,
        "features": features,
        "statistics": statistics,
    });
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| CliError::input(name, format!("json: {e}")))?;
    text.push('\n');
    Ok(text)
}
