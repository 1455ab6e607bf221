//! Running `translate`, `disasm`, `info` or `reflect` over one input or a whole tree.
//!
//! One input without `--out-dir` is the plain case: its result goes to `-o FILE` or standard
//! output and an error is one `dxbc: error:` line. With `--out-dir` the inputs (files and
//! directories, see `walk`) are recognised by content (`input::sniff`), planned (each shader's
//! output mirrors its place in the input tree; two shaders that would write the same output are
//! a failure of the second, never a silent overwrite; an existing output is kept unless
//! `--force`), then processed in parallel on a rayon pool. Results are reported in input order,
//! whatever the thread count or finishing order: a bad file's one error line, warnings, then a
//! summary `N <verb>, M failed, K skipped`, and `--json`/`--report FILE` writes a record per file
//! (`report`). A progress bar (indicatif) is drawn only when standard error is a terminal.

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
use crate::input::{Format, InputArgs, InputsArgs, not_supported, read_recognised, sniff};
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

/// The reason a file that is not a shader is skipped.
const NOT_A_SHADER: &str = "not a shader";

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

    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(jobs.len() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    let (tx, rx) = mpsc::channel::<(usize, Record)>();
    let mut printed = 0;
    std::thread::scope(|scope| {
        let (jobs, pool) = (&jobs, &pool);
        scope.spawn(move || {
            pool.install(|| {
                jobs.par_iter()
                    .for_each_with(tx, |tx, (index, path, output)| {
                        let record =
                            process(path, output, inputs.strict, out.force, spec.command, work);
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
    let formats: HashMap<usize, std::io::Result<Format>> = pool.install(|| {
        contested
            .par_iter()
            .map(|&i| match &found[i] {
                Found::File { path, .. } => (i, read_head(path)),
                Found::Broken { .. } => (i, Ok(Format::Other)),
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
                Ok(Format::Other) => {
                    records.push(Some(record.skipped(NOT_A_SHADER)));
                    continue;
                }
                Ok(format) => {
                    if let Some(reason) = not_supported(*format, command) {
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

/// The format of a file found by a walk, from its first bytes.
fn read_head(path: &Path) -> std::io::Result<Format> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4);
    std::fs::File::open(path)?.take(4).read_to_end(&mut head)?;
    Ok(sniff(&head))
}

/// Reads, recognises, processes and writes one planned input.
fn process(
    path: &Path,
    output: &Path,
    strict: bool,
    force: bool,
    command: &str,
    work: &Work<'_>,
) -> Record {
    let start = Instant::now();
    let name = path.display().to_string();
    let out_name = output.display().to_string();
    let result = (|| {
        let (format, data) = read_recognised(path, command)
            .map_err(|e| Failure::new("read", CliError::input(&name, e)))?;
        if format == Format::Other {
            return Ok(Err(NOT_A_SHADER));
        }
        if let Some(reason) = not_supported(format, command) {
            return Ok(Err(reason));
        }
        if !force && output.exists() {
            return Err(Failure::new(
                "exists",
                CliError::input(&name, format!("{out_name} exists (--force overwrites it)")),
            ));
        }
        let input = InputArgs {
            file: path.to_path_buf(),
            strict,
        };
        let produced = work(&input, &data)?;
        let write = |e| Failure::new("write", CliError::input(&out_name, e));
        if let Some(parent) = output.parent() {
            std::fs::create_dir_all(parent).map_err(write)?;
        }
        OpenOptions::new()
            .write(true)
            .truncate(true)
            .create(force)
            .create_new(!force)
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
        .and_then(|data| match not_supported(sniff(&data), spec.command) {
            Some(reason) => Err(Failure::new(
                "not-supported",
                CliError::input(&name, reason),
            )),
            None => work(&input, &data),
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
