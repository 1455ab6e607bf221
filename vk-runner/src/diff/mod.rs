//! `vk-runner diff`: differential execution. Each shader (DXBC or Direct3D 9 bytecode, found
//! by content in the files and directories given) runs through our translator's SPIR-V and
//! vkd3d-shader's on the same Vulkan device, with the same inputs made from the seed and the
//! shader's own declarations, and every output is compared within the tolerance its
//! operations allow. Valid SPIR-V is not proof of a correct translation; two independent
//! translations agreeing on thousands of real shaders is evidence, and each disagreement is
//! a bug in one of them (or input the generator must learn to avoid).
//!
//! The parent process decodes shaders, hands each to two worker processes (one per side,
//! [`worker`]) that run it ([`exec`]), compares what they read back ([`compare`],
//! [`tolerance`]) and reports ([`report`]). Documented in `docs/differential.md`.

pub mod compare;
pub mod exec;
pub mod gs;
pub mod inject;
pub mod inputs;
pub mod order;
pub mod outputs;
pub mod report;
pub mod rng;
pub mod shader;
pub mod spirv_io;
pub mod stages;
pub mod tolerance;
pub mod worker;

use crate::backend::{Backend, vkd3d::Vkd3dBackend};
use crate::cache::Cache;
use clap::{Parser, ValueEnum};
use outputs::SideResult;
use report::{Entry, Report, Reproduce, Verdict};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use worker::{Job, Outcome, Worker};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Against {
    /// vkd3d-shader, through vkd3d-compiler.
    Vkd3d,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Side {
    Ours,
    Vkd3d,
}

#[derive(Parser, Debug)]
#[command(
    name = "vk-runner diff",
    about = "Runs shaders through our SPIR-V and vkd3d-shader's on one Vulkan device and compares every output"
)]
struct DiffCli {
    /// Shader files (DXBC or D3D9 bytecode), or directories searched recursively; files are
    /// recognised by content.
    paths: Vec<PathBuf>,
    /// The translator to compare against.
    #[arg(long, value_enum, default_value = "vkd3d")]
    against: Against,
    /// vkd3d-compiler to use (default: tools/vkd3d-compiler.sh of this repository when found,
    /// else vkd3d-compiler on PATH).
    #[arg(long)]
    vkd3d_compiler: Option<String>,
    /// Write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Physical device index.
    #[arg(long)]
    device: Option<usize>,
    /// Seconds one side may take on one shader before it counts as hung.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Compiled-shader cache directory (default as for vk-runner).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    #[arg(long)]
    no_cache: bool,
    /// Print only differences and shaders not run (and the summary).
    #[arg(long, short)]
    quiet: bool,
    /// Testing the tool: miscompile our side on purpose (`swap-output`: swap the first two
    /// components of the first vector output).
    #[arg(long, value_name = "KIND")]
    inject_miscompile: Option<String>,
    /// Write both sides' outputs of each shader that differs to DIR (NAME.ours.json,
    /// NAME.vkd3d.json), for inspection.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Internal: run as the worker for one side.
    #[arg(long, value_enum, hide = true)]
    worker: Option<Side>,
}

/// Entry point of `vk-runner diff ARGS`.
pub fn main(args: Vec<OsString>) -> i32 {
    let argv = std::iter::once(OsString::from("vk-runner diff")).chain(args);
    let cli = match DiffCli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.worker {
        Some(side) => run_worker(&cli, side),
        None => run_parent(&cli),
    }
}

fn cache(cli: &DiffCli) -> Cache {
    if cli.no_cache {
        return Cache::disabled();
    }
    Cache::new(Some(
        cli.cache_dir.clone().unwrap_or_else(default_cache_dir),
    ))
}

/// vk-runner's default cache directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return Path::new(&x).join("vk-runner");
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR").filter(|x| !x.is_empty()) {
        return Path::new(&t).join("hlsl-cache");
    }
    PathBuf::from("target/hlsl-cache")
}

/// The repository's `tools/vkd3d-compiler.sh` (next to the working directory or above the
/// executable), else `vkd3d-compiler` on PATH.
fn default_vkd3d_compiler() -> String {
    let mut candidates = vec![PathBuf::from("tools/vkd3d-compiler.sh")];
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(
            exe.ancestors()
                .skip(1)
                .map(|d| d.join("tools/vkd3d-compiler.sh")),
        );
    }
    if let Some(a0) = std::env::args_os()
        .next()
        .and_then(|a| std::fs::canonicalize(a).ok())
    {
        candidates.extend(
            a0.ancestors()
                .skip(1)
                .map(|d| d.join("tools/vkd3d-compiler.sh")),
        );
    }
    candidates.into_iter().find(|c| c.is_file()).map_or_else(
        || "vkd3d-compiler".to_string(),
        |c| {
            std::fs::canonicalize(&c)
                .unwrap_or(c)
                .to_string_lossy()
                .into_owned()
        },
    )
}

fn vkd3d_compiler(cli: &DiffCli) -> String {
    cli.vkd3d_compiler
        .clone()
        .unwrap_or_else(default_vkd3d_compiler)
}

fn run_worker(cli: &DiffCli, side: Side) -> i32 {
    let gpu = crate::vk::context::Gpu::new(cli.device, false, false);
    let (gpu, why) = match gpu {
        Ok(g) => (Some(g), String::new()),
        Err(e) => (None, e),
    };
    let backend = match side {
        Side::Ours => Backend::ours(
            gpu.as_ref().map_or(Default::default(), |g| g.target_env()),
            gpu.as_ref().is_some_and(|g| g.denorm_flush_f32),
            gpu.as_ref().is_some_and(|g| {
                g.enabled.get("shaderTessellationAndGeometryPointSize") == Some(true)
            }),
            false,
        ),
        Side::Vkd3d => match Vkd3dBackend::new(&vkd3d_compiler(cli), cache(cli)) {
            Ok(b) => Backend::Vkd3d(b),
            Err(e) => {
                return worker::serve(
                    &Backend::ours(Default::default(), false, false, false),
                    None,
                    format!("vkd3d side: {e}"),
                );
            }
        },
    };
    worker::serve(&backend, gpu, why)
}

/// Shader files under `paths`, recognised by content, in a stable order.
fn collect(paths: &[PathBuf], out: &mut Vec<PathBuf>) -> Result<(), String> {
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for e in entries {
                if e.is_dir() {
                    collect(&[e], out)?;
                } else if is_shader(&e) {
                    out.push(e);
                }
            }
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(())
}

fn is_shader(p: &Path) -> bool {
    // Shaders are small; a large file is not read whole to find out.
    let small = std::fs::metadata(p).is_ok_and(|m| m.len() <= 4 << 20);
    small && std::fs::read(p).is_ok_and(|b| shader::recognise(&b).is_some())
}

fn side_text(o: &Outcome, name: &str) -> String {
    match o {
        Outcome::Done(SideResult::Ran { .. }) => "ran".into(),
        Outcome::Done(SideResult::NotRun { reason, .. }) => reason.clone(),
        Outcome::Crashed(e) => format!("crashed ({name}): {e}"),
        Outcome::TimedOut(d) => format!("timed out ({name}) after {} s", d.as_secs()),
        Outcome::NoWorker(e) => e.clone(),
    }
}

/// Writes both sides' outputs next to each other for inspection (`--dump`).
fn dump(dir: &Path, file: &Path, ours: &[outputs::Output], theirs: &[outputs::Output]) {
    let stem = file
        .file_name()
        .map_or_else(|| "shader".into(), |n| n.to_string_lossy().into_owned());
    let _ = std::fs::create_dir_all(dir);
    for (side, o) in [("ours", ours), ("vkd3d", theirs)] {
        let text = serde_json::to_string(o).unwrap_or_default();
        let p = dir.join(format!("{stem}.{side}.json"));
        if let Err(e) = std::fs::write(&p, text) {
            eprintln!("vk-runner diff: {}: {e}", p.display());
        }
    }
}

fn run_parent(cli: &DiffCli) -> i32 {
    if cli.paths.is_empty() {
        eprintln!("vk-runner diff: no shaders given (see --help)");
        return 2;
    }
    if let Some(k) = &cli.inject_miscompile
        && let Err(e) = inject::Inject::parse(k)
    {
        eprintln!("vk-runner diff: --inject-miscompile: {e}");
        return 2;
    }
    let mut files = Vec::new();
    if let Err(e) = collect(&cli.paths, &mut files) {
        eprintln!("vk-runner diff: {e}");
        return 2;
    }
    let base = match worker::self_command() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vk-runner diff: {e}");
            return 2;
        }
    };
    let compiler = vkd3d_compiler(cli);
    let worker_cmd = |side: &str| {
        let mut c = base.clone();
        c.extend(["diff".into(), "--worker".into(), side.into()]);
        c.extend(["--vkd3d-compiler".into(), compiler.clone()]);
        if let Some(d) = cli.device {
            c.extend(["--device".into(), d.to_string()]);
        }
        if cli.no_cache {
            c.push("--no-cache".into());
        } else if let Some(d) = &cli.cache_dir {
            c.extend(["--cache-dir".into(), d.to_string_lossy().into_owned()]);
        }
        c
    };
    let mut ours = Worker::new("ours", worker_cmd("ours"));
    let mut theirs = Worker::new("vkd3d", worker_cmd("vkd3d"));
    println!(
        "vk-runner diff: {} shaders, seed {}, against vkd3d-shader ({compiler})",
        files.len(),
        cli.seed
    );
    let timeout = Duration::from_secs(cli.timeout.max(1));
    let mut report = Report::new(cli.quiet);
    let start = Instant::now();
    let mut no_device = None;
    for f in &files {
        let path = f.display().to_string();
        let bytes = std::fs::read(f).unwrap_or_default();
        let sh = match shader::load(bytes) {
            Ok(s) => s,
            Err(e) => {
                report.add(Entry {
                    path,
                    class: "unreadable".into(),
                    model: String::new(),
                    verdict: Verdict::NotRun { reason: e },
                    ours: String::new(),
                    theirs: String::new(),
                    reproduce: None,
                    not_compared: Vec::new(),
                });
                continue;
            }
        };
        let class = format!(
            "{} {}",
            match sh.kind {
                shader::Kind::Dxbc => "dxbc",
                shader::Kind::D3d9 => "d3d9",
            },
            sh.stage.prefix()
        );
        let job = Job {
            path: std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()),
            seed: cli.seed,
            inject: cli.inject_miscompile.clone(),
        };
        let a = ours.submit(&job);
        let b = theirs.submit(&job);
        let a = match a {
            Ok(()) => ours.finish(timeout),
            Err(o) => o,
        };
        let b = match b {
            Ok(()) => theirs.finish(timeout),
            Err(o) => o,
        };
        if let (Outcome::NoWorker(e), _) | (_, Outcome::NoWorker(e)) = (&a, &b)
            && e.starts_with("no Vulkan device")
        {
            no_device = Some(e.clone());
        }
        let (ours_text, theirs_text) = (side_text(&a, "ours"), side_text(&b, "vkd3d"));
        let mut reproduce = None;
        let mut not_compared = Vec::new();
        let verdict = match (&a, &b) {
            (
                Outcome::Done(SideResult::Ran {
                    outputs: oa,
                    inputs,
                }),
                Outcome::Done(SideResult::Ran { outputs: ob, .. }),
            ) => {
                let analysis = tolerance::Analysis::of(&sh);
                let order = order::Order::of(&sh, &inputs::constant_buffers(&sh, cli.seed));
                let keep = sh.d3d9_outputs();
                let saturate = sh.saturated_outputs();
                let kept = |v: &[outputs::Output]| -> Vec<outputs::Output> {
                    v.iter()
                        .filter_map(|o| {
                            let mut o = if saturate { o.saturated() } else { o.clone() };
                            if let Some(k) = &keep {
                                o.mask &= *k.get(&o.name)?;
                            }
                            Some(o)
                        })
                        .collect()
                };
                let compared = compare::compare(&kept(oa), &kept(ob), &analysis, &order);
                not_compared = compared.not_compared;
                match compared.difference {
                    None => Verdict::Agree {
                        values: compared.values,
                    },
                    Some(d) => {
                        if let Some(dir) = &cli.dump {
                            dump(dir, f, oa, ob);
                        }
                        let mut command = format!("vk-runner diff --seed {} {path}", cli.seed);
                        if let Some(k) = &cli.inject_miscompile {
                            command = format!("{command} --inject-miscompile {k}");
                        }
                        reproduce = Some(Reproduce {
                            command,
                            seed: cli.seed,
                            inputs: inputs.clone(),
                        });
                        Verdict::Differ { difference: d }
                    }
                }
            }
            (Outcome::Done(SideResult::Ran { .. }), _) => Verdict::NotRun {
                reason: format!("vkd3d: {theirs_text}"),
            },
            (_, Outcome::Done(SideResult::Ran { .. })) => Verdict::NotRun {
                reason: format!("ours: {ours_text}"),
            },
            _ if ours_text == theirs_text => Verdict::NotRun {
                reason: ours_text.clone(),
            },
            _ => Verdict::NotRun {
                reason: format!("ours: {ours_text}; vkd3d: {theirs_text}"),
            },
        };
        report.add(Entry {
            path,
            class,
            model: sh.model.clone(),
            verdict,
            ours: ours_text,
            theirs: theirs_text,
            reproduce,
            not_compared,
        });
    }
    let seconds = start.elapsed().as_secs_f64();
    if let Some(e) = &no_device {
        eprintln!("vk-runner diff: ************************************************************");
        eprintln!("vk-runner diff: NO VULKAN DEVICE: {e}");
        eprintln!("vk-runner diff: no shader ran; this is NOT a pass.");
        eprintln!("vk-runner diff: ************************************************************");
    }
    if let Some(d) = &ours.device {
        println!("vk-runner diff: device {d}");
    }
    report.summary(seconds);
    if let Some(p) = &cli.json {
        let extra = serde_json::json!({
            "seed": cli.seed,
            "device": ours.device,
            "vkd3d_compiler": compiler,
            "inject_miscompile": cli.inject_miscompile,
        });
        let text =
            serde_json::to_string_pretty(&report.to_json(seconds, extra)).unwrap_or_default();
        if let Err(e) = std::fs::write(p, text) {
            eprintln!("vk-runner diff: {}: {e}", p.display());
            return 2;
        }
    }
    if report.total().differ > 0 { 1 } else { 0 }
}
