//! vk-runner: runs `.shader_test` files on a Vulkan device through our translator (or
//! vkd3d-compiler) and reports one line per check, then `N passed, N failed, N skipped`.

use clap::{Parser, ValueEnum};
use std::path::{Path, PathBuf};
use vk_runner::backend::{Backend, vkd3d::Vkd3dBackend};
use vk_runner::cache::Cache;
use vk_runner::hlsl::HlslCompiler;
use vk_runner::report::{Report, Status};
use vk_runner::run::Runner;
use vk_runner::vk::context::{Gpu, list_devices};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendKind {
    /// Our translator (the `translator` crate).
    Ours,
    /// vkd3d-compiler's DXBC → SPIR-V, for bring-up and cross-checking.
    Vkd3d,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ExecutorKind {
    /// Vulkan, driven directly: pipelines and descriptors built from the backend's reflection.
    Direct,
    /// vkd3d's Direct3D 12 API: DXBC to pipeline states, vkd3d translates it with whichever
    /// libvkd3d-shader is loaded (needs libvkd3d.so.1 and libvkd3d-utils.so.1).
    D3d12,
}

#[derive(Parser, Debug)]
#[command(
    name = "vk-runner",
    about = "Runs .shader_test files on Vulkan and checks their results"
)]
struct Cli {
    /// Test files, or directories searched recursively for *.shader_test.
    paths: Vec<PathBuf>,
    /// Which DXBC → SPIR-V translator to run (default ours; direct executor only).
    #[arg(long, value_enum)]
    backend: Option<BackendKind>,
    /// How tests run: Vulkan directly, or through vkd3d's Direct3D 12 API.
    #[arg(long, value_enum, default_value = "direct")]
    executor: ExecutorKind,
    /// Seconds one file may run under `--executor d3d12` before its worker is stopped and
    /// the file fails.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    file_timeout: u64,
    /// HLSL → DXBC compiler, invoked like vkd3d-compiler.
    #[arg(long, default_value = "vkd3d-compiler")]
    hlsl_compiler: String,
    /// vkd3d-compiler used by `--backend vkd3d` (default: the HLSL compiler).
    #[arg(long)]
    vkd3d_compiler: Option<String>,
    /// Cache directory for compiled shaders (default: $XDG_CACHE_HOME/vk-runner, else
    /// target/hlsl-cache).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Do not cache compiled shaders.
    #[arg(long)]
    no_cache: bool,
    /// Physical device index (see --list-devices).
    #[arg(long)]
    device: Option<usize>,
    /// List Vulkan devices and exit.
    #[arg(long)]
    list_devices: bool,
    /// Enable VK_LAYER_KHRONOS_validation; any validation error fails the run.
    #[arg(long)]
    validate: bool,
    /// Print a JSON report on stdout instead of text lines.
    #[arg(long)]
    json: bool,
    /// Print only failed and skipped checks (and the summary).
    #[arg(long, short)]
    quiet: bool,
    /// Lowest shader model to compile HLSL for (2.0, 3.0, 4.0, 4.1, 5.0, 5.1; default 4.0): a
    /// file runs an SM2.0–3.0 pass (D3D9 bytecode) and an SM4.0–5.1 pass (DXBC) as far as the
    /// range reaches, each block at the lowest model of the pass its `[require]` admits.
    /// Without this option a file whose `[header]` lists 2.0 or 3.0 runs its SM1–3 pass too.
    #[arg(long, value_name = "X.Y")]
    shader_model: Option<String>,
    /// Highest shader model to compile HLSL for: blocks that admit no model in
    /// --shader-model..--max-shader-model are skipped, naming the range.
    #[arg(long, value_name = "X.Y", default_value = "5.1")]
    max_shader_model: String,
    /// Run the files in this process instead of a child process (by default a crash of the
    /// driver fails only the file it happened in; src/isolate.rs).
    #[arg(long)]
    in_process: bool,
    /// Internal: run as the child of an isolated run.
    #[arg(long, hide = true)]
    child: bool,
    /// Our backend: translate with float precision in SPV_KHR_float_controls2 form
    /// (fast-math defaults instead of NoContraction); its modules need the device feature
    /// shaderFloatControls2 (VK_KHR_shader_float_controls2), and every block is skipped,
    /// naming it, on a device without.
    #[arg(long)]
    float_controls2: bool,
}

/// The options a child of an isolated run gets (the files are appended).
fn child_command(cli: &Cli) -> Result<Vec<String>, String> {
    let mut c = vk_runner::diff::worker::self_command()?;
    c.push("--child".into());
    let backend = match cli.backend.unwrap_or(BackendKind::Ours) {
        BackendKind::Ours => "ours",
        BackendKind::Vkd3d => "vkd3d",
    };
    c.extend(["--backend".into(), backend.into()]);
    c.extend(["--hlsl-compiler".into(), cli.hlsl_compiler.clone()]);
    if let Some(v) = &cli.vkd3d_compiler {
        c.extend(["--vkd3d-compiler".into(), v.clone()]);
    }
    if let Some(d) = &cli.cache_dir {
        c.extend(["--cache-dir".into(), d.display().to_string()]);
    }
    if cli.no_cache {
        c.push("--no-cache".into());
    }
    if let Some(d) = cli.device {
        c.extend(["--device".into(), d.to_string()]);
    }
    if cli.validate {
        c.push("--validate".into());
    }
    if cli.float_controls2 {
        c.push("--float-controls2".into());
    }
    if let Some(m) = &cli.shader_model {
        c.extend(["--shader-model".into(), m.clone()]);
    }
    c.extend(["--max-shader-model".into(), cli.max_shader_model.clone()]);
    c.push("--".into());
    Ok(c)
}

/// Runs `files` in child processes (src/isolate.rs) and reports as a run in this process would.
fn run_isolated(cli: &Cli, files: &[PathBuf]) -> i32 {
    let command = match child_command(cli) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vk-runner: {e}");
            return 2;
        }
    };
    let backend = match cli.backend.unwrap_or(BackendKind::Ours) {
        BackendKind::Ours => "ours",
        BackendKind::Vkd3d => "vkd3d",
    };
    let mut report = Report::new(cli.json, !cli.quiet);
    let start = std::time::Instant::now();
    let info = vk_runner::isolate::run(&command, files, backend, &mut report, cli.json);
    if let Some(code) = info.exit {
        return code;
    }
    let (verr, vwarn) = (info.validation_errors, info.validation_warnings);
    let failed = report.count(Status::Fail) > 0 || verr > 0;
    if cli.json {
        let extra = serde_json::json!({
            "device": info.device,
            "backend": backend,
            "files": files.len(),
            "validation": if cli.validate { serde_json::json!({"errors": verr, "warnings": vwarn}) } else { serde_json::Value::Null },
            "seconds": start.elapsed().as_secs_f64(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report.to_json(extra)).unwrap_or_default()
        );
    } else {
        if cli.validate {
            println!("vk-runner: validation: {verr} errors, {vwarn} warnings");
        }
        println!("{}", report.summary());
    }
    if failed { 1 } else { 0 }
}

fn collect(paths: &[PathBuf], out: &mut Vec<PathBuf>) -> Result<(), String> {
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            let (dirs, files): (Vec<_>, Vec<_>) = entries.into_iter().partition(|e| e.is_dir());
            out.extend(
                files
                    .into_iter()
                    .filter(|f| f.extension().is_some_and(|x| x == "shader_test")),
            );
            collect(&dirs, out)?;
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(())
}

fn default_cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return Path::new(&x).join("vk-runner");
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR").filter(|x| !x.is_empty()) {
        return Path::new(&t).join("hlsl-cache");
    }
    PathBuf::from("target/hlsl-cache")
}

fn main() {
    // `vk-runner diff ...`: differential execution (src/diff/).
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == "diff") {
        std::process::exit(vk_runner::diff::main(args.collect()));
    }
    let cli = Cli::parse();
    std::process::exit(run(cli));
}

fn run(cli: Cli) -> i32 {
    if cli.list_devices {
        return match list_devices() {
            Ok(v) if v.is_empty() => {
                eprintln!("vk-runner: no Vulkan devices");
                1
            }
            Ok(v) => {
                v.iter().for_each(|l| println!("{l}"));
                0
            }
            Err(e) => {
                eprintln!("vk-runner: {e}");
                1
            }
        };
    }
    if cli.paths.is_empty() {
        eprintln!("vk-runner: no test files given (see --help)");
        return 2;
    }
    let mut files = Vec::new();
    if let Err(e) = collect(&cli.paths, &mut files) {
        eprintln!("vk-runner: {e}");
        return 2;
    }
    let model = |flag: &str, text: &str| {
        let mut c = vk_runner::parse::cursor::Cursor::new(text);
        match vk_runner::parse::qualifier::ShaderModel::parse(&mut c) {
            Ok(m) if c.is_empty() => Some(m),
            Ok(_) => {
                eprintln!("vk-runner: {flag} {text}: trailing text");
                None
            }
            Err(e) => {
                eprintln!("vk-runner: {flag} {text}: {e}");
                None
            }
        }
    };
    let (Some(min_model), Some(max_model)) = (
        model(
            "--shader-model",
            cli.shader_model.as_deref().unwrap_or("4.0"),
        ),
        model("--max-shader-model", &cli.max_shader_model),
    ) else {
        return 2;
    };
    if min_model > max_model {
        eprintln!("vk-runner: --shader-model {min_model} is above --max-shader-model {max_model}");
        return 2;
    }
    // The direct executor runs the files in child processes (the D3D12 executor has its
    // own workers).
    if cli.executor == ExecutorKind::Direct && !cli.child && !cli.in_process {
        return run_isolated(&cli, &files);
    }
    let cache = if cli.no_cache {
        Cache::disabled()
    } else {
        Cache::new(Some(
            cli.cache_dir.clone().unwrap_or_else(default_cache_dir),
        ))
    };

    let (hlsl, hlsl_error) = match HlslCompiler::new(&cli.hlsl_compiler, cache.clone()) {
        Ok(h) => (Some(h), None),
        Err(e) => {
            eprintln!(
                "vk-runner: WARNING: {e}; HLSL sections cannot be compiled and their checks will fail"
            );
            (None, Some(e))
        }
    };

    if cli.executor == ExecutorKind::D3d12 {
        let opts = vk_runner::d3d12::Options {
            hlsl: hlsl.as_ref(),
            hlsl_error,
            min_model,
            max_model,
            header_selects_d3d9: cli.shader_model.is_none(),
            file_timeout: std::time::Duration::from_secs(cli.file_timeout.max(1)),
        };
        return run_d3d12(&cli, &files, &opts);
    }
    let gpu = match Gpu::new(cli.device, cli.validate, cli.float_controls2) {
        Ok(g) => Some(g),
        Err(e) => {
            if cli.validate && e.contains("validation") {
                eprintln!("vk-runner: {e}");
                return 2;
            }
            eprintln!("vk-runner: ************************************************************");
            eprintln!("vk-runner: NO VULKAN DEVICE: {e}");
            eprintln!("vk-runner: every check is reported SKIPPED; nothing was run.");
            eprintln!("vk-runner: ************************************************************");
            None
        }
    };
    let target_env = gpu
        .as_ref()
        .map_or(translator::TargetEnv::default(), |g| g.target_env());
    let backend = match cli.backend.unwrap_or(BackendKind::Ours) {
        BackendKind::Ours => Backend::ours(
            target_env,
            gpu.as_ref().is_some_and(|g| g.denorm_flush_f32),
            gpu.as_ref().is_some_and(|g| {
                g.enabled.get("shaderTessellationAndGeometryPointSize") == Some(true)
            }),
            cli.float_controls2,
        ),
        BackendKind::Vkd3d => {
            let cmd = cli
                .vkd3d_compiler
                .clone()
                .unwrap_or_else(|| cli.hlsl_compiler.clone());
            match Vkd3dBackend::new(&cmd, cache.clone()) {
                Ok(b) => Backend::Vkd3d(b),
                Err(e) => {
                    eprintln!("vk-runner: {e}");
                    return 2;
                }
            }
        }
    };
    let banner = [
        match &gpu {
            Some(g) => format!("vk-runner: device {}", g.describe()),
            None => "vk-runner: no device".to_string(),
        },
        format!(
            "vk-runner: backend {}, HLSL compiler {}",
            backend.name(),
            hlsl.as_ref()
                .map_or("(none)".to_string(), |h| h.path().display().to_string())
        ),
    ];
    if cli.child {
        let device = gpu.as_ref().map(|g| g.describe());
        banner
            .iter()
            .for_each(|b| vk_runner::isolate::banner(b, device.as_deref()));
    } else if !cli.json {
        banner.iter().for_each(|b| println!("{b}"));
    }
    let runner = Runner {
        gpu: gpu.as_ref(),
        no_gpu_reason: "no Vulkan device".into(),
        backend: &backend,
        hlsl: hlsl.as_ref(),
        hlsl_error,
        tags: gpu.as_ref().map(|g| g.tags()).unwrap_or_default(),
        min_model,
        max_model,
        header_selects_d3d9: cli.shader_model.is_none(),
    };
    if cli.child {
        for (i, f) in files.iter().enumerate() {
            vk_runner::isolate::begin_file(i);
            let mut r = Report::new(true, false);
            runner.run_file(f, &mut r);
            let (e, w) = gpu
                .as_ref()
                .map_or((0, 0), |g| (g.validation_errors(), g.validation_warnings()));
            vk_runner::isolate::end_file(&r, e, w);
        }
        return 0;
    }
    let mut report = Report::new(cli.json, !cli.quiet);
    let start = std::time::Instant::now();
    for f in &files {
        runner.run_file(f, &mut report);
    }
    let (verr, vwarn) = gpu
        .as_ref()
        .map_or((0, 0), |g| (g.validation_errors(), g.validation_warnings()));
    let failed = report.count(Status::Fail) > 0 || verr > 0;
    if cli.json {
        let extra = serde_json::json!({
            "device": gpu.as_ref().map(|g| g.describe()),
            "backend": backend.name(),
            "files": files.len(),
            "validation": if cli.validate { serde_json::json!({"errors": verr, "warnings": vwarn}) } else { serde_json::Value::Null },
            "seconds": start.elapsed().as_secs_f64(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report.to_json(extra)).unwrap_or_default()
        );
    } else {
        if cli.validate {
            println!("vk-runner: validation: {verr} errors, {vwarn} warnings");
        }
        println!("{}", report.summary());
    }
    drop(runner);
    drop(gpu);
    if failed { 1 } else { 0 }
}

/// `--executor d3d12`: the files through vkd3d's D3D12 API, in worker processes.
fn run_d3d12(cli: &Cli, files: &[PathBuf], opts: &vk_runner::d3d12::Options<'_>) -> i32 {
    if cli.backend.is_some() {
        eprintln!(
            "vk-runner: --backend has no meaning with --executor d3d12 (vkd3d translates with the libvkd3d-shader it loads)"
        );
        return 2;
    }
    if cli.validate || cli.device.is_some() {
        eprintln!(
            "vk-runner: --validate and --device have no meaning with --executor d3d12 (vkd3d picks its device; VKD3D_CONFIG=vk_debug turns on validation)"
        );
        return 2;
    }
    let json = cli.json;
    let hlsl_path = opts
        .hlsl
        .map_or("(none)".to_string(), |h| h.path().display().to_string());
    let announce = |d: &Result<String, String>| match d {
        Ok(desc) => {
            if !json {
                println!("vk-runner: device {desc}");
                println!("vk-runner: executor d3d12, HLSL compiler {hlsl_path}");
            }
        }
        Err(why) => {
            eprintln!("vk-runner: ************************************************************");
            eprintln!("vk-runner: D3D12 EXECUTOR UNAVAILABLE: {why}");
            eprintln!("vk-runner: every check is reported SKIPPED; nothing was run.");
            eprintln!("vk-runner: ************************************************************");
            if !json {
                println!("vk-runner: no device");
                println!("vk-runner: executor d3d12, HLSL compiler {hlsl_path}");
            }
        }
    };
    let mut report = Report::new(cli.json, !cli.quiet);
    let start = std::time::Instant::now();
    let outcome = vk_runner::d3d12::run(files, opts, &mut report, &announce);
    let failed = report.count(Status::Fail) > 0;
    if cli.json {
        let extra = serde_json::json!({
            "device": outcome.device.as_ref().and_then(|d| d.as_ref().ok()),
            "executor": "d3d12",
            "files": files.len(),
            "crashes": outcome.crashes,
            "seconds": start.elapsed().as_secs_f64(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report.to_json(extra)).unwrap_or_default()
        );
    } else {
        if outcome.crashes > 0 {
            println!(
                "vk-runner: d3d12: {} file(s) crashed or timed out (their [crash] checks failed)",
                outcome.crashes
            );
        }
        println!("{}", report.summary());
    }
    if failed { 1 } else { 0 }
}
