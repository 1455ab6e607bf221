//! The DXBC corpus (`../shared/corpus/dxbc`; the bundled examples and assembler listings when
//! it is absent) through the stand-in's `vkd3d_shader_compile` with the chain libvkd3d passes
//! in its `virtual_heaps` mode: every declared register range in a binding of its own (SRVs
//! and UAVs twice, flagged BUFFER and IMAGE, as libvkd3d's root signatures have them; UAV
//! counters in their own bindings), the Vulkan 1.1 target with the extensions and feature
//! flags lavapipe gives, the sample count as an immediate for pixel shaders and the signature
//! output for vertex shaders. Prints how many compile and, for the rest, the reasons, once
//! with vkd3d's default buffer-UAV mode (texel buffers) and once with storage buffers.
//! Asserts that nothing panics, that every shader the translator compiles on its own compiles
//! through the stand-in too (nothing vkd3d asks is refused), and that every module produced
//! passes `spirv-val`.

mod common;

use std::collections::BTreeMap;

use integration_tests::{dxbc_files, shared_dir, spirv_val};
use translator::reflect::RegisterClass;
use vkd3d_shader_shim::abi::*;
use vkd3d_shader_shim::exports::*;

fn corpus() -> Vec<(String, Vec<u8>)> {
    if let Some(shared) = shared_dir() {
        let dir = shared.join("corpus/dxbc");
        let files = dxbc_files(&dir);
        if !files.is_empty() {
            return files
                .iter()
                .map(|f| {
                    let name = f.strip_prefix(&dir).unwrap().display().to_string();
                    (name, std::fs::read(f).unwrap())
                })
                .collect();
        }
    }
    integration_tests::skip::skip_part(
        integration_tests::skip::CORPUS,
        integration_tests::skip::NO_CORPUS,
        "ran over shaders/examples and shaders/asm only",
    );
    let root = integration_tests::repo_root();
    let mut out: Vec<(String, Vec<u8>)> = dxbc_files(&root.join("shaders/examples"))
        .iter()
        .map(|f| (f.display().to_string(), std::fs::read(f).unwrap()))
        .collect();
    for e in std::fs::read_dir(root.join("shaders/asm"))
        .unwrap()
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "asm")
            && let Ok(b) = translator::asm::assemble(&std::fs::read_to_string(&p).unwrap())
        {
            out.push((p.display().to_string(), b));
        }
    }
    out
}

fn visibility(bytes: &[u8]) -> u32 {
    match integration_tests::stage_of(bytes) {
        Some("vs") => VISIBILITY_VERTEX,
        Some("hs") => VISIBILITY_HULL,
        Some("ds") => VISIBILITY_DOMAIN,
        Some("gs") => VISIBILITY_GEOMETRY,
        Some("ps") => VISIBILITY_PIXEL,
        _ => VISIBILITY_COMPUTE,
    }
}

/// The constant buffers (space, register) the stand-in's `vkd3d_shader_scan` reports: every
/// one the program declares.
fn declared_cbvs(bytes: &[u8]) -> Vec<(u32, u32)> {
    let mut descriptors = ScanDescriptorInfo {
        ty: STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO,
        next: std::ptr::null(),
        descriptors: std::ptr::null_mut(),
        descriptor_count: 0,
    };
    let info = common::compile_info(bytes, SOURCE_DXBC_TPF, (&raw mut descriptors).cast());
    // SAFETY: every structure lives across the call.
    if unsafe { dxbc_spirv_shim_scan(&info, std::ptr::null_mut()) } < 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    // SAFETY: the scan's array, of its count, freed once.
    unsafe {
        for k in 0..descriptors.descriptor_count as usize {
            let d = *descriptors.descriptors.add(k);
            if d.ty == DESCRIPTOR_TYPE_CBV {
                out.push((d.register_space, d.register_index));
            }
        }
        dxbc_spirv_shim_free_scan_descriptor_info(&mut descriptors);
    }
    out
}

/// Compiles one shader the way libvkd3d does in virtual-heaps mode; `Ok(words)` or the
/// failure's message.
fn compile(bytes: &[u8], storage_buffer_uavs: bool) -> Option<Result<Vec<u32>, String>> {
    // The shader's declared ranges, from a plain translation.
    let refl = translator::translate(bytes, &translator::Options::default())
        .ok()?
        .reflection;
    let vis = visibility(bytes);
    let mut bindings = Vec::new();
    let mut counters = Vec::new();
    let mut next = 0;
    for d in &refl.descriptors {
        let o = &d.origin;
        let count = o.upper.map_or(u32::MAX, |u| u - o.lower + 1);
        let db = |b: u32| DescriptorBinding {
            set: 0,
            binding: b,
            count,
        };
        if o.uav_counter {
            counters.push(UavCounterBinding {
                register_space: o.space,
                register_index: o.lower,
                shader_visibility: vis,
                binding: db(next),
                offset: 0,
            });
            next += 1;
            continue;
        }
        let (ty, flags): (u32, &[u32]) = match o.class {
            RegisterClass::B => (DESCRIPTOR_TYPE_CBV, &[BINDING_FLAG_BUFFER]),
            RegisterClass::S => (DESCRIPTOR_TYPE_SAMPLER, &[BINDING_FLAG_IMAGE]),
            RegisterClass::T => (
                DESCRIPTOR_TYPE_SRV,
                &[BINDING_FLAG_BUFFER, BINDING_FLAG_IMAGE],
            ),
            RegisterClass::U => (
                DESCRIPTOR_TYPE_UAV,
                &[BINDING_FLAG_BUFFER, BINDING_FLAG_IMAGE],
            ),
        };
        for &f in flags {
            bindings.push(ResourceBinding {
                ty,
                register_space: o.space,
                register_index: o.lower,
                shader_visibility: vis,
                flags: f,
                binding: db(next),
            });
            next += 1;
        }
    }
    // A constant buffer the program declares but no longer reads after the translator's dead
    // code removal is not in the reflection; a D3D12 root signature still covers it (the
    // runtime checks every declared range), so vkd3d passes a binding for it.
    for (space, register) in declared_cbvs(bytes) {
        let reflected = refl.descriptors.iter().any(|d| {
            d.origin.class == RegisterClass::B
                && d.origin.space == space
                && d.origin.lower == register
        });
        if !reflected {
            bindings.push(ResourceBinding {
                ty: DESCRIPTOR_TYPE_CBV,
                register_space: space,
                register_index: register,
                shader_visibility: vis,
                flags: BINDING_FLAG_BUFFER,
                binding: DescriptorBinding {
                    set: 0,
                    binding: next,
                    count: 1,
                },
            });
            next += 1;
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
    let pixel = vis == VISIBILITY_PIXEL;
    let sample_count = Parameter {
        name: PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
        ty: PARAMETER_TYPE_IMMEDIATE_CONSTANT,
        data_type: PARAMETER_DATA_TYPE_UINT32,
        u: ParameterValue { u32_: 1 },
    };
    let swizzles = [NO_SWIZZLE; 8];
    let extensions = [
        SPIRV_EXTENSION_EXT_DEMOTE_TO_HELPER_INVOCATION,
        SPIRV_EXTENSION_EXT_DESCRIPTOR_INDEXING,
        SPIRV_EXTENSION_EXT_STENCIL_EXPORT,
        SPIRV_EXTENSION_EXT_VIEWPORT_INDEX_LAYER,
        SPIRV_EXTENSION_EXT_FRAGMENT_SHADER_INTERLOCK,
    ];
    let target = SpirvTargetInfo {
        ty: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
        next: if vis == VISIBILITY_VERTEX {
            (&raw mut signature).cast_const().cast()
        } else {
            std::ptr::null()
        },
        entry_point: c"main".as_ptr(),
        environment: SPIRV_ENVIRONMENT_VULKAN_1_1,
        extensions: extensions.as_ptr(),
        extension_count: extensions.len() as u32,
        parameters: if pixel {
            &sample_count
        } else {
            std::ptr::null()
        },
        parameter_count: u32::from(pixel),
        dual_source_blending: 0,
        output_swizzles: swizzles.as_ptr(),
        output_swizzle_count: if pixel { 8 } else { 0 },
    };
    let interface = InterfaceInfo {
        ty: STRUCTURE_TYPE_INTERFACE_INFO,
        next: (&raw const target).cast(),
        bindings: bindings.as_ptr(),
        binding_count: bindings.len() as u32,
        push_constant_buffers: std::ptr::null(),
        push_constant_buffer_count: 0,
        combined_samplers: std::ptr::null(),
        combined_sampler_count: 0,
        uav_counters: counters.as_ptr(),
        uav_counter_count: counters.len() as u32,
    };
    let options = [
        CompileOption {
            name: OPTION_API_VERSION,
            value: 17,
        },
        CompileOption {
            name: OPTION_TYPED_UAV,
            value: TYPED_UAV_READ_FORMAT_UNKNOWN,
        },
        CompileOption {
            name: OPTION_WRITE_TESS_GEOM_POINT_SIZE,
            value: 0,
        },
        CompileOption {
            name: OPTION_FEATURE,
            value: FEATURE_INT64 | FEATURE_FLOAT64,
        },
        CompileOption {
            name: OPTION_BUFFER_UAV,
            value: if storage_buffer_uavs {
                BUFFER_UAV_STORAGE_BUFFER
            } else {
                BUFFER_UAV_STORAGE_TEXEL_BUFFER
            },
        },
    ];
    let info = CompileInfo {
        log_level: LOG_ERROR,
        source_name: c"corpus".as_ptr(),
        ..common::with_options(
            common::compile_info(bytes, SOURCE_DXBC_TPF, (&raw const interface).cast()),
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
        // SAFETY: the stand-in's NUL-terminated message.
        unsafe { std::ffi::CStr::from_ptr(messages) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: the stand-in's allocations (or null).
    unsafe {
        dxbc_spirv_shim_free_messages(messages);
        dxbc_spirv_shim_free_scan_signature_info(&mut signature);
    }
    if rc != VKD3D_OK {
        return Some(Err(text));
    }
    // SAFETY: the stand-in's `size` bytes of SPIR-V.
    let words =
        unsafe { std::slice::from_raw_parts(out.code.cast::<u32>(), out.size / 4) }.to_vec();
    // SAFETY: the stand-in's code.
    unsafe { dxbc_spirv_shim_free_shader_code(&mut out) };
    Some(Ok(words))
}

/// A refusal's reason without the register and offset that vary per shader.
fn reason(msg: &str) -> String {
    let m = msg.trim();
    let m = m.split_once(": E").map_or(m, |(_, r)| r);
    let m = m.split_once(": ").map_or(m, |(_, r)| r);
    let m = match m.find("in space ") {
        Some(i) => m[i..].split_once(": ").map_or(m, |(_, r)| r),
        None => m,
    };
    m.chars().take(110).collect()
}

fn sweep(storage_buffer_uavs: bool) {
    let blobs = corpus();
    let validate = integration_tests::spirv_val_or_narrow();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(if storage_buffer_uavs {
        "dxbc-corpus-storage"
    } else {
        "dxbc-corpus-texel"
    });
    std::fs::create_dir_all(&dir).unwrap();
    let (mut compiled, mut untranslatable) = (0, 0);
    let mut refused: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut invalid = Vec::new();
    for (k, (name, bytes)) in blobs.iter().enumerate() {
        match compile(bytes, storage_buffer_uavs) {
            None => untranslatable += 1,
            Some(Ok(words)) => {
                compiled += 1;
                if validate {
                    let f = dir.join(format!("{k}.spv"));
                    let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(&f, b).unwrap();
                    if let Err(e) = spirv_val(&f, "vulkan1.1") {
                        invalid.push(format!("{name}: {e}"));
                    }
                }
            }
            Some(Err(m)) => {
                assert!(!m.contains("E9005"), "{name}: internal error: {m}");
                refused.entry(reason(&m)).or_default().push(name);
            }
        }
    }
    let total = blobs.len() - untranslatable;
    eprintln!(
        "DXBC through vkd3d_shader_compile (virtual-heaps chain, buffer UAVs as {}): \
         {compiled}/{total} compile ({untranslatable} more the translator refuses on its own)",
        if storage_buffer_uavs {
            "storage buffers"
        } else {
            "texel buffers, vkd3d's default"
        }
    );
    for (r, names) in &refused {
        eprintln!("  {:4} refused: {r}: {}", names.len(), names.join(", "));
    }
    assert!(compiled > 0);
    assert!(invalid.is_empty(), "{}", invalid.join("\n"));
    assert!(
        refused.is_empty(),
        "the stand-in refused shaders the translator compiles on its own"
    );
}

#[test]
fn dxbc_corpus_with_texel_buffer_uavs() {
    sweep(false);
}

#[test]
fn dxbc_corpus_with_storage_buffer_uavs() {
    sweep(true);
}
