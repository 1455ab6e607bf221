//! `dxbc`: inspect, disassemble and translate DXBC shaders.
//!
//! One module per subcommand (`info`, `disasm`, ...), each with a clap `Args` struct and a
//! `run` function returning the text to print; `input` reads the shader (a file or `-` for
//! stdin) and applies the checksum policy, `cli_error` is the one-line error type. Exit status:
//! 0 on success, 1 on bad input (one `dxbc: error: ...` line on stderr), 2 on usage errors
//! (clap's own status).

mod asm;
mod bench;
mod cfg;
mod cli_error;
mod d3d9;
mod disasm;
mod info;
mod input;
mod reflect;
mod translate;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cli_error::CliError;

/// Inspect and disassemble DXBC (Direct3D SM4.0–5.1) shader containers.
#[derive(Debug, Parser)]
#[command(name = "dxbc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the container's chunks, stage and model, checksum, signatures, bindings, buffers,
    /// feature flags and statistics.
    Info(info::Args),
    /// Disassemble the program, with fxc's comment header.
    Disasm(disasm::Args),
    /// Assemble disassembly-syntax text into a DXBC container.
    Asm(asm::Args),
    /// Translate to SPIR-V (binary, or text with --text).
    Translate(translate::Args),
    /// Print the reflection of the translation as JSON (descriptors, I/O, push constants), or
    /// with --table each descriptor's D3D origin beside its Vulkan placement.
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
        Command::Info(args) => info::run(&args),
        Command::Disasm(args) => disasm::run(&args),
        Command::Asm(args) => asm::run(&args),
        Command::Translate(args) => match translate::run(&args) {
            Ok((output, binary)) => {
                if !binary.is_empty() {
                    let mut stdout = std::io::stdout().lock();
                    if let Err(e) = stdout.write_all(&binary).and_then(|()| stdout.flush())
                        && e.kind() != std::io::ErrorKind::BrokenPipe
                    {
                        eprintln!("dxbc: error: writing output: {e}");
                        return ExitCode::from(1);
                    }
                }
                Ok(output)
            }
            Err(e) => Err(e),
        },
        Command::Reflect(args) => reflect::run(&args),
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
