//! Every SPIR-V path the options D3D12 layers ask for (issue 27) passes spirv-val: each
//! shader of `../shared/corpus` and `../shared/bench` (DXBC and D3D9) and of `shaders/asm`,
//! translated the way a vkd3d-like layer would — every CBV, SRV and UAV in one mutable
//! descriptor-heap binding whose element is offset by a push-constant word per class, root
//! constants for `b0` beside those words, samplers and counters in bindings of their own,
//! raw/structured views and counters as texel buffers, output swizzles, typed UAV reads as
//! R32, the sample count as a constant, point size from every stage, all device features —
//! for Vulkan 1.0, 1.1 and 1.3; and again with dual-source blending and storage buffers.
//! A shader the default options translate must translate with these too (D3D9 programs get
//! static placements: they refuse dynamic offsets by design). Skips, saying so, without
//! spirv-val; the corpus part without `../shared`.

use std::path::PathBuf;

use integration_tests::{d3dbc_files, dxbc_files, repo_root, shared_dir, spirv_val};
use translator::binding::{Binding, Placement, RangeRequest, Resolver};
use translator::reflect::RegisterClass;
use translator::{Options, SwizzleComponent as C, TargetEnv};

/// A vkd3d-like heap: CBVs, SRVs and UAVs in set 0 binding 0 (mutable), each class's
/// elements offset by the push-constant word at 16 + 4 × class; samplers in binding 1
/// (offset by the word at 32), UAV counters in binding 2 (the UAVs' word); `b0` of space 0 in
/// push constants (bytes 0..16) when it is one register; the class-instance buffer and the
/// immediate constant buffer static. `dynamic`: false gives static placements and no push
/// constants (D3D9).
struct Heap {
    dynamic: bool,
}

impl Resolver for Heap {
    fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
        // (Direct3D 9's constant sets are never push constants.)
        if self.dynamic
            && r.class == RegisterClass::B
            && r.space == 0
            && r.lower == 0
            && r.upper == Some(0)
        {
            return Ok(Placement::PushConstant {
                offset: 0,
                size: 16,
            });
        }
        let internal = r.class == RegisterClass::B
            && (r.lower == translator::reflect::CLASS_INSTANCE_REGISTER || r.lower == 14);
        let class = match r.class {
            RegisterClass::B => 0,
            RegisterClass::T => 1,
            RegisterClass::U => 2,
            RegisterClass::S => 3,
        };
        let (binding, word) = match (r.class, r.counter) {
            (_, true) => (2, 16 + 4 * 2),
            (RegisterClass::S, _) => (1, 32),
            _ => (0, 16 + 4 * class),
        };
        // Registers of every space at distinct elements: space × 4096 + register.
        let base = (r.space % 64) * 4096 + r.lower % 4096;
        Ok(Placement::Descriptor {
            set: 0,
            binding: if internal { 3 + r.lower } else { binding },
            array_offset: base,
            dynamic_offset: (self.dynamic && !internal).then_some(word),
            mutable: binding == 0 && !internal,
        })
    }
}

fn inputs() -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    for p in std::fs::read_dir(repo_root().join("shaders/asm")).unwrap() {
        let p = p.unwrap().path();
        if p.extension().is_some_and(|x| x == "asm") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((
                p.display().to_string(),
                translator::asm::assemble(&text).unwrap(),
                false,
            ));
        }
    }
    match shared_dir() {
        Some(s) => {
            let files: Vec<PathBuf> = [s.join("corpus/dxbc"), s.join("bench/dxbc")]
                .iter()
                .flat_map(|d| dxbc_files(d))
                .collect();
            for f in files {
                out.push((f.display().to_string(), std::fs::read(&f).unwrap(), false));
            }
            for f in d3dbc_files(&s.join("corpus/d3dbc")) {
                out.push((f.display().to_string(), std::fs::read(&f).unwrap(), true));
            }
        }
        None => integration_tests::skip::skip_part(
            integration_tests::skip::CORPUS,
            integration_tests::skip::NO_CORPUS,
            "ran over shaders/asm only",
        ),
    }
    out
}

fn layer_options(env: TargetEnv, d3d9: bool, dual_source: bool) -> Options {
    Options {
        target_env: env,
        binding: Binding::from(Heap { dynamic: !d3d9 }),
        texel_buffers: if dual_source {
            Default::default()
        } else {
            translator::TexelBuffers::ALL
        },
        typed_uav_read: translator::TypedUavRead::R32,
        rasterizer_sample_count: Some(4),
        output_swizzles: vec![[C::W, C::X, C::Y, C::Z], [C::Z, C::Y, C::X, C::W]],
        dual_source_blending: dual_source,
        point_size: translator::PointSize::AllStages,
        device_features: Some(translator::DeviceFeatures::ALL),
        ..Default::default()
    }
}

#[test]
fn layer_options_pass_spirv_val() {
    if !integration_tests::spirv_val_or_skip() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("layer-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("m.spv");
    let mut validated = 0;
    let mut failures = Vec::new();
    for (name, bytes, d3d9) in inputs() {
        let runs = [
            (TargetEnv::Vulkan1_0, false),
            (TargetEnv::Vulkan1_1, false),
            (TargetEnv::Vulkan1_3, false),
            (TargetEnv::Vulkan1_3, true),
        ];
        for (env, dual) in runs {
            let plain = Options {
                target_env: env,
                ..Default::default()
            };
            if translator::translate(&bytes, &plain).is_err() {
                continue;
            }
            let opts = layer_options(env, d3d9, dual);
            let t = match translator::translate(&bytes, &opts) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{name} ({env:?}, dual {dual}): {e}"));
                    continue;
                }
            };
            let words: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&spv, words).unwrap();
            match spirv_val(&spv, env.spirv_val_name()) {
                Ok(()) => validated += 1,
                Err(e) => failures.push(format!("{name} ({env:?}, dual {dual}): {e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{validated} modules validated");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(validated > 0);
}
