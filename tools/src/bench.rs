//! `dxbc bench`: in-process translation throughput, printed in the form of
//! `../shared/tools/vkd3d-bench` so that a script can put the two side by side.
//!
//! Like vkd3d-bench: one untimed warm-up pass, then timed passes over the in-memory files until
//! both the minimum pass count and the time budget are reached; `mean` is the elapsed time over
//! all translations (failed ones included).

use std::path::PathBuf;
use std::time::Instant;

use crate::Output;
use crate::cli_error::CliError;
use crate::translate::TranslateOptions;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds to run for (at least).
    #[arg(short = 't', default_value_t = 3.0)]
    pub seconds: f64,
    /// Minimum number of passes over all files.
    #[arg(short = 'n', default_value_t = 3)]
    pub min_passes: u64,
    /// Also print the mean time of each file.
    #[arg(short = 'v')]
    pub per_file: bool,
    /// Also print, per file, the mean time of each stage of its translations, timed in the
    /// run (with a clock read per stage, about 1% more time). Needs a `dxbc` built with the
    /// `stage-times` feature.
    #[arg(long)]
    pub stages: bool,
    /// DXBC files.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub opts: TranslateOptions,
}

pub fn run(args: &Args) -> Result<Output, CliError> {
    if args.stages && !translator::stage_times::AVAILABLE {
        return Err(CliError(
            "--stages needs a dxbc built with the stage-times feature \
             (cargo build --release -p dxbc-tools --features stage-times)"
                .into(),
        ));
    }
    let opts = args.opts.options()?;
    let mut files = Vec::with_capacity(args.files.len());
    for f in &args.files {
        let name = f.display().to_string();
        let data = std::fs::read(f).map_err(|e| CliError::input(&name, e))?;
        if let Some(hint) = crate::input::assembly_hint(&name, &data) {
            return Err(hint);
        }
        files.push(data);
    }
    // One translator for the whole run, as an embedder translating many shaders would keep.
    let mut translator = translator::Translator::new();
    let mut failed = 0;
    let mut out_bytes = 0;
    for data in &files {
        match translator.translate(data, &opts) {
            Ok(t) => out_bytes += t.spirv.len() * 4,
            Err(_) => failed += 1,
        }
    }
    let mut per_file = vec![0f64; files.len()];
    let mut stages = vec![[0f64; translator::stage_times::STAGES.len()]; files.len()];
    translator::stage_times::enable(args.stages);
    let mut passes = 0u64;
    let start = Instant::now();
    let mut elapsed = 0.0;
    while passes < args.min_passes || elapsed < args.seconds {
        for (i, data) in files.iter().enumerate() {
            let t0 = Instant::now();
            timed_translation(&mut translator, data, &opts);
            per_file[i] += t0.elapsed().as_secs_f64();
            if args.stages {
                let t = translator::stage_times::take();
                stages[i].iter_mut().zip(t).for_each(|(s, t)| *s += t);
            }
        }
        passes += 1;
        elapsed = start.elapsed().as_secs_f64();
    }
    let n = passes as f64 * files.len() as f64;
    let mut stdout = format!(
        "dxbc: files={} failed={failed} passes={passes} elapsed={elapsed:.3}s throughput={:.1} shaders/s mean={:.2} us/shader out_bytes={out_bytes}\n",
        files.len(),
        n / elapsed,
        elapsed * 1e6 / n
    );
    translator::stage_times::enable(false);
    if args.stages {
        stdout.push_str(&stage_table(&args.files, &stages, passes));
    }
    if args.per_file {
        for (f, t) in args.files.iter().zip(&per_file) {
            stdout.push_str(&format!(
                "  {:<48} {:9.2} us\n",
                f.display(),
                t / passes as f64 * 1e6
            ));
        }
    }
    Ok(Output {
        stdout,
        warnings: Vec::new(),
    })
}

/// One timed translation, its result dropped. A function of its own (never inlined) so that a
/// profiler can collect the timed passes alone, without the warm-up pass: `tools/footprint.sh`
/// starts and stops callgrind's collection at it.
#[inline(never)]
fn timed_translation(t: &mut translator::Translator, data: &[u8], opts: &translator::Options) {
    let _ = std::hint::black_box(t.translate(std::hint::black_box(data), opts));
}

/// One line per file: the mean microseconds of each stage of its timed translations (stages
/// none of the files ran left out).
fn stage_table(
    files: &[PathBuf],
    sums: &[[f64; translator::stage_times::STAGES.len()]],
    passes: u64,
) -> String {
    use translator::stage_times::STAGES;
    let ran: Vec<usize> = (0..STAGES.len())
        .filter(|&i| sums.iter().any(|s| s[i] > 0.0))
        .collect();
    let mut out = format!("stages (us per translation):\n  {:<48}", "file");
    for &i in &ran {
        out.push_str(&format!(" {:>12}", STAGES[i].name()));
    }
    out.push_str(&format!(" {:>12}\n", "sum"));
    for (f, s) in files.iter().zip(sums) {
        out.push_str(&format!("  {:<48}", f.display()));
        for &i in &ran {
            out.push_str(&format!(" {:>12.2}", s[i] / passes as f64 * 1e6));
        }
        out.push_str(&format!(
            " {:>12.2}\n",
            s.iter().sum::<f64>() / passes as f64 * 1e6
        ));
    }
    out
}
