//! Direct3D 9 through the stand-in's C ABI, as wined3d's Vulkan renderer calls vkd3d-shader:
//! every D3D9 shader of the shared corpus (`../shared/corpus/d3dbc`; the bundled listings of
//! `shaders/d3d9/` when it is absent) is compiled with `vkd3d_shader_compile` from
//! `D3D_BYTECODE` to `SPIRV_BINARY` with the chain such a caller passes: the three constant
//! sets as CBVs of registers 0–2 (`VKD3D_SHADER_D3DBC_*_CONSTANT_REGISTER`), each sampler a
//! combined image sampler, the stage's visibility, a Vulkan 1.0 target with the rasterizer
//! sample count for pixel shaders, the demote-to-helper extension (`texkill`), the D3D9
//! source info (2D textures, no shadow samplers) and,
//! for vertex shaders, the signature output. Every compile must succeed and its SPIR-V pass
//! `spirv-val`; every element of a vertex shader's input signature must name a semantic and an
//! input register `v0`–`v15` (libvkd3d takes the attribute's location from it). A second pass gives separate texture and sampler bindings instead (no combined
//! samplers), as vkd3d's D3D9 callers without combined samplers do.

mod common;

use std::path::PathBuf;

use integration_tests::{d3dbc_files, shared_dir, spirv_val};
use vkd3d_shader_shim::abi::*;
use vkd3d_shader_shim::exports::*;

fn corpus() -> Vec<(String, Vec<u8>)> {
    if let Some(shared) = shared_dir() {
        let dir = shared.join("corpus/d3dbc");
        let files = d3dbc_files(&dir);
        if !files.is_empty() {
            return files
                .iter()
                .map(|f| {
                    (
                        f.strip_prefix(&dir).unwrap().display().to_string(),
                        std::fs::read(f).unwrap(),
                    )
                })
                .collect();
        }
    }
    integration_tests::skip::skip_part(
        integration_tests::skip::CORPUS,
        integration_tests::skip::NO_CORPUS,
        "ran over the bundled listings of shaders/d3d9 only",
    );
    let dir = integration_tests::repo_root().join("shaders/d3d9");
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let bytes = translator::d3dbc::asm::assemble(&text).unwrap();
        out.push((f.file_name().unwrap().to_string_lossy().into_owned(), bytes));
    }
    out
}

fn binding(ty: u32, reg: u32, vis: u32, flags: u32, b: u32) -> ResourceBinding {
    ResourceBinding {
        ty,
        register_space: 0,
        register_index: reg,
        shader_visibility: vis,
        flags,
        binding: DescriptorBinding {
            set: 0,
            binding: b,
            count: 1,
        },
    }
}

/// Compiles one blob; `Ok(words)` or the result code and messages.
fn compile(bytes: &[u8], combined: bool) -> Result<(Vec<u32>, Option<usize>), String> {
    let vertex = bytes.get(2..4) == Some(&[0xfe, 0xff]);
    let vis = if vertex {
        VISIBILITY_VERTEX
    } else {
        VISIBILITY_PIXEL
    };
    let mut bindings: Vec<ResourceBinding> = (0..3)
        .map(|r| binding(DESCRIPTOR_TYPE_CBV, r, vis, BINDING_FLAG_BUFFER, r))
        .collect();
    let mut samplers = Vec::new();
    for s in 0..16u32 {
        if combined {
            samplers.push(CombinedResourceSampler {
                resource_space: 0,
                resource_index: s,
                sampler_space: 0,
                sampler_index: s,
                shader_visibility: vis,
                flags: BINDING_FLAG_IMAGE,
                binding: DescriptorBinding {
                    set: 0,
                    binding: 3 + s,
                    count: 1,
                },
            });
        } else {
            bindings.push(binding(
                DESCRIPTOR_TYPE_SRV,
                s,
                vis,
                BINDING_FLAG_IMAGE,
                3 + 2 * s,
            ));
            bindings.push(binding(DESCRIPTOR_TYPE_SAMPLER, s, vis, 0, 4 + 2 * s));
        }
    }
    let mut signature = ScanSignatureInfo {
        ty: STRUCTURE_TYPE_SCAN_SIGNATURE_INFO,
        next: std::ptr::null(),
        input: Signature {
            elements: std::ptr::null_mut(),
            element_count: 0,
        },
        output: Signature {
            elements: std::ptr::null_mut(),
            element_count: 0,
        },
        patch_constant: Signature {
            elements: std::ptr::null_mut(),
            element_count: 0,
        },
    };
    let interface = InterfaceInfo {
        ty: STRUCTURE_TYPE_INTERFACE_INFO,
        next: if vertex {
            (&raw mut signature).cast_const().cast()
        } else {
            std::ptr::null()
        },
        bindings: bindings.as_ptr(),
        binding_count: bindings.len() as u32,
        push_constant_buffers: std::ptr::null(),
        push_constant_buffer_count: 0,
        combined_samplers: samplers.as_ptr(),
        combined_sampler_count: samplers.len() as u32,
        uav_counters: std::ptr::null(),
        uav_counter_count: 0,
    };
    let source = D3dbcSourceInfo {
        ty: STRUCTURE_TYPE_D3DBC_SOURCE_INFO,
        next: (&raw const interface).cast(),
        texture_dimensions: [RESOURCE_TEXTURE_2D; 6],
        shadow_samplers: 0,
    };
    let sample_count = Parameter {
        name: PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
        ty: PARAMETER_TYPE_IMMEDIATE_CONSTANT,
        data_type: PARAMETER_DATA_TYPE_UINT32,
        u: ParameterValue { u32_: 1 },
    };
    let swizzles = [NO_SWIZZLE; 8];
    // A device with VK_EXT_shader_demote_to_helper_invocation (texkill is a demote).
    let extensions = [SPIRV_EXTENSION_EXT_DEMOTE_TO_HELPER_INVOCATION];
    let target = SpirvTargetInfo {
        ty: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
        next: (&raw const source).cast(),
        entry_point: c"main".as_ptr(),
        environment: SPIRV_ENVIRONMENT_VULKAN_1_0,
        extensions: extensions.as_ptr(),
        extension_count: 1,
        parameters: if vertex {
            std::ptr::null()
        } else {
            &sample_count
        },
        parameter_count: u32::from(!vertex),
        dual_source_blending: 0,
        output_swizzles: swizzles.as_ptr(),
        output_swizzle_count: if vertex { 0 } else { 8 },
    };
    let options = [CompileOption {
        name: OPTION_API_VERSION,
        value: 21,
    }];
    let info = CompileInfo {
        log_level: LOG_WARNING,
        source_name: c"d3d9".as_ptr(),
        ..common::with_options(
            common::compile_info(bytes, SOURCE_D3D_BYTECODE, (&raw const target).cast()),
            &options,
        )
    };
    let mut out = common::empty_code();
    let mut messages: *mut std::ffi::c_char = std::ptr::null_mut();
    // SAFETY: every structure above lives until the call returns.
    let rc = unsafe { dxbc_spirv_shim_compile(&info, &mut out, &mut messages) };
    let text = if messages.is_null() {
        String::new()
    } else {
        // SAFETY: a NUL-terminated message from the stand-in.
        unsafe { std::ffi::CStr::from_ptr(messages) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: the stand-in's message (or null).
    unsafe { dxbc_spirv_shim_free_messages(messages) };
    if rc != VKD3D_OK {
        return Err(format!("result {rc}: {text}"));
    }
    assert!(!out.code.is_null() && out.size.is_multiple_of(4) && out.size > 20);
    // SAFETY: the stand-in's `size` bytes of SPIR-V.
    let words =
        unsafe { std::slice::from_raw_parts(out.code.cast::<u32>(), out.size / 4) }.to_vec();
    let mut regs = None;
    if vertex {
        // The input signature names registers; report the lowest and highest.
        // SAFETY: filled by the stand-in.
        let sig = if signature.input.element_count == 0 {
            &[][..]
        } else {
            unsafe {
                std::slice::from_raw_parts(
                    signature.input.elements,
                    signature.input.element_count as usize,
                )
            }
        };
        for e in sig {
            // SAFETY: the stand-in's NUL-terminated name.
            let name = unsafe { std::ffi::CStr::from_ptr(e.semantic_name) };
            if name.is_empty() || e.register_index >= 16 {
                return Err(format!(
                    "input signature element {name:?} in register {}",
                    e.register_index
                ));
            }
        }
        regs = Some(sig.len());
        // SAFETY: filled by the stand-in.
        unsafe { dxbc_spirv_shim_free_scan_signature_info(&mut signature) };
        assert!(signature.input.elements.is_null());
    }
    // SAFETY: the stand-in's code.
    unsafe { dxbc_spirv_shim_free_shader_code(&mut out) };
    Ok((words, regs))
}

fn sweep(combined: bool) {
    let blobs = corpus();
    let validate = integration_tests::spirv_val_or_narrow();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(if combined {
        "d3d9-combined"
    } else {
        "d3d9-separate"
    });
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let (mut vs, mut ps) = (0, 0);
    for (name, bytes) in &blobs {
        if bytes.get(2..4) == Some(&[0xfe, 0xff]) {
            vs += 1;
        } else {
            ps += 1;
        }
        match compile(bytes, combined) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok((words, _)) if validate => {
                let f = dir.join(name.replace('/', "_") + ".spv");
                let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&f, b).unwrap();
                if let Err(e) = spirv_val(&f, "vulkan1.1") {
                    failures.push(format!("{name}: spirv-val: {e}"));
                }
            }
            Ok(_) => {}
        }
    }
    eprintln!(
        "D3D9 through vkd3d_shader_compile ({}): {}/{} compile{} ({vs} vertex, {ps} pixel)",
        if combined {
            "combined samplers"
        } else {
            "separate textures and samplers"
        },
        blobs.len() - failures.len(),
        blobs.len(),
        if validate { " and pass spirv-val" } else { "" }
    );
    assert!(!blobs.is_empty());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_d3d9_shader_compiles_with_combined_samplers() {
    sweep(true);
}

#[test]
fn every_d3d9_shader_compiles_with_separate_samplers() {
    sweep(false);
}
