//! The stand-in's own `vkd3d_shader_scan` of DXBC and Direct3D 9 bytecode, and the scan
//! outputs a compile is asked for: without the real library (its path points nowhere, so any
//! forwarding would fail), assembled shaders report every descriptor, flag, resource-sampler
//! pair, thread-group size and tessellator declaration as vkd3d_shader.h defines them. Then
//! every shader of the corpus is scanned by both the stand-in and the real library (a C
//! program built against Debian unstable's vkd3d 2.x, `tests/c/scan.c`, run under the root's
//! loader), and the reports must be equal wherever the real library scans the shader at all.
//! The comparison is skipped, saying so, when the root cannot be had or no C compiler runs.

mod common;

use std::ffi::c_void;

use vkd3d_shader_shim::abi::*;
use vkd3d_shader_shim::exports::*;

/// The API version the comparison asks for (vkd3d 2.1's, `VKD3D_SHADER_API_VERSION_1_19`;
/// samplers then have data type `NONE`).
const API_CURRENT: u32 = 19;

/// The stand-in's scan of `bytes`, printed as `tests/c/scan.c` prints the real library's;
/// `Err(result)` when it fails.
fn ours(bytes: &[u8], d3d9: bool, api: u32) -> Result<String, i32> {
    no_real_library();
    let mut group = ScanThreadGroupSizeInfo {
        ty: STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO,
        next: std::ptr::null(),
        x: 7,
        y: 7,
        z: 7,
    };
    let mut tess = ScanHullShaderTessellationInfo {
        ty: STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO,
        next: (&raw mut group).cast::<c_void>(),
        output_primitive: 7,
        partitioning: 7,
    };
    let mut pairs = ScanCombinedResourceSamplerInfo {
        ty: STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO,
        next: (&raw mut tess).cast::<c_void>(),
        combined_samplers: std::ptr::null_mut(),
        combined_sampler_count: 0,
    };
    let mut descriptors = ScanDescriptorInfo {
        ty: STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO,
        next: (&raw mut pairs).cast::<c_void>(),
        descriptors: std::ptr::null_mut(),
        descriptor_count: 0,
    };
    let option = CompileOption {
        name: OPTION_API_VERSION,
        value: api,
    };
    let source_type = if d3d9 {
        SOURCE_D3D_BYTECODE
    } else {
        SOURCE_DXBC_TPF
    };
    let info = common::with_options(
        common::compile_info(bytes, source_type, (&raw mut descriptors).cast()),
        std::slice::from_ref(&option),
    );
    // SAFETY: every structure lives across the call.
    let rc = unsafe { dxbc_spirv_shim_scan(&info, std::ptr::null_mut()) };
    if rc < 0 {
        return Err(rc);
    }
    let mut out = String::new();
    // SAFETY: the scan's arrays, of their counts.
    unsafe {
        for k in 0..descriptors.descriptor_count as usize {
            let d = *descriptors.descriptors.add(k);
            out += &format!(
                "d {} {} {} {} {} {} {}\n",
                d.ty,
                d.register_space,
                d.register_index,
                d.resource_type,
                d.resource_data_type,
                d.flags,
                d.count
            );
        }
        for k in 0..pairs.combined_sampler_count as usize {
            let c = *pairs.combined_samplers.add(k);
            out += &format!(
                "c {} {} {} {}\n",
                c.resource_space, c.resource_index, c.sampler_space, c.sampler_index
            );
        }
        dxbc_spirv_shim_free_scan_descriptor_info(&mut descriptors);
        dxbc_spirv_shim_free_scan_combined_resource_sampler_info(&mut pairs);
    }
    assert!(descriptors.descriptors.is_null() && pairs.combined_samplers.is_null());
    out += &format!("t {} {} {}\n", group.x, group.y, group.z);
    out += &format!("h {} {}\n", tess.output_primitive, tess.partitioning);
    Ok(out)
}

/// Points the stand-in's real-library lookup nowhere, so that nothing here can forward.
fn no_real_library() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: set once, before any thread of this binary looks the real library up.
    ONCE.call_once(|| unsafe {
        std::env::set_var(
            vkd3d_shader_shim::real::ENV_PATH,
            "/nonexistent/libvkd3d-shader.so.1",
        )
    });
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

#[test]
fn dxbc_declarations_and_uses() {
    let text = "cs_5_0\n\
        dcl_globalFlags refactoringAllowed\n\
        dcl_constantbuffer cb1[3], immediateIndexed\n\
        dcl_sampler s2, mode_comparison\n\
        dcl_sampler s3, mode_default\n\
        dcl_resource_texture2d (sint,sint,sint,sint) t4\n\
        dcl_resource_buffer (float,float,float,float) t6\n\
        dcl_resource_raw t7\n\
        dcl_resource_structured t5, 12\n\
        dcl_uav_typed_texture2d (float,float,float,float) u0\n\
        dcl_uav_raw u1\n\
        dcl_uav_structured u2, 8\n\
        dcl_uav_typed_buffer (uint,uint,uint,uint) u3\n\
        dcl_temps 2\n\
        dcl_thread_group 8, 4, 2\n\
        ld_uav_typed r0.xyzw, l(0, 0, 0, 0), u0.xyzw\n\
        atomic_iadd u1, l(0), l(1)\n\
        imm_atomic_alloc r0.x, u2\n\
        store_uav_typed u3.xyzw, l(0, 0, 0, 0), r0.xyzw\n\
        sample_c_lz r1.x, l(0, 0, 0, 0), t4.x, s2, l(0.5)\n\
        ld r1.xyzw, l(0, 0, 0, 0), t4.xyzw\n\
        ld r1.xyzw, l(0, 0, 0, 0), t6.xyzw\n\
        resinfo r1.xyzw, l(0), t4.xyzw\n\
        ld_raw r1.x, l(0), t7.x\n\
        ld_structured r1.x, l(0), l(0), t5.x\n\
        ld_raw r1.x, l(0), u1.x\n\
        ret\n";
    let dxbc = translator::asm::assemble(text).expect("assembles");
    let got = ours(&dxbc, false, API_CURRENT).expect("scans");
    // Declarations in order; flags from use: u0 read, u1 read and atomics (and raw), u2
    // read, atomics... no: a counter instruction reads it and sets its counter flag (its
    // destination is r0, so no atomics flag); u3 only written.
    assert_eq!(
        lines(&got),
        [
            "d 2 0 1 1 4 0 1",  // cb1: CBV, buffer, uint
            "d 3 0 2 0 0 4 1",  // s2: comparison mode; data type NONE (API 1.19)
            "d 3 0 3 0 0 0 1",  // s3
            "d 0 0 4 3 3 0 1",  // t4: texture2d of sint
            "d 0 0 6 1 5 0 1",  // t6: typed buffer of float
            "d 0 0 7 1 4 16 1", // t7: raw
            "d 0 0 5 1 4 0 1",  // t5: structured
            "d 1 0 0 3 5 2 1",  // u0: read
            "d 1 0 1 1 4 26 1", // u1: raw, read, atomics
            "d 1 0 2 1 4 3 1",  // u2: counter, read
            "d 1 0 3 1 4 0 1",  // u3
            "c 0 4 0 2",
            "c 0 4 0 4294967295", // ld and resinfo of t4: no sampler
            "c 0 6 0 4294967295",
            "c 0 7 0 4294967295",
            "c 0 5 0 4294967295",
            "t 8 4 2",
            "h 0 0",
        ]
    );
    // API 1.15 and older: samplers' data type is UINT.
    let old = ours(&dxbc, false, API_VERSION_1_15).unwrap();
    assert!(old.contains("d 3 0 2 0 4 4 1\n"), "{old}");
}

#[test]
fn sm51_ranges_spaces_and_dynamic_indices() {
    let text = "ps_5_1\n\
        .output SV_Target 0 o0 float\n\
        dcl_globalFlags refactoringAllowed\n\
        dcl_constantbuffer CB0[2:5][4], dynamicIndexed, space=3\n\
        dcl_sampler S0[1:1], mode_default, space=2\n\
        dcl_resource_texture2d (float,float,float,float) T0[10:*], space=1\n\
        dcl_resource_texture2d (unorm,unorm,unorm,unorm) T1[4:4], space=0\n\
        dcl_output o0.xyzw\n\
        dcl_temps 1\n\
        sample r0.xyzw, l(0.5, 0.5, 0, 0), T0[12].xyzw, S0[1]\n\
        mov r0.x, CB0[3][0].x\n\
        ftou r0.x, r0.x\n\
        sample r0.xyzw, l(0.5, 0.5, 0, 0), T0[r0.x + 10].xyzw, S0[1]\n\
        ld o0.xyzw, l(0, 0, 0, 0), T1[4].xyzw\n\
        ret\n";
    let dxbc = translator::asm::assemble(text).expect("assembles");
    let got = ours(&dxbc, false, API_CURRENT).expect("scans");
    assert_eq!(
        lines(&got),
        [
            "d 2 3 2 1 4 0 4",           // CB0: b2..b5 of space 3
            "d 3 2 1 0 0 0 1",           // S0: s1 of space 2
            "d 0 1 10 3 5 0 4294967295", // T0: t10.. of space 1, unbounded
            "d 0 0 4 3 1 0 1",           // T1: unorm
            "c 1 12 2 1", // the immediate T0[12] with S0[1]; the dynamic one is not recorded
            "c 0 4 0 4294967295",
            "t 0 0 0",
            "h 0 0",
        ]
    );
}

#[test]
fn hull_shader_tessellation() {
    let text =
        std::fs::read_to_string(integration_tests::repo_root().join("shaders/asm/hs_phases.asm"))
            .unwrap();
    let dxbc = translator::asm::assemble(&text).expect("assembles");
    let got = ours(&dxbc, false, API_CURRENT).expect("scans");
    // output_triangle_cw (3), partitioning_fractional_odd (3).
    assert!(got.ends_with("h 3 3\n"), "{got}");
}

#[test]
fn d3d9_constant_sets_and_samplers() {
    let text = "ps_2_0\n\
        dcl t0.xy\n\
        dcl_2d s0\n\
        dcl_cube s3\n\
        texld r0, t0, s0\n\
        texld r1, t0, s3\n\
        mul r0, r0, c2\n\
        add r0, r0, r1\n\
        mov oC0, r0\n";
    let bytes = translator::d3dbc::asm::assemble(text).expect("assembles");
    let got = ours(&bytes, true, API_CURRENT).expect("scans");
    assert_eq!(
        lines(&got),
        [
            "d 3 0 0 0 0 0 1", // s0: sampler state ...
            "d 0 0 0 3 5 0 1", // ... and a 2D float texture
            "d 3 0 3 0 0 0 1",
            "d 0 0 3 6 5 0 1", // s3: cube
            "d 2 0 0 1 4 0 1", // the float constants: CBV 0
            "c 0 0 0 0",
            "c 0 3 0 3",
            "t 0 0 0",
            "h 0 0",
        ]
    );
}

#[test]
fn a_compile_fills_scan_outputs_without_the_real_library() {
    let bytes =
        std::fs::read(integration_tests::repo_root().join("shaders/examples/ps_texture.dxbc"))
            .unwrap();
    let want = ours(&bytes, false, API_VERSION_1_2).unwrap();
    let mut descriptors = ScanDescriptorInfo {
        ty: STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO,
        next: std::ptr::null(),
        descriptors: std::ptr::null_mut(),
        descriptor_count: 0,
    };
    let info = common::compile_info(&bytes, SOURCE_DXBC_TPF, (&raw mut descriptors).cast());
    let mut out = common::empty_code();
    // SAFETY: all structures live across the call.
    let rc = unsafe { dxbc_spirv_shim_compile(&info, &mut out, std::ptr::null_mut()) };
    assert_eq!(rc, VKD3D_OK);
    assert!(!out.code.is_null());
    let n = descriptors.descriptor_count as usize;
    assert!(n > 0);
    // SAFETY: the compile's array of `n` descriptors.
    let got: Vec<String> = (0..n)
        .map(|k| {
            let d = unsafe { *descriptors.descriptors.add(k) };
            format!(
                "d {} {} {} {} {} {} {}",
                d.ty,
                d.register_space,
                d.register_index,
                d.resource_type,
                d.resource_data_type,
                d.flags,
                d.count
            )
        })
        .collect();
    let want: Vec<&str> = want.lines().filter(|l| l.starts_with("d ")).collect();
    assert_eq!(got, want);
    // SAFETY: what the compile returned.
    unsafe {
        dxbc_spirv_shim_free_shader_code(&mut out);
        dxbc_spirv_shim_free_scan_descriptor_info(&mut descriptors);
    }
}

/// Whether `mine` is `real` plus resource-sampler pairs (`c` lines) only, in a program that
/// has a residency-feedback read (an opcode ending in `_s`): the one known difference.
fn feedback_pairs_only(real: &str, mine: &str, dxbc: &[u8]) -> bool {
    let real: std::collections::BTreeSet<&str> = real.lines().collect();
    let mine: std::collections::BTreeSet<&str> = mine.lines().collect();
    if !real.is_subset(&mine) || mine.difference(&real).any(|l| !l.starts_with("c ")) {
        return false;
    }
    let Ok(container) = translator::container::Container::parse(dxbc) else {
        return false;
    };
    let Some(chunk) = container.shader_chunk() else {
        return false;
    };
    translator::sm4::decode(chunk.data, chunk.offset).is_ok_and(|p| {
        p.instructions
            .iter()
            .any(|i| i.opcode.name().ends_with("_s"))
    })
}

#[test]
fn scans_equal_the_real_librarys() {
    let Some(root) = common::vkd3d_root() else {
        return;
    };
    let dir = common::scratch("scan");
    let exe = dir.join("scan");
    let src = common::repo_root().join("translator/vkd3d-shader-shim/tests/c/scan.c");
    if let Err(e) = common::build_c(&root, &src, &exe, &["vkd3d-shader"]) {
        eprintln!("SKIPPED: cannot build the scan program: {e}");
        return;
    }
    let mut shaders: Vec<(String, Vec<u8>, bool)> = common::dxbc_corpus()
        .into_iter()
        .map(|(n, b)| (n, b, false))
        .collect();
    shaders.extend(
        common::d3dbc_corpus()
            .into_iter()
            .map(|(n, b)| (n, b, true)),
    );
    let packages = common::ROOT_PACKAGES.join(" ");
    let (mut equal, mut feedback, mut real_fails, mut differ) = (0, 0, Vec::new(), Vec::new());
    for (k, (name, bytes, d3d9)) in shaders.iter().enumerate() {
        let file = dir.join(format!("{k}.bin"));
        std::fs::write(&file, bytes).unwrap();
        for api in [API_CURRENT, API_VERSION_1_15] {
            let out = std::process::Command::new(common::repo_root().join("tools/debian-root.sh"))
                .args(["--run", "sid", &packages])
                .arg(&exe)
                .arg(if *d3d9 { "d3dbc" } else { "dxbc" })
                .arg(api.to_string())
                .arg(&file)
                .output()
                .unwrap();
            if !out.status.success() {
                // The real library cannot scan it (or crashes on it): nothing to compare.
                real_fails.push(format!(
                    "{name}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
                break;
            }
            let real = String::from_utf8_lossy(&out.stdout).into_owned();
            let mine = ours(bytes, *d3d9, api).unwrap_or_else(|rc| format!("failed: {rc}\n"));
            let sorted = |s: &str| {
                let mut v: Vec<String> = s.lines().map(str::to_string).collect();
                v.sort();
                v
            };
            if sorted(&real) == sorted(&mine) {
                equal += 1;
            } else if !*d3d9 && feedback_pairs_only(&real, &mine, bytes) {
                // vkd3d-shader 2.1 records no resource-sampler pair for the residency-feedback
                // reads (ld_s, ld_raw_s, ld_structured_s, sample_*_s, gather4_*_s) although they
                // read the resource; the stand-in records them as it does for the plain forms.
                feedback += 1;
            } else {
                differ.push(format!(
                    "{name} (API 1.{api}):\n  real:\n    {}\n  ours:\n    {}",
                    real.trim().replace('\n', "\n    "),
                    mine.trim().replace('\n', "\n    ")
                ));
            }
        }
    }
    eprintln!(
        "{} shaders: {equal} scans equal the real library's, {feedback} but for the pairs of \
         residency-feedback reads the real library leaves out; the real library does not scan {}:",
        shaders.len(),
        real_fails.len()
    );
    for f in &real_fails {
        eprintln!("  {f}");
    }
    assert!(
        differ.is_empty(),
        "{} scans differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    assert!(equal > 0, "nothing was compared");
}
