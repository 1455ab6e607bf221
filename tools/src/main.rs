//! `dxbc`: inspect, disassemble, assemble and translate Direct3D shaders (DXBC and Direct3D 9).
//!
//! One module per subcommand (`info`, `disasm`, ...), each with a clap `Args` struct and a
//! `run` function; `input` reads the shader (a file or `-` for stdin), recognises formats and
//! applies the checksum policy, `cli_error` is the one-line error type. `info`, `disasm`,
//! `translate` and `reflect` run through `batch` (one input, or whole trees with `--out-dir`;
//! `walk` expands directories, `report` says what happened to each file); the others return the
//! text to print. Exit status: 0 on success, 1 on bad input (one `dxbc: error: ...` line on
//! stderr per bad file), 2 on usage errors (clap's own status).

mod asm;
mod batch;
mod bench;
mod cfg;
mod cli_error;
mod d3d9;
mod disasm;
mod info;
mod input;
mod reflect;
mod report;
mod stream_output;
mod translate;
mod walk;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use cli_error::CliError;

/// Inspect, disassemble, assemble and translate Direct3D shaders to SPIR-V: DXBC containers
/// (SM4.0–5.1) and Direct3D 9 token streams (SM1–3).
#[derive(Debug, Parser)]
#[command(name = "dxbc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the container's chunks, stage and model, checksum, signatures, bindings, buffers,
    /// feature flags and statistics (of many inputs with --out-dir).
    Info(info::Args),
    /// Disassemble the program, with fxc's comment header (many inputs with --out-dir).
    Disasm(disasm::Args),
    /// Assemble disassembly-syntax text into a DXBC container.
    Asm(asm::Args),
    /// Translate to SPIR-V (binary, or text with --text): one input to -o or standard output,
    /// or files and directory trees to --out-dir.
    Translate(translate::Args),
    /// Print the reflection of the translation as JSON (descriptors, I/O, push constants), or
    /// with --table each descriptor's D3D origin beside its Vulkan placement (many inputs with
    /// --out-dir).
    Reflect(reflect::Args),
    /// Print the control-flow graph before and after structurizing (Graphviz).
    Cfg(cfg::Args),
    /// Time in-process translation of many files (same output form as vkd3d-bench).
    Bench(bench::Args),
}

/// What a subcommand produced: text for stdout and warnings for stderr.
pub struct Output {
    pub stdout: String,
    pub warnings: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => return batched("info", info::run(&args)),
        Command::Disasm(args) => return batched("disasm", disasm::run(&args)),
        Command::Translate(args) => return batched("translate", translate::run(&args)),
        Command::Reflect(args) => return batched("reflect", reflect::run(&args)),
        Command::Asm(args) => asm::run(&args),
        Command::Cfg(args) => cfg::run(&args),
        Command::Bench(args) => bench::run(&args),
    };
    match result {
        Ok(output) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`dxbc disasm x | head`) is not an error worth reporting.
            if let Err(e) = stdout
                .write_all(output.stdout.as_bytes())
                .and_then(|()| stdout.flush())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("dxbc: error: writing output: {e}");
                return ExitCode::from(1);
            }
            for w in &output.warnings {
                eprintln!("dxbc: warning: {w}");
            }
            ExitCode::SUCCESS
        }
        Err(CliError(message)) => {
            eprintln!("dxbc: error: {}", cli_error::one_line(&message));
            ExitCode::from(1)
        }
    }
}

/// The status of a batch command; a usage error it found is reported as clap reports its own.
fn batched(name: &str, result: Result<ExitCode, batch::Usage>) -> ExitCode {
    match result {
        Ok(status) => status,
        Err(batch::Usage(message)) => {
            let mut command = Cli::command();
            command.build();
            let kind = clap::error::ErrorKind::ArgumentConflict;
            match command.find_subcommand_mut(name) {
                Some(sub) => sub.error(kind, message).exit(),
                None => command.error(kind, message).exit(),
            }
        }
    }
}
