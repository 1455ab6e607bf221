//! Whatever the input, the translator returns an error or a module that spirv-val accepts:
//! corpus and bench blobs are mutated (the same edits as `translate_mutations`, one to three at
//! a time), translated for Vulkan 1.3 or 1.1, and every distinct module that comes out is run
//! through `spirv-val`. Any rejected module fails the test; its input and output are kept in the
//! temp directory for reproduction.
//!
//! One case in five is of the signature class instead: a signature element — a patch-constant
//! one when the blob has any — gets another system value (`mutate::mutate_signature`), then
//! zero to two program edits follow. A second test sets every system value D3D defines on every
//! signature element of the hull, domain and geometry shaders (the stages whose inputs are per
//! control point or per vertex, and whose patch constants are neither): a system value that
//! exists only per vertex, named among patch constants, once gave a module spirv-val refused.
//!
//! Needs `../shared` (the bundled examples alone are too few to mean anything) and `spirv-val`;
//! skips, recording why (`integration_tests::skip`), without either. spirv-val is a process per module, so modules are
//! deduplicated by hash and validated on every core.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use integration_tests::mutate::{
    Rng, inputs, mutate, mutate_signature, set_system_value, signature_system_value_fields,
};
use integration_tests::{shared_dir_or_skip, spirv_val, spirv_val_or_skip};
use translator::{Options, TargetEnv};

/// Mutated programs in total (spread over the inputs).
const CASES: usize = 60_000;

/// One module to validate, written to `dir` as `N.spv` beside its input `N.dxbc`.
struct Module {
    file: PathBuf,
    env: &'static str,
    what: String,
}

#[test]
fn mutated_programs_translate_to_valid_spirv() {
    if shared_dir_or_skip().is_none() || !spirv_val_or_skip() {
        return;
    }
    let inputs = inputs();
    // TRANSLATE_VALID_CASES overrides the count, for longer hunts by hand.
    let cases = std::env::var("TRANSLATE_VALID_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    let per_input = cases.div_ceil(inputs.len());
    let dir = std::env::temp_dir().join(format!("translate-valid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let mut rng = Rng(std::env::var("TRANSLATE_VALID_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0xD1B5_4A32_D192_ED03));
    let mut seen = HashSet::new();
    let mut modules = Vec::new();
    let (mut total, mut translated) = (0usize, 0usize);
    let mut panics: Vec<String> = Vec::new();
    let prev_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut signature_cases = 0usize;
    for (name, blob) in &inputs {
        for case in 0..per_input {
            let signature = if rng.below(5) == 0 {
                mutate_signature(&mut rng, blob)
            } else {
                None
            };
            let mut m = match &signature {
                Some(s) => {
                    signature_cases += 1;
                    s.clone()
                }
                None => mutate(&mut rng, blob),
            };
            for _ in 0..rng.below(3) {
                m = mutate(&mut rng, &m);
            }
            let env = if rng.below(4) == 0 {
                TargetEnv::Vulkan1_1
            } else {
                TargetEnv::Vulkan1_3
            };
            let opts = Options {
                target_env: env,
                ..Default::default()
            };
            total += 1;
            let t = match catch_unwind(AssertUnwindSafe(|| translator::translate(&m, &opts))) {
                Ok(Ok(t)) => t,
                Ok(Err(_)) => continue,
                Err(p) => {
                    let what = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    let input = dir.join(format!("panic-{}.dxbc", panics.len()));
                    std::fs::write(&input, &m).unwrap();
                    panics.push(format!(
                        "{name} case {case} (input {}): panic: {what}",
                        input.display()
                    ));
                    continue;
                }
            };
            translated += 1;
            let mut h = DefaultHasher::new();
            (env.spirv_val_name(), &t.spirv).hash(&mut h);
            if !seen.insert(h.finish()) {
                continue;
            }
            let n = modules.len();
            let file = dir.join(format!("{n}.spv"));
            let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&file, bytes).unwrap();
            std::fs::write(dir.join(format!("{n}.dxbc")), &m).unwrap();
            modules.push(Module {
                file,
                env: env.spirv_val_name(),
                what: format!("{name} case {case}"),
            });
        }
    }

    std::panic::set_hook(prev_hook);

    let mut failures = validate_all(&modules);
    println!(
        "{total} mutated programs ({signature_cases} of the signature class): {translated} translated, {} distinct modules validated, {} invalid",
        modules.len(),
        failures.len()
    );
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        // Keep only the failing cases.
        let keep: HashSet<String> = failures
            .iter()
            .filter_map(|f| f.split("input ").nth(1))
            .filter_map(|f| f.split(')').next())
            .map(str::to_string)
            .collect();
        for m in &modules {
            let input = m.file.with_extension("dxbc");
            if !keep.contains(&input.display().to_string()) {
                let _ = std::fs::remove_file(&m.file);
                let _ = std::fs::remove_file(&input);
            }
        }
    }
    failures.extend(panics);
    assert!(total >= cases.min(50_000), "too few cases: {total}");
    assert!(
        failures.is_empty(),
        "{} invalid modules:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every system value D3D defines (`D3D_NAME` 0–25, and one it does not) on every signature
/// element of every hull, domain and geometry shader of the corpus and bench: each translation
/// is an error or a module spirv-val accepts. Patch-constant elements named `SV_Position`,
/// clip/cull distances or the layer/viewport indices must become plain patch locations.
#[test]
fn every_system_value_on_every_per_vertex_stage_element_gives_valid_spirv() {
    if shared_dir_or_skip().is_none() || !spirv_val_or_skip() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("translate-valid-sv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = Options::default();
    let (mut total, mut translated, mut patch_cases) = (0usize, 0usize, 0usize);
    let mut seen = HashSet::new();
    let mut modules = Vec::new();
    for (name, blob) in inputs() {
        let stage = translator::container::Container::parse(&blob)
            .ok()
            .and_then(|c| c.shader_version().ok())
            .map(|v| v.stage);
        use translator::container::ShaderStage as S;
        if !matches!(stage, Some(S::Hull | S::Domain | S::Geometry)) {
            continue;
        }
        for (field, tag) in signature_system_value_fields(&blob) {
            for value in (0..=25).chain([0x7fff_0001]) {
                let m = set_system_value(&blob, field, value);
                total += 1;
                if matches!(&tag, b"PCSG" | b"PSG1") {
                    patch_cases += 1;
                }
                let Ok(t) = translator::translate(&m, &opts) else {
                    continue;
                };
                translated += 1;
                let mut h = DefaultHasher::new();
                t.spirv.hash(&mut h);
                if !seen.insert(h.finish()) {
                    continue;
                }
                let file = dir.join(format!("{}.spv", modules.len()));
                let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&file, bytes).unwrap();
                std::fs::write(file.with_extension("dxbc"), &m).unwrap();
                modules.push(Module {
                    file,
                    env: TargetEnv::Vulkan1_3.spirv_val_name(),
                    what: format!(
                        "{name}: {} element at {field:#x} = system value {value}",
                        String::from_utf8_lossy(&tag)
                    ),
                });
            }
        }
    }
    let failures = validate_all(&modules);
    println!(
        "{total} system-value edits of hull/domain/geometry signatures ({patch_cases} on patch constants): {translated} translated, {} distinct modules validated, {} invalid",
        modules.len(),
        failures.len()
    );
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(total > 1000, "too few cases: {total}");
    assert!(
        failures.is_empty(),
        "{} invalid modules:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// spirv-val on every module, on every core; the failures, one line each.
fn validate_all(modules: &[Module]) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(m) = modules.get(i) else { break };
                    if let Err(e) = spirv_val(&m.file, m.env) {
                        let first = e.lines().next().unwrap_or_default().to_string();
                        failures.lock().unwrap().push(format!(
                            "{} ({}, input {}): {first}",
                            m.what,
                            m.env,
                            m.file.with_extension("dxbc").display()
                        ));
                    }
                }
            });
        }
    });
    failures.into_inner().unwrap()
}
