//! `dxbc reflect`: the reflection of a translation, as JSON (everything) or as a table with
//! each descriptor's D3D origin beside its Vulkan placement (`--table`), the view a person
//! checking a binding layout wants; for one input or whole trees (`batch`, outputs `.json` or
//! `.txt`).

use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use translator::reflect::{Descriptor, DescriptorType, Reflection};

use crate::batch::{self, Failure, OutputArgs, Produced, Spec, Usage};
use crate::cli_error::CliError;
use crate::input::{InputArgs, InputsArgs};
use crate::translate::{TranslateOptions, checksum_warning};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputsArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub opts: TranslateOptions,
    /// Print descriptors and push constants as a table (D3D origin | Vulkan placement)
    /// instead of the JSON reflection.
    #[arg(long)]
    pub table: bool,
    /// Write a JSON report of every input to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

pub fn run(args: &Args) -> Result<ExitCode, Usage> {
    let opts = match args.opts.options() {
        Ok(opts) => opts,
        Err(e) => return Ok(batch::fatal(e)),
    };
    let spec = Spec {
        command: "reflect",
        verb: "reflected",
        extension: if args.table { "txt" } else { "json" },
        report: args.report.as_deref(),
    };
    batch::run(&args.input, &args.out, &spec, &|input, data| {
        reflect(args.table, &opts, input, data)
    })
}

fn reflect(
    as_table: bool,
    opts: &translator::Options,
    input: &InputArgs,
    data: &[u8],
) -> Result<Produced, Failure> {
    let warnings = checksum_warning(input, data).map_err(|e| Failure::new("checksum", e))?;
    let t =
        translator::translate(data, opts).map_err(|e| Failure::translator(&input.name(), &e))?;
    let stdout = if as_table {
        table(&t.reflection)
    } else {
        let mut s = serde_json::to_string_pretty(&t.reflection)
            .map_err(|e| Failure::new("internal", CliError(e.to_string())))?;
        s.push('\n');
        s
    };
    Ok(Produced {
        bytes: stdout.into_bytes(),
        warnings,
    })
}

fn type_name(t: DescriptorType) -> &'static str {
    match t {
        DescriptorType::Sampler => "sampler",
        DescriptorType::SampledImage => "sampled image",
        DescriptorType::CombinedImageSampler => "combined image sampler",
        DescriptorType::StorageImage => "storage image",
        DescriptorType::UniformTexelBuffer => "uniform texel buffer",
        DescriptorType::StorageTexelBuffer => "storage texel buffer",
        DescriptorType::UniformBuffer => "uniform buffer",
        DescriptorType::StorageBuffer => "storage buffer",
    }
}

/// `t10..t17`, `t10..` or `t5`, with ` (counter)` for UAV counters.
fn origin(d: &Descriptor) -> String {
    let o = &d.origin;
    let c = o.class.letter();
    let mut s = match o.upper {
        Some(u) if u == o.lower => format!("{c}{}", o.lower),
        Some(u) => format!("{c}{}..{c}{u}", o.lower),
        None => format!("{c}{}..", o.lower),
    };
    if o.uav_counter {
        s.push_str(" (counter)");
    }
    s
}

/// `set 0 binding 3`, with the array elements the range occupies when it is an array (`push@16
/// + 2-5` when a push-constant word offsets them) and `(mutable)` for a mutable binding.
fn placement(d: &Descriptor) -> String {
    let dynamic = d
        .dynamic_offset
        .map_or(String::new(), |o| format!("push@{o} + "));
    let elems = match (d.count, d.origin.upper) {
        (Some(1), _) => String::new(),
        (_, Some(u)) => {
            let last = d.array_offset as u64 + (u as u64 - d.origin.lower as u64);
            format!(", elements {dynamic}{}-{last}", d.array_offset)
        }
        (_, None) => format!(", elements {dynamic}{}-", d.array_offset),
    };
    let mutable = if d.mutable { " (mutable)" } else { "" };
    format!("set {} binding {}{elems}{mutable}", d.set, d.binding)
}

/// The descriptors and push constants as aligned columns.
pub fn table(r: &Reflection) -> String {
    let mut rows: Vec<[String; 5]> = vec![[
        "D3D".into(),
        "space".into(),
        "Vulkan".into(),
        "type".into(),
        "array length".into(),
    ]];
    for d in &r.descriptors {
        rows.push([
            origin(d),
            d.origin.space.to_string(),
            placement(d),
            type_name(d.descriptor_type).into(),
            d.count.map_or("runtime".into(), |n| n.to_string()),
        ]);
    }
    for p in &r.push_constants {
        rows.push([
            format!("b{}", p.register),
            p.space.to_string(),
            format!(
                "push constants, bytes {}..{}",
                p.offset,
                p.offset as u64 + p.size as u64
            ),
            "push constant".into(),
            String::new(),
        ]);
    }
    for w in &r.dynamic_offsets {
        rows.push([
            "offset".into(),
            String::new(),
            format!("push constants, bytes {w}..{}", *w as u64 + 4),
            "push constant".into(),
            String::new(),
        ]);
    }
    let mut width = [0usize; 5];
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(width).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<w$}  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if r.descriptors.is_empty() && r.push_constants.is_empty() {
        out.push_str("(no descriptors or push constants)\n");
    }
    out
}
