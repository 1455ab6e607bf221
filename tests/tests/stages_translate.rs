//! Geometry, hull and domain shaders of `../shared/corpus` and `../shared/bench`: every one
//! translates to SPIR-V that `spirv-val` accepts (Vulkan 1.3 and 1.1), and the translations
//! carry what the stages need to work together: tessellator modes with D3D's winding, tess
//! factors in `TessLevelOuter`/`TessLevelInner`, hull and domain shader locations that agree,
//! geometry streams. Skips (recording why: `integration_tests::skip`) when `../shared` or
//! `spirv-val` is absent.

use std::path::{Path, PathBuf};

use integration_tests::{dxbc_files, shared_dir_or_skip, spirv_val, spirv_val_or_skip, stage_of};
use translator::reflect::{InterfacePlacement, Reflection};
use translator::{Options, TargetEnv};

/// `../shared`, when it and spirv-val are there.
fn setup() -> Option<PathBuf> {
    let shared = shared_dir_or_skip()?;
    spirv_val_or_skip().then_some(shared)
}

/// Translates and validates every GS/HS/DS file; returns the failures and the count per stage.
fn sweep(files: &[PathBuf], env: TargetEnv, out: &Path) -> (Vec<String>, [usize; 3]) {
    std::fs::create_dir_all(out).unwrap();
    let opts = Options {
        target_env: env,
        ..Default::default()
    };
    let mut failures = Vec::new();
    let mut counts = [0; 3];
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        let slot = match stage_of(&bytes) {
            Some("gs") => 0,
            Some("hs") => 1,
            Some("ds") => 2,
            _ => continue,
        };
        counts[slot] += 1;
        match translator::translate(&bytes, &opts) {
            Err(e) => failures.push(format!("{}: translate: {e}", f.display())),
            Ok(t) => {
                let name = f.file_stem().unwrap().to_string_lossy().into_owned();
                let spv = out.join(format!("{name}.spv"));
                let words: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&spv, words).unwrap();
                if let Err(e) = spirv_val(&spv, env.spirv_val_name()) {
                    failures.push(format!(
                        "{}: spirv-val: {}",
                        f.display(),
                        e.lines().next().unwrap_or("")
                    ));
                }
            }
        }
    }
    (failures, counts)
}

#[test]
fn corpus_and_bench_gs_hs_ds_translate_and_validate() {
    let Some(shared) = setup() else { return };
    let target = integration_tests::repo_root().join("target/stages-spv");
    for (what, dir, min) in [
        ("corpus", "corpus/dxbc", [15, 4, 3]),
        ("bench", "bench/dxbc", [2, 2, 2]),
    ] {
        let files = dxbc_files(&shared.join(dir));
        for env in [TargetEnv::Vulkan1_3, TargetEnv::Vulkan1_1] {
            let (failures, counts) =
                sweep(&files, env, &target.join(what).join(env.spirv_val_name()));
            println!(
                "{what} ({}): {} GS, {} HS, {} DS; {} failed",
                env.spirv_val_name(),
                counts[0],
                counts[1],
                counts[2],
                failures.len()
            );
            for f in &failures {
                println!("  {f}");
            }
            for (stage, (n, m)) in ["GS", "HS", "DS"].iter().zip(counts.iter().zip(min)) {
                assert!(
                    *n >= m,
                    "{what}: expected at least {m} {stage} files, found {n}"
                );
            }
            assert!(
                failures.is_empty(),
                "{} {what} GS/HS/DS files failed",
                failures.len()
            );
        }
    }
}

fn translate(path: &Path) -> translator::Translation {
    let bytes = std::fs::read(path).unwrap();
    translator::translate(&bytes, &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The module's SPIR-V text (spirv-dis), for checking execution modes.
fn disassemble(t: &translator::Translation, name: &str) -> String {
    let dir = integration_tests::repo_root().join("target/stages-spv/checks");
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join(format!("{name}.spv"));
    let words: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&spv, words).unwrap();
    let out = std::process::Command::new("spirv-dis")
        .arg(&spv)
        .output()
        .expect("spirv-dis runs (spirv-tools is installed with spirv-val)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn modes(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("OpExecutionMode "))
        .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
        .collect()
}

fn builtins(list: &[translator::reflect::InterfaceVar]) -> Vec<String> {
    list.iter()
        .filter_map(|v| match &v.placement {
            InterfacePlacement::BuiltIn { builtin } => Some(builtin.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn hull_shader_modes_winding_and_tess_factors() {
    let Some(shared) = setup() else { return };
    let dir = shared.join("corpus/dxbc/wine-d3d11-d3d11");
    for (file, winding) in [
        (
            "test_quad_tessellation__hs_quad_cw_code.dxbc",
            "VertexOrderCw",
        ),
        (
            "test_quad_tessellation__hs_quad_ccw_code.dxbc",
            "VertexOrderCcw",
        ),
    ] {
        let t = translate(&dir.join(file));
        let m = modes(&disassemble(&t, file));
        for want in ["Quads", "OutputVertices 4", "SpacingEqual", winding] {
            assert!(m.iter().any(|x| x == want), "{file}: no {want} in {m:?}");
        }
        // Six fork phases write the factors: 4 edges, 2 inside, each a patch constant and a
        // tess level.
        let r: &Reflection = &t.reflection;
        let b = builtins(&r.patch_constants);
        assert_eq!(
            b.iter().filter(|x| *x == "TessLevelOuter").count(),
            4,
            "{file}: {b:?}"
        );
        assert_eq!(
            b.iter().filter(|x| *x == "TessLevelInner").count(),
            2,
            "{file}: {b:?}"
        );
        assert!(r.vulkan_features.iter().any(|f| f == "tessellationShader"));
    }
    // pow2 partitioning is integer partitioning for the tessellator.
    let t = translate(&dir.join("test_clip_distance__hs_code.dxbc"));
    let m = modes(&disassemble(&t, "clip_distance_hs"));
    assert!(m.iter().any(|x| x == "SpacingEqual"), "{m:?}");
}

/// Locations of the Location-placed elements, by semantic name and index.
fn locations(list: &[translator::reflect::InterfaceVar]) -> Vec<(String, u32, u32)> {
    let mut v: Vec<_> = list
        .iter()
        .filter_map(|e| match e.placement {
            InterfacePlacement::Location { location, .. } => Some((
                e.semantic_name.to_ascii_uppercase(),
                e.semantic_index,
                location,
            )),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn hull_and_domain_shader_locations_agree() {
    let Some(shared) = setup() else { return };
    let pairs = [
        ("bench/dxbc/hs50_tri.dxbc", "bench/dxbc/ds50_tri.dxbc"),
        ("bench/dxbc/hs50_quad.dxbc", "bench/dxbc/ds50_quad.dxbc"),
        (
            "corpus/dxbc/wine-d3d11-d3d11/test_clip_distance__hs_code.dxbc",
            "corpus/dxbc/wine-d3d11-d3d11/test_clip_distance__ds_code.dxbc",
        ),
    ];
    for (hs, ds) in pairs {
        let h = translate(&shared.join(hs)).reflection;
        let d = translate(&shared.join(ds)).reflection;
        // Every control point the domain shader reads at a location is written there.
        let written = locations(&h.outputs);
        for e in locations(&d.inputs) {
            assert!(
                written.contains(&e),
                "{ds} reads {e:?}, {hs} writes {written:?}"
            );
        }
        // Patch constants likewise; tess factors reach the domain shader at locations too.
        let written = locations(&h.patch_constants);
        for e in locations(&d.patch_constants) {
            assert!(
                written.contains(&e),
                "{ds} reads {e:?}, {hs} writes {written:?}"
            );
        }
        assert!(!written.is_empty(), "{hs}: patch constants at locations");
        // Patch-constant locations follow the control-point ones.
        let cp_max = locations(&h.outputs).iter().map(|e| e.2).max().unwrap_or(0);
        assert!(
            written.iter().all(|e| e.2 > cp_max),
            "{hs}: {written:?} overlaps control points"
        );
    }
}

#[test]
fn geometry_shader_streams_and_instancing() {
    let Some(shared) = setup() else { return };
    let dir = shared.join("corpus/dxbc/wine-d3d11-d3d11");
    // Four streams of points, each with an o0 of its own at distinct locations.
    let t = translate(&dir.join("test_so_statistics_query__gs_code.dxbc"));
    let r = &t.reflection;
    assert!(
        r.capabilities.iter().any(|c| c == "GeometryStreams"),
        "{:?}",
        r.capabilities
    );
    assert!(r.vulkan_features.iter().any(|f| f == "geometryStreams"));
    let locs: Vec<u32> = locations(&r.outputs).iter().map(|e| e.2).collect();
    let mut unique = locs.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        (locs.len(), unique.len()),
        (4, 4),
        "stream outputs at {locs:?}"
    );
    let text = disassemble(&t, "so_statistics");
    assert_eq!(text.matches("OpEmitStreamVertex").count(), 4);
    assert_eq!(text.matches("Stream ").count(), 4, "Stream decorations");
    // One stream: plain EmitVertex, no GeometryStreams; instancing.
    let t = translate(&dir.join("test_layered_rendering__gs_5_code.dxbc"));
    let text = disassemble(&t, "layered_gs5");
    let m = modes(&text);
    for want in [
        "Triangles",
        "OutputTriangleStrip",
        "OutputVertices 3",
        "Invocations 4",
    ] {
        assert!(m.iter().any(|x| x == want), "no {want} in {m:?}");
    }
    assert!(text.contains("OpEmitVertex") && !text.contains("GeometryStreams"));
    assert!(builtins(&t.reflection.outputs).iter().any(|b| b == "Layer"));
}
