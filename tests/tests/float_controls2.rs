//! The `SPV_KHR_float_controls2` form of the precision rules (`Options::float_controls2`):
//! its own `spirv-val` sweep over every DXBC corpus and bench shader (all stages) and every
//! D3D9 corpus blob, for Vulkan 1.3 and Vulkan 1.1, and what the modules must say.
//!
//! - Every file that translates with the default options translates in this mode too, and
//!   `spirv-val` accepts the module.
//! - No module carries `NoContraction` (invalid beside `FPFastMathDefault`); every module that
//!   declares a float type sets `FPFastMathDefault` for it; its reflection lists the
//!   extension, the capability and the Vulkan feature `shaderFloatControls2`.
//! - The bench VS/PS/CS are smaller than in the default form (the decorations that carried
//!   precision per operation are gone where the default says it).
//!
//! Debian 12's `spirv-val` (SPIRV-Tools 2023.1) does not know the extension. The sweep then
//! uses a newer one from Debian unstable's `spirv-tools` through `tools/debian-root.sh` (which
//! fetches it once from the host's Debian mirror), or the command `SPIRV_VAL_FC2` names. With
//! none available the validation is reported loudly as SKIPPED (the structural checks still
//! run); the runtime side is `runtime_suite.rs`'s `runtime_suite_passes_with_float_controls2`.

use std::path::{Path, PathBuf};
use std::process::Command;

use integration_tests::{d3dbc_files, dxbc_files, repo_root, shared_dir};
use rspirv::spirv;
use translator::{Options, TargetEnv};

/// A `spirv-val` command (program and leading arguments) that knows `SPV_KHR_float_controls2`.
struct Validator(Vec<String>);

impl Validator {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.0[0]);
        c.args(&self.0[1..]);
        c
    }

    /// `Ok` when the module in `file` validates for `env` (a `--target-env` name).
    fn validate(&self, file: &Path, env: &str) -> Result<(), String> {
        let out = self
            .command()
            .arg("--target-env")
            .arg(env)
            .arg(file)
            .output()
            .map_err(|e| format!("cannot run {:?}: {e}", self.0))?;
        if out.status.success() {
            return Ok(());
        }
        let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
        msg.push_str(&String::from_utf8_lossy(&out.stdout));
        Err(msg)
    }
}

/// A small module in this form, to probe validators with.
fn probe_module(dir: &Path) -> PathBuf {
    let src = "ps_5_0\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ndcl_temps 1\n\
               mul r0.xy, v0.xyxx, v0.yxyy\nadd o0.xy, r0.xyxx, l(1.0, 1.0, 0, 0)\n\
               mov o0.zw, l(0, 0, 0, 1.0)\nret\n";
    let dxbc = translator::asm::assemble(src).expect("the probe assembles");
    let opts = Options {
        float_controls2: true,
        ..Default::default()
    };
    let t = translator::translate(&dxbc, &opts).expect("the probe translates");
    let path = dir.join("probe.spv");
    write_words(&path, &t.spirv);
    path
}

fn write_words(path: &Path, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

/// The first validator that accepts the probe: `SPIRV_VAL_FC2` (a command line, split at
/// spaces), the host's `spirv-val`, then Debian unstable's through `tools/debian-root.sh`.
fn validator(dir: &Path) -> Option<Validator> {
    let probe = probe_module(dir);
    let mut candidates: Vec<Vec<String>> = Vec::new();
    if let Some(c) = std::env::var_os("SPIRV_VAL_FC2") {
        candidates.push(
            c.to_string_lossy()
                .split_whitespace()
                .map(String::from)
                .collect(),
        );
    }
    candidates.push(vec!["spirv-val".into()]);
    let root = repo_root().join("tools/debian-root.sh");
    candidates.push(vec![
        root.display().to_string(),
        "--run".into(),
        "sid".into(),
        "spirv-tools".into(),
        "spirv-val".into(),
    ]);
    for c in candidates {
        let v = Validator(c);
        match v.validate(&probe, "vulkan1.3") {
            Ok(()) => {
                let version = v
                    .command()
                    .arg("--version")
                    .output()
                    .map(|o| {
                        String::from_utf8_lossy(&o.stdout)
                            .lines()
                            .next()
                            .map(String::from)
                    })
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                eprintln!("float_controls2: validating with {:?} ({version})", v.0);
                return Some(v);
            }
            Err(e) => eprintln!(
                "float_controls2: {:?} cannot validate the probe: {}",
                v.0,
                e.lines().next().unwrap_or("")
            ),
        }
    }
    None
}

/// The shaders swept: DXBC corpus and bench (every stage), D3D9 corpus.
fn inputs(shared: &Path) -> Vec<PathBuf> {
    let mut files = dxbc_files(&shared.join("corpus/dxbc"));
    files.extend(dxbc_files(&shared.join("bench/dxbc")));
    files.extend(d3dbc_files(&shared.join("corpus/d3dbc")));
    files
}

/// Whether the module has an instruction `op` (any operands).
fn has_op(words: &[u32], op: spirv::Op) -> bool {
    instructions(words).any(|(o, _)| o == op as u32)
}

/// (opcode, operands) of each instruction after the header.
fn instructions(words: &[u32]) -> impl Iterator<Item = (u32, &[u32])> {
    let mut i = 5;
    std::iter::from_fn(move || {
        let w = *words.get(i)?;
        let n = (w >> 16) as usize;
        if n == 0 || i + n > words.len() {
            return None;
        }
        let item = (w & 0xFFFF, &words[i + 1..i + n]);
        i += n;
        Some(item)
    })
}

/// What the module must say in this form (an error message when it does not).
fn check_module(words: &[u32], refl: &translator::reflect::Reflection) -> Result<(), String> {
    let no_contraction = spirv::Decoration::NoContraction as u32;
    if instructions(words)
        .any(|(op, a)| op == spirv::Op::Decorate as u32 && a.get(1) == Some(&no_contraction))
    {
        return Err("a NoContraction decoration".into());
    }
    let float_types: Vec<u32> = instructions(words)
        .filter(|(op, _)| *op == spirv::Op::TypeFloat as u32)
        .map(|(_, a)| a[0])
        .collect();
    let defaults: Vec<u32> = instructions(words)
        .filter(|(op, a)| {
            *op == spirv::Op::ExecutionModeId as u32
                && a.get(1) == Some(&(spirv::ExecutionMode::FPFastMathDefault as u32))
        })
        .map(|(_, a)| a[2])
        .collect();
    if let Some(t) = float_types.iter().find(|t| !defaults.contains(t)) {
        return Err(format!("float type %{t} has no FPFastMathDefault"));
    }
    if !has_op(words, spirv::Op::Extension)
        || !refl
            .extensions
            .iter()
            .any(|e| e == "SPV_KHR_float_controls2")
        || !refl.capabilities.iter().any(|c| c == "FloatControls2")
        || !refl
            .vulkan_features
            .iter()
            .any(|f| f == "shaderFloatControls2")
    {
        return Err(format!(
            "the reflection does not list the extension, capability and feature: {:?} {:?} {:?}",
            refl.extensions, refl.capabilities, refl.vulkan_features
        ));
    }
    Ok(())
}

#[test]
fn float_controls2_modules_validate_and_say_so() {
    let Some(shared) = shared_dir() else {
        eprintln!("float_controls2: SKIPPED — ../shared is absent (no corpus)");
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("float-controls2");
    std::fs::create_dir_all(&dir).unwrap();
    let val = validator(&dir);
    if val.is_none() {
        let banner = "*".repeat(78);
        eprintln!(
            "{banner}\nfloat_controls2: spirv-val SKIPPED — no spirv-val that knows \
             SPV_KHR_float_controls2 (the host's is too old; tools/debian-root.sh could not \
             fetch Debian unstable's spirv-tools; set SPIRV_VAL_FC2 to one).\n\
             float_controls2: only the structural checks ran; validation is NOT a pass.\n{banner}"
        );
    }
    let files = inputs(&shared);
    assert!(files.len() > 500, "the corpus holds {} files", files.len());
    let mut failures = Vec::new();
    let (mut translated, mut validated) = (0, 0);
    for env in [TargetEnv::Vulkan1_3, TargetEnv::Vulkan1_1] {
        let plain = Options {
            target_env: env,
            ..Default::default()
        };
        let fc2 = Options {
            target_env: env,
            float_controls2: true,
            ..Default::default()
        };
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            let name = f.strip_prefix(&shared).unwrap_or(f).display().to_string();
            let Ok(_) = translator::translate(&bytes, &plain) else {
                continue;
            };
            let t = match translator::translate(&bytes, &fc2) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{name} ({env:?}): does not translate: {e}"));
                    continue;
                }
            };
            translated += 1;
            if let Err(e) = check_module(&t.spirv, &t.reflection) {
                failures.push(format!("{name} ({env:?}): {e}"));
            }
            if let Some(v) = &val {
                let spv = dir.join("module.spv");
                write_words(&spv, &t.spirv);
                match v.validate(&spv, env.spirv_val_name()) {
                    Ok(()) => validated += 1,
                    Err(e) => failures.push(format!(
                        "{name} ({env:?}): spirv-val: {}",
                        e.lines().next().unwrap_or("")
                    )),
                }
            }
        }
    }
    eprintln!(
        "float_controls2: {translated} modules (Vulkan 1.3 and 1.1), {validated} validated, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(translated > 1000, "only {translated} modules translated");
}

#[test]
fn float_controls2_makes_the_bench_smaller() {
    let Some(shared) = shared_dir() else {
        eprintln!("float_controls2: SKIPPED — ../shared is absent (no bench shaders)");
        return;
    };
    let mut files = Vec::new();
    for stage in ["vs", "ps", "cs"] {
        files.extend(
            dxbc_files(&shared.join("bench/dxbc"))
                .into_iter()
                .filter(|f| {
                    f.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(stage))
                }),
        );
    }
    assert!(files.len() >= 20, "{} bench VS/PS/CS", files.len());
    let count = |opts: &Options| -> usize {
        files
            .iter()
            .map(|f| {
                let t = translator::translate(&std::fs::read(f).unwrap(), opts).unwrap();
                instructions(&t.spirv).count()
            })
            .sum()
    };
    let plain = count(&Options::default());
    let fc2 = count(&Options {
        float_controls2: true,
        ..Default::default()
    });
    eprintln!(
        "float_controls2: the {} bench VS/PS/CS have {plain} instructions, {fc2} in this form",
        files.len()
    );
    assert!(
        fc2 < plain,
        "{fc2} instructions in this form, {plain} without"
    );
}
