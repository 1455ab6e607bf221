//! Reading the shader a subcommand works on, and the checksum policy.
//!
//! Every subcommand takes [`InputArgs`] (flattened into its own clap arguments): a path or `-`
//! for stdin, and `--strict`, which turns a checksum mismatch from a warning into an error.

use std::io::Read;
use std::path::PathBuf;

use translator::container::{Container, format_checksum};

use crate::cli_error::CliError;

/// Inputs larger than this are refused rather than read into memory.
const MAX_INPUT: u64 = 256 << 20;

/// The input shader and how strictly to check it.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// DXBC file to read; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Treat a checksum mismatch as an error instead of a warning.
    #[arg(long)]
    pub strict: bool,
}

impl InputArgs {
    /// The name to use in messages.
    pub fn name(&self) -> String {
        if self.is_stdin() {
            "<stdin>".to_string()
        } else {
            self.file.display().to_string()
        }
    }

    fn is_stdin(&self) -> bool {
        self.file.as_os_str() == "-"
    }

    /// Reads the whole input.
    pub fn read(&self) -> Result<Vec<u8>, CliError> {
        let mut data = Vec::new();
        let result = if self.is_stdin() {
            std::io::stdin()
                .lock()
                .take(MAX_INPUT + 1)
                .read_to_end(&mut data)
        } else {
            std::fs::File::open(&self.file)
                .and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut data))
        };
        result.map_err(|e| CliError::input(&self.name(), e))?;
        if data.len() as u64 > MAX_INPUT {
            return Err(CliError::input(
                &self.name(),
                format!("input is larger than {} MiB", MAX_INPUT >> 20),
            ));
        }
        Ok(data)
    }

    /// Applies the checksum policy: `Err` under `--strict`, otherwise a warning to print.
    pub fn check_checksum(&self, container: &Container<'_>) -> Result<Option<String>, CliError> {
        let computed = container.computed_checksum();
        if computed == container.checksum {
            return Ok(None);
        }
        let message = format!(
            "checksum mismatch: header has {}, contents hash to {}",
            format_checksum(&container.checksum),
            format_checksum(&computed)
        );
        if self.strict {
            Err(CliError::input(&self.name(), message))
        } else {
            Ok(Some(format!("{}: {message}", self.name())))
        }
    }
}
