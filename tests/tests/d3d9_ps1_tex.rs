//! ps_1_x texture addressing (`lower_d3d9::ps1_tex`): a program per instruction form, and the
//! ps_1_x listings under `shaders/d3d9`, translate to SPIR-V that `spirv-val` accepts for
//! Vulkan 1.1 and 1.3, with split and with combined samplers. (The arithmetic is checked in
//! the translator's unit tests; this checks the modules are valid.) Skips (recording why:
//! `integration_tests::skip`) when `spirv-val` is absent.

use integration_tests::{repo_root, spirv_val};
use translator::{D3d9Options, Options, TargetEnv};

/// One program per instruction form.
const PROGRAMS: &[&str] = &[
    "ps_1_1\ntex t0\ntexcoord t1\nadd r0, t0, t1\n",
    "ps_1_1\ntex t0\ntexbem t1, t0\ntexbeml t2, t0\nadd r0, t1, t2\n",
    "ps_1_1\ntex t0\ntexreg2ar t1, t0\ntexreg2gb t2, t0\nadd r0, t1, t2\n",
    "ps_1_2\ntex t0\ntexreg2rgb t1, t0\nmov r0, t1\n",
    "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n",
    "ps_1_3\ntex t0\ntexm3x2pad t1, t0_bx2\ntexm3x2depth t2, t0_bx2\nmov r0, t0\n",
    "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\nmov r0, t3\n",
    "ps_1_2\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3 t3, t0\nmov r0, t3\n",
    "ps_1_3\ndef c0, 0.0, 0.6, 0.8, 0.0\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\n\
     texm3x3spec t3, t0, c0\nmov r0, t3\n",
    "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3spec t3, t0, c5\nmov r0, t3\n",
    "ps_1_1\ntex t0\ntexm3x3pad t1, t0_bx2\ntexm3x3pad t2, t0_bx2\ntexm3x3vspec t3, t0_bx2\n\
     mov r0, t3\n",
    "ps_1_2\ntex t0\ntexdp3 t1, t0\ntexdp3tex t2, t0\nadd r0, t1, t2\n",
    "ps_1_4\ntexld r0, t0_dz\ntexcrd r1.xyz, t1_dw.xyw\nbem r2.xy, r0, r1\nphase\n\
     texld r2, r2\ntexcrd r5.xyz, t3\ntexdepth r5\nadd r0, r2, r1\n",
    "ps_1_4\ntexld r0, t0\ntexld r1, t1.xyw\ntexkill t2\nmul r0, r0, r1\n",
];

#[test]
fn ps1_texture_addressing_validates() {
    if !integration_tests::spirv_val_or_skip() {
        return;
    }
    let mut sources: Vec<(String, String)> = PROGRAMS
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("program {i}"), p.to_string()))
        .collect();
    let dir = repo_root().join("shaders/d3d9");
    let mut listings: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ps_1_") && n.ends_with(".asm"))
        })
        .collect();
    listings.sort();
    assert!(
        listings.len() >= 5,
        "the ps_1_x listings in {}",
        dir.display()
    );
    for l in listings {
        sources.push((
            l.display().to_string(),
            std::fs::read_to_string(&l).unwrap(),
        ));
    }
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("d3d9-ps1-tex");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = Vec::new();
    for (name, src) in &sources {
        let bytes = translator::d3dbc::asm::assemble(src)
            .unwrap_or_else(|e| panic!("{name} does not assemble: {e}"));
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            for combined in [false, true] {
                let opts = Options {
                    target_env: env,
                    d3d9: D3d9Options {
                        combined_samplers: combined,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let t = match translator::translate(&bytes, &opts) {
                    Ok(t) => t,
                    Err(e) => {
                        failures.push(format!("{name}: {e}"));
                        continue;
                    }
                };
                let out = tmp.join("module.spv");
                let words: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&out, words).unwrap();
                if let Err(e) = spirv_val(&out, env.spirv_val_name()) {
                    failures.push(format!(
                        "{name} ({}, combined {combined}): {e}",
                        env.spirv_val_name()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
