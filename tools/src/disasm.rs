//! `dxbc disasm`: fxc's comment header followed by the instruction listing, for one input or
//! whole trees (`batch`, outputs `.asm`).

use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use translator::container::header::{CommentFooter, CommentHeader};
use translator::sm4;

use crate::batch::{self, Failure, OutputArgs, Produced, Spec, Usage};
use crate::cli_error::CliError;
use crate::input::{InputArgs, InputsArgs, parse_checked};

/// Arguments of `dxbc disasm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputsArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Print only the instruction listing, without the comment header and footer.
    #[arg(long)]
    pub no_header: bool,
    /// Write a JSON report of every input to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

pub fn run(args: &Args) -> Result<ExitCode, Usage> {
    let spec = Spec {
        command: "disasm",
        verb: "disassembled",
        extension: "asm",
        report: args.report.as_deref(),
    };
    batch::run(&args.input, &args.out, &spec, &|input, data| {
        disassemble(args, input, data)
    })
}

fn disassemble(args: &Args, input: &InputArgs, data: &[u8]) -> Result<Produced, Failure> {
    let name = input.name();
    if translator::d3dbc::is_d3dbc(data) {
        return crate::d3d9::produced(crate::d3d9::disasm(&name, data));
    }
    let (parsed, warning) = parse_checked(input, data)?;
    let program_chunk = parsed.program.ok_or_else(|| {
        Failure::new(
            "container",
            CliError::input(&name, "the container has no SHDR or SHEX program chunk"),
        )
    })?;
    let program = sm4::decode(program_chunk.data, program_chunk.offset).map_err(|e| {
        let hint = if warning.is_some() {
            " (the container checksum does not match either)"
        } else {
            ""
        };
        Failure::new(
            "decode",
            CliError::input(&name, format!("decode: {e}{hint}")),
        )
    })?;
    let mut text = String::new();
    if !args.no_header {
        let _ = write!(text, "{}", CommentHeader(&parsed));
    }
    let _ = write!(text, "{program}");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if !args.no_header {
        let _ = write!(text, "{}", CommentFooter(&parsed));
    }
    Ok(Produced {
        bytes: text.into_bytes(),
        warnings: warning.into_iter().collect(),
    })
}
