//! Binding layouts and policies end to end, on SM5.1 programs: the DirectX docs' example
//! under its layout file (reflection states each range's D3D origin and Vulkan placement,
//! the module validates), every SM5.1 shader of the corpus and of `shaders/asm` under every
//! built-in policy and target environment (spirv-val), push constants, non-uniform indexing
//! capabilities, and clear errors (never panics) for unmapped registers and malformed
//! layouts. spirv-val checks and the corpus's shaders are skipped, recording why
//! (`integration_tests::skip`), where the tool or `../shared` is absent.

use std::path::PathBuf;

use integration_tests::{repo_root, shared_dir_or_narrow, spirv_val};
use translator::binding::{Binding, BindingLayout, BindingPolicy};
use translator::reflect::{DescriptorType, Reflection, RegisterClass};
use translator::{LowerError, Options, TargetEnv};

const ENVS: [TargetEnv; 3] = [
    TargetEnv::Vulkan1_1,
    TargetEnv::Vulkan1_2,
    TargetEnv::Vulkan1_3,
];

fn have_spirv_val() -> bool {
    integration_tests::spirv_val_or_narrow()
}

fn tmp_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("bindings-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn assemble(rel: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(repo_root().join(rel)).unwrap();
    translator::asm::assemble(&text).unwrap_or_else(|e| panic!("{rel}: {e:?}"))
}

/// Translates under `binding` for `env` and validates; the error says what failed.
fn translate_valid(
    dxbc: &[u8],
    binding: &Binding,
    env: TargetEnv,
    name: &str,
    validate: bool,
) -> Result<Reflection, String> {
    let opts = Options {
        target_env: env,
        binding: binding.clone(),
        ..Default::default()
    };
    let t = translator::translate(dxbc, &opts).map_err(|e| format!("translate: {e}"))?;
    if validate {
        let spv = tmp_dir().join(format!("{name}.spv"));
        let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&spv, bytes).unwrap();
        spirv_val(&spv, env.spirv_val_name()).map_err(|e| format!("spirv-val: {e}"))?;
    }
    Ok(t.reflection)
}

fn docs_layout() -> Binding {
    let text =
        std::fs::read_to_string(repo_root().join("shaders/runtime/bindings/docs-example.toml"))
            .unwrap();
    BindingLayout::from_toml(&text).unwrap().into()
}

#[test]
fn docs_example_under_its_layout() {
    let dxbc = assemble("shaders/asm/docs_ps51.asm");
    let validate = have_spirv_val();
    for env in ENVS {
        let r = translate_valid(&dxbc, &docs_layout(), env, "docs", validate)
            .unwrap_or_else(|e| panic!("{env:?}: {e}"));
        // (class, space, lower, upper, range ID) -> (set, binding, array offset, count).
        let got: Vec<_> = r
            .descriptors
            .iter()
            .map(|d| {
                let o = &d.origin;
                (
                    (
                        o.class,
                        o.space,
                        o.lower,
                        o.upper,
                        o.range_id,
                        o.uav_counter,
                    ),
                    (d.set, d.binding, d.array_offset, d.count, d.descriptor_type),
                )
            })
            .collect();
        use DescriptorType as D;
        use RegisterClass as C;
        assert_eq!(
            got,
            vec![
                (
                    (C::S, 0, 5, Some(5), 0, false),
                    (0, 0, 0, Some(1), D::Sampler)
                ),
                (
                    (C::T, 0, 5, Some(5), 0, false),
                    (0, 1, 0, Some(1), D::SampledImage)
                ),
                (
                    (C::T, 1, 0, Some(7), 2, false),
                    (0, 2, 0, Some(8), D::SampledImage)
                ),
                (
                    (C::T, 0, 10, None, 1, false),
                    (1, 0, 3, None, D::SampledImage)
                ),
            ],
            "{env:?}"
        );
        for cap in ["RuntimeDescriptorArray", "SampledImageArrayDynamicIndexing"] {
            assert!(
                r.capabilities.iter().any(|c| c == cap),
                "{cap}: {:?}",
                r.capabilities
            );
        }
        for f in [
            "runtimeDescriptorArray",
            "shaderSampledImageArrayDynamicIndexing",
        ] {
            assert!(r.vulkan_features.iter().any(|c| c == f), "{f}");
        }
        assert!(
            r.push_constants.is_empty(),
            "no push constants: {:?}",
            r.push_constants
        );
    }
}

/// Every SM5.1 program: the corpus's (by manifest) and the assembly files'.
fn sm51_programs() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for f in ["shaders/asm/docs_ps51.asm", "shaders/asm/sm51_ranges.asm"] {
        out.push((f.to_string(), assemble(f)));
    }
    let Some(shared) = shared_dir_or_narrow("the shaders/asm programs") else {
        return out;
    };
    let manifest = std::fs::read_to_string(shared.join("corpus/manifest.jsonl")).unwrap();
    let mut corpus = 0;
    for line in manifest.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["model"] == "5.1" && v["kind"] == "dxbc-shader" {
            let file = v["file"].as_str().unwrap();
            let bytes = std::fs::read(shared.join("corpus").join(file)).unwrap();
            out.push((file.to_string(), bytes));
            corpus += 1;
        }
    }
    assert!(corpus >= 2, "the corpus lists {corpus} SM5.1 shaders");
    out
}

#[test]
fn sm51_programs_under_every_policy() {
    let validate = have_spirv_val();
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, dxbc) in sm51_programs() {
        for p in BindingPolicy::ALL {
            for env in ENVS {
                let tag = format!("{}-{}-{env:?}", name.replace('/', "_"), p.name());
                match translate_valid(&dxbc, &p.into(), env, &tag, validate) {
                    Ok(r) => {
                        passed += 1;
                        // Every descriptor states where it came from and where it went.
                        for d in &r.descriptors {
                            if p == BindingPolicy::Vkd3d {
                                assert_eq!(d.set, 0, "{tag}");
                            } else {
                                assert_eq!(d.set, d.origin.space, "{tag}");
                            }
                        }
                    }
                    Err(e) => failures.push(format!("{tag}: {e}")),
                }
            }
        }
    }
    println!("{passed} SM5.1 translations validate");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn push_constants_and_non_uniform_indexing() {
    let text = "\
ps_5_1
.input TEXCOORD 0 v0.x uint
.output SV_Target 0 o0 float
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[0:0][1], immediateIndexed, space=0
dcl_constantbuffer CB1[3:3][2], dynamicIndexed, space=2
dcl_constantbuffer CB2[0:7][1], immediateIndexed, space=1
dcl_input_ps constant v0.x
dcl_output o0.xyzw
dcl_temps 1
mov r0.xyzw, CB1[3][v0.x + 0].xyzw
add r0.xyzw, r0.xyzw, CB0[0][0].xyzw
add o0.xyzw, r0.xyzw, CB2[v0.x + 0][0].xyzw {nonuniform}
ret
";
    let dxbc = translator::asm::assemble(text).unwrap();
    let layout = BindingLayout::from_toml(
        "[[push_constants]]\nspace = 2\nregister = 3\noffset = 16\nsize = 20\n\
         [[push_constants]]\nregister = 0\noffset = 0\nsize = 16\n\
         [[descriptors]]\nclass = \"b\"\nspace = 1\ncount = 8\nset = 4\nbinding = 2\n",
    )
    .unwrap();
    let validate = have_spirv_val();
    for env in ENVS {
        let r = translate_valid(&dxbc, &layout.clone().into(), env, "push", validate)
            .unwrap_or_else(|e| panic!("{env:?}: {e}"));
        let pcs: Vec<_> = r
            .push_constants
            .iter()
            .map(|p| (p.offset, p.size, p.space, p.register))
            .collect();
        assert_eq!(pcs, vec![(0, 16, 0, 0), (16, 20, 2, 3)]);
        assert_eq!(r.descriptors.len(), 1);
        let d = &r.descriptors[0];
        assert_eq!((d.set, d.binding, d.count), (4, 2, Some(8)));
        for cap in ["ShaderNonUniform", "UniformBufferArrayNonUniformIndexing"] {
            assert!(
                r.capabilities.iter().any(|c| c == cap),
                "{cap}: {:?}",
                r.capabilities
            );
        }
        assert!(
            r.vulkan_features
                .iter()
                .any(|f| f == "shaderUniformBufferArrayNonUniformIndexing")
        );
        if env == TargetEnv::Vulkan1_1 {
            assert!(
                r.extensions
                    .iter()
                    .any(|e| e == "SPV_EXT_descriptor_indexing")
            );
        }
    }
    // The same b0 as an array cannot be push constants.
    let arr = text.replace("CB0[0:0][1]", "CB0[0:1][1]");
    let e = translator::translate(
        &translator::asm::assemble(&arr).unwrap(),
        &Options {
            binding: layout.into(),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no binding for b0..b1 in space 0"), "{e}");
}

#[test]
fn unmapped_registers_are_errors_naming_them() {
    let dxbc = assemble("shaders/asm/docs_ps51.asm");
    // The layout file without its rule for t0..t7 of space 1.
    let text =
        std::fs::read_to_string(repo_root().join("shaders/runtime/bindings/docs-example.toml"))
            .unwrap();
    let cut = text.find("# tex2[8]").unwrap();
    let partial = BindingLayout::from_toml(&text[..cut]).unwrap();
    let err = translator::translate(
        &dxbc,
        &Options {
            binding: partial.into(),
            ..Default::default()
        },
    )
    .unwrap_err();
    match &err {
        translator::Error::Lower(LowerError::Binding { error, offset }) => {
            assert_eq!((error.class, error.register, error.space), ('t', 0, 1));
            assert!(*offset > 0);
        }
        e => panic!("{e:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains(
            "no binding for t0..t7 in space 1: no descriptor rule of the layout covers it"
        ),
        "{msg}"
    );
}

#[test]
fn hostile_layouts_and_programs_never_panic() {
    // Programs with ranges at the edges of the register space, under layouts with large
    // offsets: errors or modules, never panics.
    let base = std::fs::read_to_string(repo_root().join("shaders/asm/docs_ps51.asm")).unwrap();
    let variants = [
        base.replace("T2[0:7], space=1", "T2[0:4294967294], space=1"),
        base.replace("T2[0:7], space=1", "T2[4294967294:4294967294], space=4294967295"),
        base.replace("T0[5:5]", "T0[7:5]"),
        base.replace("dcl_sampler S0[5:5], mode_default, space=0", "dcl_sampler S0[5:5], mode_default, space=0\ndcl_sampler S0[6:6], mode_default, space=0"),
    ];
    let layouts = [
        "[[descriptors]]\nclass = \"t\"\ncount = \"unbounded\"\nset = 0\nbinding = 0\narray_offset = 4294967295\n\
         [[descriptors]]\nclass = \"t\"\nspace = 1\ncount = \"unbounded\"\nset = 0\nbinding = 0\n\
         [[descriptors]]\nclass = \"s\"\ncount = \"unbounded\"\nset = 0\nbinding = 1\n",
        "[[descriptors]]\nclass = \"t\"\nspace = 4294967295\nregister = 4294967294\nset = 4294967295\nbinding = 4294967295\n",
    ];
    for v in &variants {
        let Ok(dxbc) = translator::asm::assemble(v) else {
            continue;
        };
        for l in layouts {
            let b: Binding = BindingLayout::from_toml(l).unwrap().into();
            let _ = translator::translate(
                &dxbc,
                &Options {
                    binding: b,
                    ..Default::default()
                },
            );
        }
        for p in BindingPolicy::ALL {
            let _ = translator::translate(
                &dxbc,
                &Options {
                    binding: p.into(),
                    ..Default::default()
                },
            );
        }
    }
}
