//! `dxbc cfg FILE --dot`: the control-flow graph of the entry function before and after
//! structurizing, as two Graphviz digraphs (render with `dot -Tsvg`).

use crate::Output;
use crate::cli_error::CliError;
use crate::input::InputArgs;
use crate::translate::TranslateOptions;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Print Graphviz (the only format so far; accepted for clarity in scripts).
    #[arg(long)]
    pub dot: bool,
    /// Only the graph after structurizing.
    #[arg(long, conflicts_with = "before")]
    pub after: bool,
    /// Only the graph before structurizing.
    #[arg(long)]
    pub before: bool,
    #[command(flatten)]
    pub opts: TranslateOptions,
}

pub fn run(args: &Args) -> Result<Output, CliError> {
    let data = args.input.read()?;
    if let Some(hint) = crate::input::assembly_hint(&args.input.name(), &data) {
        return Err(hint);
    }
    let (before, after) = translator::debug::cfg_dot(&data, &args.opts.options()?)
        .map_err(|e| CliError::input(&args.input.name(), e))?;
    let stdout = match (args.before, args.after) {
        (true, _) => before,
        (_, true) => after,
        _ => before + &after,
    };
    Ok(Output {
        stdout,
        warnings: Vec::new(),
    })
}
