//! The error every subcommand returns: one message, printed as a single `dxbc: error:` line.

use std::fmt::Display;

/// A failure to report on stderr (exit status 1).
#[derive(Debug)]
pub struct CliError(pub String);

impl CliError {
    /// An error about the input file, prefixed by its name.
    pub fn input(name: &str, what: impl Display) -> Self {
        CliError(format!("{name}: {what}"))
    }
}

/// Collapses a message to one line, so stderr carries exactly one line per error.
pub fn one_line(message: &str) -> String {
    message
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn collapses_lines() {
        assert_eq!(super::one_line("a\nb\r\n c"), "a; b; c");
        assert_eq!(super::one_line("plain"), "plain");
    }
}
