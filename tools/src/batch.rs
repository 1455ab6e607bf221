//! Running `translate`, `disasm`, `info` or `reflect` over one input or a whole tree.
//!
//! One input without `--out-dir` is the plain case: its result goes to `-o FILE` or standard
//! output and an error is one `dxbc: error:` line. With `--out-dir` the inputs (files and
//! directories, see `walk`) are recognised by content (`input::sniff`), planned (each shader's
//! output mirrors its place in the input tree; two shaders that would write the same output are
//! a failure of the second, never a silent overwrite; an existing output is kept unless
//! `--force`, or with `--update` replaced only when older than its input), then processed in
//! parallel on a rayon pool. Results are reported in input order, whatever the thread count or
//! finishing order: a bad file's one error line, warnings, then a summary `N <verb>, M failed,
//! K skipped`, and `--json`/`--report FILE` writes a record per file (`report`). A progress bar
//! (indicatif) is drawn only when standard error is a terminal; it counts every file found,
//! those settled while planning included.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::cli_error::{CliError, one_line};
use crate::input::{
    Format, InputArgs, InputsArgs, assembly_hint, not_supported, read_recognised, skip_reason,
    sniff,
};
pub use crate::report::Failure;
use crate::report::{Record, Summary, write_report};
use crate::walk::{Found, collect};

/// Where the outputs go and how the run is done; flattened into each batch command's arguments.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Output file (one input only); `-` or no `-o` writes to standard output.
    #[arg(short, long, value_name = "OUT", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Directory for the outputs, mirroring the inputs: a file found under a directory input
    /// keeps its path inside it, a file named alone keeps its name; the extension changes.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Overwrite outputs that already exist under --out-dir (they are failures otherwise).
    #[arg(long, requires = "out_dir")]
    pub force: bool,
    /// Under --out-dir, process only inputs whose output is missing or older than the input
    /// (by modification time); the others are skipped as up to date.
    #[arg(long, requires = "out_dir", conflicts_with = "force")]
    pub update: bool,
    /// Worker threads (default: one per core); outputs never depend on it.
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

/// What a command is, for messages, output names and the report.
pub struct Spec<'a> {
    /// The subcommand's name (`translate`).
    pub command: &'static str,
    /// What the summary calls a success (`translated`).
    pub verb: &'static str,
    /// Extension of the outputs under `--out-dir`, without the dot.
    pub extension: &'static str,
    /// Where to write the per-file JSON report (`-`: standard output).
    pub report: Option<&'a Path>,
}

/// What a command made of one input.
pub struct Produced {
    pub bytes: Vec<u8>,
    pub warnings: Vec<String>,
}

/// The work a command does on one input already read into memory.
pub type Work<'a> = dyn Fn(&InputArgs, &[u8]) -> Result<Produced, Failure> + Sync + 'a;

/// A usage error found after parsing (exit status 2, as clap's own).
#[derive(Debug)]
pub struct Usage(pub String);

/// The reason an input whose output is newer than it is skipped under `--update`.
const UP_TO_DATE: &str = "up to date";

/// Runs a command over its inputs; see the module documentation.
pub fn run(
    inputs: &InputsArgs,
    out: &OutputArgs,
    spec: &Spec<'_>,
    work: &Work<'_>,
) -> Result<ExitCode, Usage> {
    let Some(out_dir) = &out.out_dir else {
        if inputs.files.len() > 1 || inputs.files[0].is_dir() {
            return Err(Usage(
                "several inputs or a directory need --out-dir DIR".into(),
            ));
        }
        return Ok(run_single(inputs, out.output.as_deref(), spec, work));
    };
    if inputs.files.iter().any(|f| f.as_os_str() == "-") {
        return Err(Usage(
            "standard input (`-`) cannot be read in a run with --out-dir".into(),
        ));
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = out.jobs {
        pool = pool.num_threads(n.into());
    }
    let pool = match pool.build() {
        Ok(pool) => pool,
        Err(e) => return Ok(fatal(CliError(format!("starting threads: {e}")))),
    };
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        return Ok(fatal(CliError::input(&out_dir.display().to_string(), e)));
    }
    let found = collect(&inputs.files);
    let outputs: Vec<PathBuf> = found
        .iter()
        .map(|f| match f {
            Found::File { rel, .. } => out_dir.join(rel).with_extension(spec.extension),
            Found::Broken { .. } => PathBuf::new(), // never written
        })
        .collect();
    let (mut records, jobs) = plan(&found, &outputs, spec.command, &pool);

    let (total, settled) = progress(&records);
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    bar.set_position(settled);
    let opts = Process {
        strict: inputs.strict,
        force: out.force,
        update: out.update,
        command: spec.command,
    };
    let (tx, rx) = mpsc::channel::<(usize, Record)>();
    let mut printed = 0;
    std::thread::scope(|scope| {
        let (jobs, pool) = (&jobs, &pool);
        scope.spawn(move || {
            pool.install(|| {
                jobs.par_iter()
                    .for_each_with(tx, |tx, (index, path, output)| {
                        let record = process(path, output, &opts, work);
                        let _ = tx.send((*index, record));
                    });
            });
        });
        print_ready(&records, &mut printed, &bar);
        for (index, record) in rx {
            bar.inc(1);
            bar.set_message(record.path.clone());
            records[index] = Some(record);
            print_ready(&records, &mut printed, &bar);
        }
    });
    bar.finish_and_clear();

    let records: Vec<Record> = records.into_iter().flatten().collect();
    let summary = Summary::of(&records);
    eprintln!("{}", summary.line(spec.verb, &records));
    let mut status = if summary.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if let Some(path) = spec.report
        && let Err(e) = write_report(path, spec.command, &summary, &records)
    {
        status = fatal(e);
    }
    Ok(status)
}

/// A planned input: its index in the run, its path and its output.
type Job<'a> = (usize, &'a Path, &'a Path);

/// The progress bar's total and starting position: every file found, and those the plan
/// settled already (unreadable entries, files passed over or losing a contested output).
fn progress(records: &[Option<Record>]) -> (u64, u64) {
    let settled = records.iter().filter(|r| r.is_some()).count();
    (records.len() as u64, settled as u64)
}

/// What each found file becomes, in input order: a record already (an unreadable entry, or a
/// file that loses a contested output), or a job. Where several files would write one output,
/// they are looked at now, so that only shaders contend for it and the first wins (a source
/// `x.hlsl` beside `x.dxbc` is no collision); every other file is looked at by the worker that
/// reads it.
fn plan<'a>(
    found: &'a [Found],
    outputs: &'a [PathBuf],
    command: &str,
    pool: &rayon::ThreadPool,
) -> (Vec<Option<Record>>, Vec<Job<'a>>) {
    let mut sharing: HashMap<&Path, usize> = HashMap::new();
    for (f, output) in found.iter().zip(outputs) {
        if let Found::File { .. } = f {
            *sharing.entry(output).or_default() += 1;
        }
    }
    let contested: Vec<usize> = (0..found.len())
        .filter(|&i| sharing.get(outputs[i].as_path()).is_some_and(|&n| n > 1))
        .collect();
    let formats: HashMap<usize, std::io::Result<(Format, Vec<u8>)>> = pool.install(|| {
        contested
            .par_iter()
            .map(|&i| match &found[i] {
                Found::File { path, .. } => (i, read_recognised(path, command)),
                Found::Broken { .. } => (i, Ok((Format::Other, Vec::new()))),
            })
            .collect()
    });

    let mut records: Vec<Option<Record>> = Vec::with_capacity(found.len());
    let mut jobs: Vec<Job<'a>> = Vec::new();
    let mut owner: HashMap<&Path, &Path> = HashMap::new();
    for (index, (f, output)) in found.iter().zip(outputs).enumerate() {
        let path = match f {
            Found::File { path, .. } => path.as_path(),
            Found::Broken { path, message } => {
                let f = Failure::new("read", CliError(message.clone()));
                records.push(Some(Record::new(path, None).failed(f)));
                continue;
            }
        };
        let output = output.as_path();
        if let Some(format) = formats.get(&index) {
            let record = Record::new(path, None);
            match format {
                Err(e) => {
                    let name = path.display().to_string();
                    let f = Failure::new("read", CliError::input(&name, e));
                    records.push(Some(record.failed(f)));
                    continue;
                }
                Ok((format, head)) => {
                    if let Some(reason) = skip_reason(*format, head, command) {
                        records.push(Some(record.skipped(reason)));
                        continue;
                    }
                }
            }
            if let Some(first) = owner.get(output) {
                let what = format!(
                    "its output {} is that of {} already",
                    output.display(),
                    first.display()
                );
                let f = Failure::new(
                    "collision",
                    CliError::input(&path.display().to_string(), what),
                );
                let record = Record::new(path, Some(output.display().to_string()));
                records.push(Some(record.failed(f)));
                continue;
            }
            owner.insert(output, path);
        }
        records.push(None);
        jobs.push((index, path, output));
    }

    (records, jobs)
}

/// Prints the records that are done and not preceded by one still running.
fn print_ready(records: &[Option<Record>], printed: &mut usize, bar: &ProgressBar) {
    while let Some(Some(record)) = records.get(*printed) {
        bar.suspend(|| record.print());
        *printed += 1;
    }
}

/// How a batch run treats each input.
struct Process<'a> {
    strict: bool,
    force: bool,
    update: bool,
    command: &'a str,
}

/// Whether `output` exists and is at least as new as `input` (`--update` then passes over it).
/// A time that cannot be read counts as out of date: the input is processed.
fn up_to_date(input: &Path, output: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified());
    match (modified(input), modified(output)) {
        (Ok(i), Ok(o)) => o >= i,
        _ => false,
    }
}

/// Reads, recognises, processes and writes one planned input.
fn process(path: &Path, output: &Path, how: &Process<'_>, work: &Work<'_>) -> Record {
    let start = Instant::now();
    let name = path.display().to_string();
    let out_name = output.display().to_string();
    let result = (|| {
        let (format, data) = read_recognised(path, how.command)
            .map_err(|e| Failure::new("read", CliError::input(&name, e)))?;
        if let Some(reason) = skip_reason(format, &data, how.command) {
            return Ok(Err(reason));
        }
        if how.update && up_to_date(path, output) {
            return Ok(Err(UP_TO_DATE));
        }
        if !how.force && !how.update && output.exists() {
            return Err(Failure::new(
                "exists",
                CliError::input(
                    &name,
                    format!("{out_name} exists (--force overwrites it, --update if older)"),
                ),
            ));
        }
        let input = InputArgs {
            file: path.to_path_buf(),
            strict: how.strict,
        };
        let produced = work(&input, &data)?;
        let write = |e| Failure::new("write", CliError::input(&out_name, e));
        if let Some(parent) = output.parent() {
            std::fs::create_dir_all(parent).map_err(write)?;
        }
        let replace = how.force || how.update;
        OpenOptions::new()
            .write(true)
            .truncate(true)
            .create(replace)
            .create_new(!replace)
            .open(output)
            .and_then(|mut f| f.write_all(&produced.bytes))
            .map_err(write)?;
        Ok(Ok(produced))
    })();
    let mut record = match &result {
        Ok(Err(_)) => Record::new(path, None),
        _ => Record::new(path, Some(out_name)),
    };
    record.time_ms = start.elapsed().as_secs_f64() * 1e3;
    match result {
        Ok(Ok(produced)) => {
            record.output_size = Some(produced.bytes.len() as u64);
            record.warnings = produced.warnings;
            record
        }
        Ok(Err(reason)) => record.skipped(reason),
        Err(f) => record.failed(f),
    }
}

/// One input, no `--out-dir`: the result to `-o FILE` or standard output.
fn run_single(
    inputs: &InputsArgs,
    output: Option<&Path>,
    spec: &Spec<'_>,
    work: &Work<'_>,
) -> ExitCode {
    let start = Instant::now();
    let input = InputArgs {
        file: inputs.files[0].clone(),
        strict: inputs.strict,
    };
    let name = input.name();
    let output = output.filter(|o| o.as_os_str() != "-");
    let mut record = Record::new(
        Path::new(&name),
        Some(output.map_or("-".into(), |o| o.display().to_string())),
    );
    let result = input
        .read()
        .map_err(|e| Failure::new("read", e))
        .and_then(|data| {
            if let Some(hint) = assembly_hint(&name, &data) {
                return Err(Failure::new("assembly", hint));
            }
            match not_supported(sniff(&data), spec.command) {
                Some(reason) => Err(Failure::new(
                    "not-supported",
                    CliError::input(&name, reason),
                )),
                None => work(&input, &data),
            }
        })
        .and_then(|produced| {
            let written = match output {
                Some(path) => std::fs::write(path, &produced.bytes)
                    .map_err(|e| CliError::input(&path.display().to_string(), e)),
                None => write_stdout(&produced.bytes),
            };
            written.map_err(|e| Failure::new("write", e))?;
            Ok(produced)
        });
    record.time_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut status = ExitCode::SUCCESS;
    let mut summary = Summary::default();
    match result {
        Ok(produced) => {
            summary.ok = 1;
            record.output_size = Some(produced.bytes.len() as u64);
            record.warnings = produced.warnings;
        }
        Err(f) => {
            summary.failed = 1;
            record = record.failed(f);
            status = ExitCode::from(1);
        }
    }
    record.print();
    if let Some(path) = spec.report
        && let Err(e) = write_report(path, spec.command, &summary, std::slice::from_ref(&record))
    {
        status = fatal(e);
    }
    status
}

/// Whether a binary output would go to a terminal: no `-o` (or `-o -`) and standard output is
/// one (`stdout_is_terminal`: `std::io::stdout().is_terminal()`). Such output would garble the
/// screen and is refused, pointing to `-o FILE` (and to a text form where there is one).
pub fn binary_to_terminal(output: Option<&Path>, stdout_is_terminal: bool) -> bool {
    stdout_is_terminal && output.is_none_or(|o| o.as_os_str() == "-")
}

/// Writes to standard output; a closed pipe (`dxbc disasm x | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError(format!("writing output: {e}")))
        }
        _ => Ok(()),
    }
}

/// Reports an error that stops the whole run.
pub fn fatal(e: CliError) -> ExitCode {
    eprintln!("dxbc: error: {}", one_line(&e.0));
    ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_goes_to_a_terminal_only_without_a_file() {
        let file = Path::new("out.spv");
        let dash = Path::new("-");
        assert!(binary_to_terminal(None, true));
        assert!(binary_to_terminal(Some(dash), true));
        assert!(!binary_to_terminal(Some(file), true));
        assert!(!binary_to_terminal(None, false));
        assert!(!binary_to_terminal(Some(dash), false));
    }

    #[test]
    fn progress_counts_every_file_found() {
        let dir = std::env::temp_dir().join(format!("dxbc-plan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("in/sub")).unwrap();
        let shader = translator::asm::assemble(
            "ps_5_0\n.output SV_Target 0 o0.xyzw float\ndcl_output o0.xyzw\nmov o0, l(1.0, 1.0, 1.0, 1.0)\nret\n",
        )
        .unwrap();
        // x.dxbc and x.hlsl contest x.spv (the plan looks at both and skips the source);
        // the others are looked at by the workers.
        for (name, bytes) in [
            ("x.dxbc", &shader[..]),
            ("x.hlsl", b"float4 main() : SV_Target { return 1; }"),
            ("notes.txt", b"notes"),
            ("sub/y.dxbc", &shader[..]),
            ("sub/z.asm", b"ps_5_0\nret\n"),
        ] {
            std::fs::write(dir.join("in").join(name), bytes).unwrap();
        }
        let found = collect(&[dir.join("in")]);
        assert_eq!(found.len(), 5);
        let outputs: Vec<PathBuf> = found
            .iter()
            .map(|f| match f {
                Found::File { rel, .. } => dir.join("out").join(rel).with_extension("spv"),
                Found::Broken { message, .. } => panic!("{message}"),
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (records, jobs) = plan(&found, &outputs, "translate", &pool);
        let (total, settled) = progress(&records);
        assert_eq!(total, 5, "the bar counts every file walked");
        assert_eq!(settled, 1, "x.hlsl is settled by the plan");
        assert_eq!(settled + jobs.len() as u64, total);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn up_to_date_compares_modification_times() {
        let dir = std::env::temp_dir().join(format!("dxbc-mtime-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (input, output) = (dir.join("in"), dir.join("out"));
        std::fs::write(&input, b"x").unwrap();
        assert!(
            !up_to_date(&input, &output),
            "a missing output is not up to date"
        );
        std::fs::write(&output, b"y").unwrap();
        let now = std::time::SystemTime::now();
        let set = |p: &Path, t| {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(t)
                .unwrap()
        };
        let hour = std::time::Duration::from_secs(3600);
        set(&input, now - hour);
        set(&output, now);
        assert!(up_to_date(&input, &output));
        set(&input, now);
        assert!(up_to_date(&input, &output), "equal times: up to date");
        set(&output, now - hour);
        assert!(!up_to_date(&input, &output));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
