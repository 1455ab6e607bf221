//! Hostile input at the stand-in's C boundary: null and misaligned pointers, wrong and
//! unknown structure types in the chain, loops, arrays with counts but no pointer, truncated
//! and corrupted bytecode. Each call must return one of vkd3d's error codes (never succeed,
//! never crash or panic) and leave `out` empty; the messages, when asked for, are in vkd3d's
//! convention and freed with `vkd3d_shader_free_messages`. `vkd3d_shader_scan` of DXBC and
//! Direct3D 9 bytecode (the stand-in's own) is held to the same, with every scan output in the
//! chain.

mod common;

use std::ffi::{CStr, c_char, c_void};
use std::ptr::{null, null_mut};

use vkd3d_shader_shim::abi::*;
use vkd3d_shader_shim::exports::*;

fn example(name: &str) -> Vec<u8> {
    std::fs::read(
        integration_tests::repo_root()
            .join("shaders/examples")
            .join(name),
    )
    .unwrap()
}

/// A compile with errors logged under a name (the messages are part of what is checked).
fn info(bytes: &[u8], source_type: u32, next: *const c_void) -> CompileInfo {
    CompileInfo {
        log_level: LOG_ERROR,
        source_name: c"hostile".as_ptr(),
        ..common::compile_info(bytes, source_type, next)
    }
}

/// Compiles, checks the failure shape, and returns the result code and the message.
fn fails(info: *const CompileInfo) -> (i32, String) {
    let mut out = Code {
        code: 8 as *const c_void,
        size: 99,
    };
    let mut messages: *mut c_char = null_mut();
    // SAFETY: whatever `info` is, the stand-in must cope; `out` and `messages` are valid.
    let rc = unsafe { dxbc_spirv_shim_compile(info, &mut out, &mut messages) };
    assert!(rc < 0, "a hostile compile succeeded");
    if !info.is_null() {
        assert!(out.code.is_null() && out.size == 0, "out not emptied");
    }
    let text = if messages.is_null() {
        String::new()
    } else {
        // SAFETY: the stand-in's NUL-terminated message.
        unsafe { CStr::from_ptr(messages) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: the stand-in's message or null.
    unsafe { dxbc_spirv_shim_free_messages(messages) };
    (rc, text)
}

#[test]
fn null_pointers() {
    let ps = example("ps_texture.dxbc");
    assert_eq!(fails(null()).0, VKD3D_ERROR_INVALID_ARGUMENT);
    let i = info(&ps, SOURCE_DXBC_TPF, null());
    let mut messages: *mut c_char = null_mut();
    // SAFETY: null `out` must be refused.
    let rc = unsafe { dxbc_spirv_shim_compile(&i, null_mut(), &mut messages) };
    assert_eq!(rc, VKD3D_ERROR_INVALID_ARGUMENT);
    // SAFETY: as above.
    unsafe { dxbc_spirv_shim_free_messages(messages) };
    // Null source with a size, and an empty one.
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    i.source.code = null();
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    i.source.size = 0;
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // A size the stand-in must not trust (vkd3d's "until the end token" for D3D9).
    let mut i = info(&ps, SOURCE_D3D_BYTECODE, null());
    i.source.size = usize::MAX;
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // Options with a count and no array.
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    i.option_count = 3;
    let (rc, msg) = fails(&i);
    assert_eq!(rc, VKD3D_ERROR_INVALID_ARGUMENT);
    assert!(msg.starts_with("hostile: E9001: "), "{msg}");
    // The free functions take null.
    // SAFETY: null is allowed.
    unsafe {
        dxbc_spirv_shim_free_messages(null_mut());
        dxbc_spirv_shim_free_shader_code(null_mut());
        dxbc_spirv_shim_free_scan_signature_info(null_mut());
        dxbc_spirv_shim_free_scan_descriptor_info(null_mut());
        dxbc_spirv_shim_free_scan_combined_resource_sampler_info(null_mut());
    }
}

#[test]
fn wrong_structures_in_the_chain() {
    let ps = example("ps_texture.dxbc");
    // compile_info with another structure's type.
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    i.ty = STRUCTURE_TYPE_INTERFACE_INFO;
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // An unknown structure type, and a second compile_info.
    for ty in [999u32, STRUCTURE_TYPE_COMPILE_INFO, u32::MAX] {
        let h = Header { ty, next: null() };
        let i = info(&ps, SOURCE_DXBC_TPF, (&raw const h).cast());
        let (rc, msg) = fails(&i);
        assert_eq!(rc, VKD3D_ERROR_INVALID_ARGUMENT, "type {ty}");
        assert!(msg.contains("structure type"), "{msg}");
    }
    // A chain that loops back on itself.
    let mut a = Header {
        ty: STRUCTURE_TYPE_HLSL_SOURCE_INFO,
        next: null(),
    };
    a.next = (&raw const a).cast();
    let i = info(&ps, SOURCE_DXBC_TPF, (&raw const a).cast());
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // A misaligned link.
    let buf = [0u64; 8];
    let odd = (buf.as_ptr() as usize + 1) as *const c_void;
    let i = info(&ps, SOURCE_DXBC_TPF, odd);
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // Two interface infos.
    let second = InterfaceInfo {
        ty: STRUCTURE_TYPE_INTERFACE_INFO,
        next: null(),
        bindings: null(),
        binding_count: 0,
        push_constant_buffers: null(),
        push_constant_buffer_count: 0,
        combined_samplers: null(),
        combined_sampler_count: 0,
        uav_counters: null(),
        uav_counter_count: 0,
    };
    let first = InterfaceInfo {
        next: (&raw const second).cast(),
        ..second
    };
    let i = info(&ps, SOURCE_DXBC_TPF, (&raw const first).cast());
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // An interface whose arrays have counts but no pointers.
    let holes = InterfaceInfo {
        binding_count: 5,
        uav_counter_count: 1,
        ..second
    };
    let i = info(&ps, SOURCE_DXBC_TPF, (&raw const holes).cast());
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // A target info with parameters of unknown kinds.
    let p = Parameter {
        name: 12345,
        ty: PARAMETER_TYPE_IMMEDIATE_CONSTANT,
        data_type: PARAMETER_DATA_TYPE_UINT32,
        u: ParameterValue { u32_: 0 },
    };
    let t = SpirvTargetInfo {
        ty: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
        next: null(),
        entry_point: null(),
        environment: 77,
        extensions: null(),
        extension_count: 0,
        parameters: &p,
        parameter_count: 1,
        dual_source_blending: 7,
        output_swizzles: null(),
        output_swizzle_count: 4,
    };
    let i = info(&ps, SOURCE_DXBC_TPF, (&raw const t).cast());
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_ARGUMENT);
    // A D3D9 source type for a DXBC container, and the other way round.
    let i = info(&ps, SOURCE_D3D_BYTECODE, null());
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_SHADER);
    let d3d9 = [0x0300_ffffu32, 0x0000_ffff];
    let bytes: Vec<u8> = d3d9.iter().flat_map(|w| w.to_le_bytes()).collect();
    let i = info(&bytes, SOURCE_DXBC_TPF, null());
    assert_eq!(fails(&i).0, VKD3D_ERROR_INVALID_SHADER);
}

#[test]
fn truncated_and_corrupted_bytecode() {
    let mut count = 0;
    for name in ["ps_texture.dxbc", "vs_transform.dxbc"] {
        let full = example(name);
        for len in (1..full.len()).step_by(7) {
            let cut = &full[..len];
            let i = info(cut, SOURCE_DXBC_TPF, null());
            fails(&i);
            count += 1;
        }
        // Corrupted: every 13th byte flipped, one at a time, keeps failing or compiling.
        for at in (0..full.len()).step_by(13) {
            let mut bad = full.clone();
            bad[at] ^= 0xa5;
            let i = info(&bad, SOURCE_DXBC_TPF, null());
            let mut out = Code {
                code: null(),
                size: 0,
            };
            // SAFETY: valid arguments around corrupt bytes.
            let rc = unsafe { dxbc_spirv_shim_compile(&i, &mut out, null_mut()) };
            assert!(rc == VKD3D_OK || rc < 0);
            // SAFETY: the stand-in's code or null.
            unsafe { dxbc_spirv_shim_free_shader_code(&mut out) };
            count += 1;
        }
    }
    // Direct3D 9: a pixel shader cut before its end token.
    let text = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
    let full = translator::d3dbc::asm::assemble(text).unwrap();
    for len in 4..full.len() - 4 {
        let i = info(&full[..len], SOURCE_D3D_BYTECODE, null());
        fails(&i);
        count += 1;
    }
    eprintln!("{count} truncated or corrupted sources answered with vkd3d result codes");
}

/// Scans with every scan output chained; the result code. On success the outputs are freed
/// with the stand-in's free functions.
fn scan(info: &mut CompileInfo) -> i32 {
    let mut group = ScanThreadGroupSizeInfo {
        ty: STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO,
        next: null(),
        x: 0,
        y: 0,
        z: 0,
    };
    let mut pairs = ScanCombinedResourceSamplerInfo {
        ty: STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO,
        next: (&raw mut group).cast(),
        combined_samplers: null_mut(),
        combined_sampler_count: 0,
    };
    let mut descriptors = ScanDescriptorInfo {
        ty: STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO,
        next: (&raw mut pairs).cast(),
        descriptors: null_mut(),
        descriptor_count: 0,
    };
    let mut sig = ScanSignatureInfo {
        ty: STRUCTURE_TYPE_SCAN_SIGNATURE_INFO,
        next: (&raw mut descriptors).cast(),
        input: Signature {
            elements: null_mut(),
            element_count: 0,
        },
        output: Signature {
            elements: null_mut(),
            element_count: 0,
        },
        patch_constant: Signature {
            elements: null_mut(),
            element_count: 0,
        },
    };
    if info.next.is_null() {
        info.next = (&raw mut sig).cast();
    }
    let mut messages: *mut c_char = null_mut();
    // SAFETY: whatever `info` holds, the stand-in must cope; the outputs are valid.
    let rc = unsafe { dxbc_spirv_shim_scan(info, &mut messages) };
    // SAFETY: the stand-in's outputs (or null), freed by its own functions.
    unsafe {
        dxbc_spirv_shim_free_messages(messages);
        if rc == VKD3D_OK {
            dxbc_spirv_shim_free_scan_descriptor_info(&mut descriptors);
            dxbc_spirv_shim_free_scan_combined_resource_sampler_info(&mut pairs);
            dxbc_spirv_shim_free_scan_signature_info(&mut sig);
        } else {
            assert!(descriptors.descriptors.is_null() && pairs.combined_samplers.is_null());
        }
    }
    rc
}

#[test]
fn scans() {
    let ps = example("ps_texture.dxbc");
    // SAFETY: a null compile info must be refused.
    let rc = unsafe { dxbc_spirv_shim_scan(null(), null_mut()) };
    assert_eq!(rc, VKD3D_ERROR_INVALID_ARGUMENT);
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    assert_eq!(scan(&mut i), VKD3D_OK);
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    i.ty = STRUCTURE_TYPE_INTERFACE_INFO;
    assert_eq!(scan(&mut i), VKD3D_ERROR_INVALID_ARGUMENT);
    let mut i = info(&ps, SOURCE_DXBC_TPF, null());
    i.source.code = null();
    assert_eq!(scan(&mut i), VKD3D_ERROR_INVALID_ARGUMENT);
    let mut i = info(&ps, SOURCE_D3D_BYTECODE, null());
    assert_eq!(scan(&mut i), VKD3D_ERROR_INVALID_SHADER);
    let h = Header {
        ty: 999,
        next: null(),
    };
    let mut i = info(&ps, SOURCE_DXBC_TPF, (&raw const h).cast());
    assert_eq!(scan(&mut i), VKD3D_ERROR_INVALID_ARGUMENT);
    let mut count = 0;
    for name in ["ps_texture.dxbc", "vs_transform.dxbc"] {
        let full = example(name);
        for len in (1..full.len()).step_by(7) {
            let mut i = info(&full[..len], SOURCE_DXBC_TPF, null());
            assert!(scan(&mut i) < 0, "a truncated container scanned");
            count += 1;
        }
        for at in (0..full.len()).step_by(13) {
            let mut bad = full.clone();
            bad[at] ^= 0xa5;
            let mut i = info(&bad, SOURCE_DXBC_TPF, null());
            let rc = scan(&mut i);
            assert!(rc == VKD3D_OK || rc < 0);
            count += 1;
        }
    }
    let text = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
    let full = translator::d3dbc::asm::assemble(text).unwrap();
    let mut i = info(&full, SOURCE_D3D_BYTECODE, null());
    assert_eq!(scan(&mut i), VKD3D_OK);
    for len in 4..full.len() - 4 {
        let mut i = info(&full[..len], SOURCE_D3D_BYTECODE, null());
        assert!(scan(&mut i) < 0, "a truncated D3D9 shader scanned");
        count += 1;
    }
    eprintln!("{count} truncated or corrupted sources scanned or refused with result codes");
}
