//! vk-bench: GPU time of the SPIR-V our translator makes against vkd3d-shader's, per compute and
//! pixel shader and in total (see docs/vk-runner.md, "Benchmark mode").

use clap::Parser;
use std::path::{Path, PathBuf};
use vk_runner::backend::{Backend, vkd3d::Vkd3dBackend};
use vk_runner::bench::{Settings, bench_shader};
use vk_runner::cache::Cache;
use vk_runner::vk::bind::RunError;
use vk_runner::vk::context::Gpu;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Only {
    Both,
    Ours,
    Vkd3d,
}

#[derive(Parser, Debug)]
#[command(
    name = "vk-bench",
    about = "Times compute and pixel shaders translated by ours and by vkd3d-shader on a Vulkan device"
)]
struct Cli {
    /// DXBC files, or directories whose *.dxbc files are taken.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// vkd3d-compiler, for vkd3d-shader's SPIR-V.
    #[arg(long, default_value = "vkd3d-compiler")]
    vkd3d_compiler: String,
    /// Dispatches or draws per timed round.
    #[arg(long, default_value_t = 20)]
    repeat: u32,
    /// Timed rounds per translator, alternating between them; the best counts.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Render target width and height for pixel shaders.
    #[arg(long, default_value_t = 512)]
    size: u32,
    /// Invocations per compute dispatch (rounded to whole workgroups).
    #[arg(long, default_value_t = 1 << 18)]
    threads: u32,
    /// Physical device index (see vk-runner --list-devices).
    #[arg(long)]
    device: Option<usize>,
    /// Time by the CPU time of all this process's threads (Linux) instead of GPU timestamps:
    /// for a CPU driver (lavapipe) on a machine other work loads.
    #[arg(long)]
    cpu_time: bool,
    /// Time only one translator's output (for profiling one of them, e.g. under callgrind).
    #[arg(long, value_enum, default_value = "both")]
    only: Only,
    /// Run DIR/NAME.spv, where it exists, instead of our translator's SPIR-V for NAME.dxbc
    /// (same reflection): for A/B experiments with hand-edited modules.
    #[arg(long, value_name = "DIR")]
    replace_ours: Option<PathBuf>,
    /// The same for vkd3d-shader's SPIR-V.
    #[arg(long, value_name = "DIR")]
    replace_vkd3d: Option<PathBuf>,
    /// Enable VK_LAYER_KHRONOS_validation; any validation error fails the run.
    #[arg(long)]
    validate: bool,
    /// Cache directory for vkd3d-compiler's output (default as vk-runner's).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
}

fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "dxbc"))
                .collect();
            v.sort();
            out.extend(v);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(out)
}

fn default_cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return Path::new(&x).join("vk-runner");
    }
    PathBuf::from("target/hlsl-cache")
}

/// The words of DIR/NAME.spv when DIR is given and the file exists.
fn read_replacement(dir: Option<&Path>, name: &str) -> Result<Option<Vec<u32>>, String> {
    let Some(p) = dir.map(|d| d.join(format!("{name}.spv"))) else {
        return Ok(None);
    };
    if !p.is_file() {
        return Ok(None);
    }
    match std::fs::read(&p) {
        Ok(b) if b.len() % 4 == 0 => Ok(Some(
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )),
        _ => Err(format!("cannot read {} as SPIR-V", p.display())),
    }
}

fn stage_name(s: translator::reflect::ShaderStage) -> &'static str {
    match s {
        translator::reflect::ShaderStage::Compute => "cs",
        _ => "ps",
    }
}

fn main() {
    std::process::exit(run(Cli::parse()));
}

fn run(cli: Cli) -> i32 {
    let files = match collect(&cli.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("vk-bench: {e}");
            return 2;
        }
    };
    let gpu = match Gpu::new(cli.device, cli.validate, false) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("vk-bench: no Vulkan device: {e}");
            return 1;
        }
    };
    let cache = Cache::new(Some(
        cli.cache_dir.clone().unwrap_or_else(default_cache_dir),
    ));
    let theirs = match Vkd3dBackend::new(&cli.vkd3d_compiler, cache) {
        Ok(b) => Backend::Vkd3d(b),
        Err(e) => {
            eprintln!("vk-bench: {e}");
            return 2;
        }
    };
    let ours = Backend::ours(gpu.target_env(), false, false, false);
    let settings = Settings {
        repeat: cli.repeat.max(1),
        rounds: cli.rounds.max(1),
        size: cli.size.max(1),
        threads: cli.threads.max(1),
        cpu_clock: cli.cpu_time,
    };
    println!("vk-bench: device {}", gpu.describe());
    println!(
        "vk-bench: {} dispatches/draws per round, best of {} alternating rounds; {}x{} targets, ~{} invocations per dispatch; {}",
        settings.repeat,
        settings.rounds,
        settings.size,
        settings.size,
        settings.threads,
        if settings.cpu_clock {
            "CPU time of the process's threads"
        } else {
            "GPU timestamps"
        }
    );
    println!(
        "{:<22}{:>6}{:>12}{:>12}{:>8}",
        "shader", "stage", "ours us", "vkd3d us", "ratio"
    );
    let mut totals = [0f64; 2];
    let mut by_stage: std::collections::BTreeMap<&str, [f64; 2]> = Default::default();
    let mut failed = 0;
    for f in &files {
        let name = f.file_stem().map_or_else(
            || f.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let dxbc = match std::fs::read(f) {
            Ok(d) => d,
            Err(e) => {
                println!("{name:<22} error: {e}");
                failed += 1;
                continue;
            }
        };
        let replaced = read_replacement(cli.replace_ours.as_deref(), &name)
            .and_then(|o| Ok((o, read_replacement(cli.replace_vkd3d.as_deref(), &name)?)));
        let (replace_ours, replace_vkd3d) = match replaced {
            Ok(r) => r,
            Err(e) => {
                println!("{name:<22} error: {e}");
                failed += 1;
                continue;
            }
        };
        let (backends, replace): (Vec<&Backend>, _) = match cli.only {
            Only::Both => (vec![&ours, &theirs], vec![replace_ours, replace_vkd3d]),
            Only::Ours => (vec![&ours], vec![replace_ours]),
            Only::Vkd3d => (vec![&theirs], vec![replace_vkd3d]),
        };
        match bench_shader(&gpu, &backends, &replace, &dxbc, &settings) {
            Ok(t) if t.ns.len() == 1 => {
                println!(
                    "{name:<22}{:>6}{:>12.2}",
                    stage_name(t.stage),
                    t.ns[0] / 1e3
                );
            }
            Ok(t) => {
                let stage = stage_name(t.stage);
                let (o, v) = (t.ns[0] / 1e3, t.ns[1] / 1e3);
                println!("{name:<22}{stage:>6}{o:>12.2}{v:>12.2}{:>8.2}", v / o);
                totals[0] += o;
                totals[1] += v;
                let e = by_stage.entry(stage).or_default();
                e[0] += o;
                e[1] += v;
            }
            Err(RunError::Skip(m)) => println!("{name:<22} skipped: {m}"),
            Err(RunError::Fail(m)) => {
                println!("{name:<22} error: {m}");
                failed += 1;
            }
        }
    }
    for (stage, [o, v]) in &by_stage {
        println!("{:<22}{stage:>6}{o:>12.2}{v:>12.2}{:>8.2}", "total", v / o);
    }
    let [o, v] = totals;
    if o > 0.0 {
        println!(
            "{:<22}{:>6}{o:>12.2}{v:>12.2}{:>8.2}  (ratio vkd3d / ours: > 1 = ours runs faster)",
            "total",
            "all",
            v / o
        );
    }
    if cli.validate {
        println!(
            "vk-bench: validation: {} errors, {} warnings",
            gpu.validation_errors(),
            gpu.validation_warnings()
        );
        failed += gpu.validation_errors() as usize;
    }
    if failed > 0 { 1 } else { 0 }
}
