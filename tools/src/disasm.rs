//! `dxbc disasm FILE`: fxc's comment header followed by the instruction listing.

use std::fmt::Write;

use translator::container::ParsedContainer;
use translator::container::header::{CommentFooter, CommentHeader};
use translator::sm4;

use crate::Output;
use crate::cli_error::CliError;
use crate::input::InputArgs;

/// Arguments of `dxbc disasm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Print only the instruction listing, without the comment header and footer.
    #[arg(long)]
    pub no_header: bool,
}

pub fn run(args: &Args) -> Result<Output, CliError> {
    let name = args.input.name();
    let data = args.input.read()?;
    if translator::d3dbc::is_d3dbc(&data) {
        return crate::d3d9::disasm(&name, &data);
    }
    let parsed = ParsedContainer::parse(&data)
        .map_err(|e| CliError::input(&name, format!("container: {e}")))?;
    let warning = args.input.check_checksum(&parsed.container)?;
    let program_chunk = parsed
        .program
        .ok_or_else(|| CliError::input(&name, "the container has no SHDR or SHEX program chunk"))?;
    let program = sm4::decode(program_chunk.data, program_chunk.offset).map_err(|e| {
        let hint = if warning.is_some() {
            " (the container checksum does not match either)"
        } else {
            ""
        };
        CliError::input(&name, format!("decode: {e}{hint}"))
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
    Ok(Output {
        stdout: text,
        warnings: warning.into_iter().collect(),
    })
}
