//! `dxbc asm FILE -o OUT`: assembles disassembly-syntax text into a DXBC container.
//!
//! The input is what `dxbc disasm` prints (comment header included: its signature tables
//! become the signature chunks) or hand-written text with `.input`/`.output` directives; see
//! `docs/assembler.md`. Errors are reported as `FILE:LINE:COLUMN: message`.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use translator::asm;

use crate::Output;
use crate::cli_error::CliError;

/// Inputs larger than this are refused rather than read into memory.
const MAX_INPUT: u64 = 64 << 20;

/// Arguments of `dxbc asm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Assembly text to read; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write the DXBC container; `-` writes it to standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Write only the SHDR/SHEX chunk data (the program tokens), not a container.
    #[arg(long)]
    pub program_only: bool,
}

fn name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

fn read(args: &Args) -> Result<String, CliError> {
    let mut data = Vec::new();
    let result = if args.file.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_INPUT + 1)
            .read_to_end(&mut data)
    } else {
        std::fs::File::open(&args.file).and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut data))
    };
    let name = name(&args.file);
    result.map_err(|e| CliError::input(&name, e))?;
    if data.len() as u64 > MAX_INPUT {
        return Err(CliError::input(
            &name,
            format!("input is larger than {} MiB", MAX_INPUT >> 20),
        ));
    }
    String::from_utf8(data).map_err(|e| {
        CliError::input(
            &name,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

pub fn run(args: &Args) -> Result<Output, CliError> {
    if crate::batch::binary_to_terminal(Some(&args.output), std::io::stdout().is_terminal()) {
        return Err(CliError(
            "refusing to write a binary shader to a terminal: write it to a file with -o FILE"
                .into(),
        ));
    }
    let text = read(args)?;
    let name = name(&args.file);
    let located =
        |e: asm::AsmError| CliError(format!("{name}:{}:{}: {}", e.line, e.column, e.message));
    let bytes = if translator::d3dbc::asm::is_d3d9_text(&text) {
        crate::d3d9::assemble(&name, &text)?
    } else {
        let assembly = asm::parse(&text).map_err(located)?;
        if args.program_only {
            assembly.chunk.clone()
        } else {
            assembly.to_container().map_err(located)?
        }
    };
    if args.output.as_os_str() == "-" {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout.write_all(&bytes).and_then(|()| stdout.flush())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            return Err(CliError(format!("writing output: {e}")));
        }
    } else {
        std::fs::write(&args.output, &bytes)
            .map_err(|e| CliError::input(&args.output.display().to_string(), e))?;
    }
    Ok(Output {
        stdout: String::new(),
        warnings: Vec::new(),
    })
}
