//! Corpus sweep: every VS/PS/CS shader of `../shared/corpus` and `../shared/bench` translates
//! to SPIR-V that `spirv-val` accepts, for Vulkan 1.3 and Vulkan 1.1.
//!
//! Failures are grouped by reason and printed; the test requires every corpus and bench
//! shader to pass for both targets (issue 13's acceptance: no valid shader refused), the
//! class-linkage program (`dcl_interface`, `fcall`) by name. The GS/HS/DS files are swept by
//! `stages_translate.rs`. Skips (recording why: `integration_tests::skip`) when `../shared` or
//! `spirv-val` is absent; the denormal-flush check then runs over the bundled examples only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use integration_tests::{
    dxbc_files, shared_dir_or_narrow, shared_dir_or_skip, spirv_val, spirv_val_or_skip, stage_of,
};
use translator::{Options, TargetEnv};

struct Outcome {
    total: usize,
    passed: usize,
    /// The files that translated and validated.
    passed_files: Vec<PathBuf>,
    failures: BTreeMap<String, Vec<String>>,
    /// Failures other than a translator error of kind `Unsupported` (a module spirv-val
    /// rejects, an internal error, a program called invalid), as "file: reason".
    not_unsupported: Vec<String>,
}

fn sweep(files: &[PathBuf], stages: &[&str], env: TargetEnv, out_dir: &Path) -> Outcome {
    let mut o = Outcome {
        total: 0,
        passed: 0,
        passed_files: Vec::new(),
        failures: BTreeMap::new(),
        not_unsupported: Vec::new(),
    };
    std::fs::create_dir_all(out_dir).unwrap();
    let opts = Options {
        target_env: env,
        ..Default::default()
    };
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        let Some(stage) = stage_of(&bytes) else {
            continue;
        };
        if !stages.contains(&stage) {
            continue;
        }
        o.total += 1;
        let name = f.display().to_string();
        match translator::translate(&bytes, &opts) {
            Err(e) => {
                let msg = e.to_string();
                if !e.is_unsupported() {
                    o.not_unsupported.push(format!("{name}: {msg}"));
                }
                let key = msg
                    .split(" at byte offset")
                    .next()
                    .unwrap_or(&msg)
                    .to_string();
                o.failures
                    .entry(format!("translate: {key}"))
                    .or_default()
                    .push(name);
            }
            Ok(t) => {
                let spv = out_dir.join(format!(
                    "{}.spv",
                    f.file_stem()
                        .unwrap()
                        .to_string_lossy()
                        .replace(['/', ' '], "_")
                ));
                let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&spv, bytes).unwrap();
                match spirv_val(&spv, env.spirv_val_name()) {
                    Ok(()) => {
                        o.passed += 1;
                        o.passed_files.push(f.clone());
                    }
                    Err(msg) => {
                        let first = msg.lines().next().unwrap_or("").to_string();
                        o.not_unsupported
                            .push(format!("{name}: spirv-val: {first}"));
                        o.failures
                            .entry(format!("spirv-val: {first}"))
                            .or_default()
                            .push(name);
                    }
                }
            }
        }
    }
    o
}

fn report(what: &str, o: &Outcome) {
    println!("{what}: {}/{} translate and validate", o.passed, o.total);
    for (k, v) in &o.failures {
        println!("  {} × {k}", v.len());
        for f in v.iter().take(3) {
            println!("      {f}");
        }
    }
}

/// The corpus's class-linkage program (a pixel shader with `dcl_interface` and `fcall`).
const CLASS_LINKAGE: &str =
    "wine-d3dcompiler_43-reflection/test_reflection_constant_buffer_blob.dxbc";

#[test]
fn corpus_vs_ps_cs_translate_and_validate() {
    let Some(shared) = shared_dir_or_skip() else {
        return;
    };
    if !spirv_val_or_skip() {
        return;
    }
    let files = dxbc_files(&shared.join("corpus/dxbc"));
    let target = integration_tests::repo_root().join("target/corpus-spv");
    let mut outcomes = Vec::new();
    for env in [TargetEnv::Vulkan1_3, TargetEnv::Vulkan1_1] {
        let o = sweep(
            &files,
            &["vs", "ps", "cs"],
            env,
            &target.join(env.spirv_val_name()),
        );
        report(&format!("corpus ({})", env.spirv_val_name()), &o);
        outcomes.push((env, o));
    }
    for (env, o) in outcomes {
        assert!(
            o.total > 200,
            "expected the VS/PS/CS corpus, found {}",
            o.total
        );
        // Not even an unsupported-feature error: every valid program translates.
        let bad = &o.not_unsupported;
        assert!(
            bad.is_empty(),
            "{}: failures other than unsupported features: {bad:?}",
            env.spirv_val_name()
        );
        assert_eq!(
            o.passed,
            o.total,
            "{}: every corpus VS/PS/CS shader must translate and validate ({:?})",
            env.spirv_val_name(),
            o.failures
        );
        // The one class-linkage program of the corpus (interfaces, `fcall`, `this`).
        assert!(
            o.passed_files.iter().any(|f| f.ends_with(CLASS_LINKAGE)),
            "{}: the class-linkage program {CLASS_LINKAGE} did not pass",
            env.spirv_val_name()
        );
    }
}

#[test]
fn bench_vs_ps_cs_translate_and_validate() {
    let Some(shared) = shared_dir_or_skip() else {
        return;
    };
    if !spirv_val_or_skip() {
        return;
    }
    let files = dxbc_files(&shared.join("bench/dxbc"));
    let target = integration_tests::repo_root().join("target/bench-spv");
    for env in [TargetEnv::Vulkan1_3, TargetEnv::Vulkan1_1] {
        let o = sweep(
            &files,
            &["vs", "ps", "cs"],
            env,
            &target.join(env.spirv_val_name()),
        );
        report(&format!("bench ({})", env.spirv_val_name()), &o);
        assert!(o.total >= 20);
        assert_eq!(
            o.passed,
            o.total,
            "every bench VS/PS/CS shader must translate and validate for {}",
            env.spirv_val_name()
        );
    }
}

#[test]
fn denorm_flush_option_validates_for_every_target() {
    if !spirv_val_or_skip() {
        return;
    }
    // The bundled examples always; the bench's shaders where `../shared` is.
    let mut inputs: Vec<(String, Vec<u8>)> =
        dxbc_files(&integration_tests::repo_root().join("shaders/examples"))
            .iter()
            .map(|f| (f.display().to_string(), std::fs::read(f).unwrap()))
            .collect();
    if let Some(shared) = shared_dir_or_narrow("the bundled examples") {
        for name in ["ps40_mathfuncs", "cs50_reduction", "vs40_transform"] {
            let f = shared.join(format!("bench/dxbc/{name}.dxbc"));
            inputs.push((name.to_string(), std::fs::read(f).unwrap()));
        }
    }
    let out = integration_tests::repo_root().join("target/denorm-spv");
    std::fs::create_dir_all(&out).unwrap();
    for env in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        for (n, (name, bytes)) in inputs.iter().enumerate() {
            let opts = Options {
                target_env: env,
                denorm_flush_f32: true,
                ..Default::default()
            };
            let t = translator::translate(bytes, &opts).unwrap();
            assert!(
                t.reflection
                    .vulkan_features
                    .iter()
                    .any(|f| f == "shaderDenormFlushToZeroFloat32"),
                "{name}"
            );
            let spv = out.join(format!("{n}-{}.spv", env.spirv_val_name()));
            std::fs::write(
                &spv,
                t.spirv
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect::<Vec<u8>>(),
            )
            .unwrap();
            spirv_val(&spv, env.spirv_val_name())
                .unwrap_or_else(|e| panic!("{name} {}: {e}", env.spirv_val_name()));
        }
    }
}
