//! vkd3d's compile options and SPIR-V target info mapped onto the translator's layer options
//! (docs/vkd3d.md, "What vkd3d_shader_compile honours"): a compile through the stand-in with a
//! given chain must give exactly the SPIR-V of the translator run with the options the mapping
//! names, for a pixel shader that reads a raw SRV, reads a typed UAV, adds to a raw UAV, reads
//! the rasterizer's sample count and writes two render targets, and a geometry shader that
//! emits points. vkd3d's defaults (no options, no target info) are checked the same way.

mod common;

use std::ffi::c_void;

use translator::binding::BindingPolicy;
use translator::{
    DeviceFeatures, Options, PointSize, SwizzleComponent as S, TargetEnv, TexelBuffers,
    TypedUavRead,
};
use vkd3d_shader_shim::abi::*;
use vkd3d_shader_shim::exports::*;

const PS: &str = "ps_5_0\n\
    .output SV_Target 0 o0 float\n\
    .output SV_Target 1 o1 float\n\
    dcl_globalFlags refactoringAllowed\n\
    dcl_resource_raw t0\n\
    dcl_uav_typed_texture2d (float,float,float,float) u1\n\
    dcl_uav_raw u2\n\
    dcl_output o0.xyzw\n\
    dcl_output o1.xyzw\n\
    dcl_temps 2\n\
    ld_raw r0.x, l(0), t0.x\n\
    ld_uav_typed r1.xyzw, l(0, 0, 0, 0), u1.xyzw\n\
    atomic_iadd u2, l(0), l(1)\n\
    sampleinfo_uint r0.y, rasterizer.x\n\
    mov o0.xyzw, r1.xyzw\n\
    utof o1.xyzw, r0.xyxy\n\
    ret\n";

const GS: &str = "gs_4_0\n\
    .input SV_Position 0 v0 float POS\n\
    .output SV_Position 0 o0 float POS\n\
    dcl_input_siv v[1][0].xyzw, position\n\
    dcl_inputprimitive point\n\
    dcl_outputtopology pointlist\n\
    dcl_output_siv o0.xyzw, position\n\
    dcl_maxout 1\n\
    mov o0.xyzw, v[0][0].xyzw\n\
    emit\n\
    ret\n";

/// The stand-in's SPIR-V for `bytes` with `options` and an optional target info.
fn stand_in(bytes: &[u8], options: &[CompileOption], target: Option<&SpirvTargetInfo>) -> Vec<u32> {
    let next = target.map_or(std::ptr::null(), |t| {
        (t as *const SpirvTargetInfo).cast::<c_void>()
    });
    let info = CompileInfo {
        log_level: LOG_ERROR,
        source_name: c"options".as_ptr(),
        ..common::with_options(common::compile_info(bytes, SOURCE_DXBC_TPF, next), options)
    };
    let mut out = common::empty_code();
    let mut messages: *mut std::ffi::c_char = std::ptr::null_mut();
    // SAFETY: every structure lives across the call.
    let rc = unsafe { dxbc_spirv_shim_compile(&info, &mut out, &mut messages) };
    let text = if messages.is_null() {
        String::new()
    } else {
        // SAFETY: the stand-in's NUL-terminated message.
        unsafe { std::ffi::CStr::from_ptr(messages) }
            .to_string_lossy()
            .into_owned()
    };
    assert_eq!(rc, VKD3D_OK, "{text}");
    // SAFETY: the stand-in's SPIR-V, then freed by it.
    let words =
        unsafe { std::slice::from_raw_parts(out.code.cast::<u32>(), out.size / 4) }.to_vec();
    // SAFETY: the stand-in's allocations.
    unsafe {
        dxbc_spirv_shim_free_shader_code(&mut out);
        dxbc_spirv_shim_free_messages(messages);
    }
    words
}

/// What vkd3d's defaults map to: debug names kept, every raw/structured view and counter a
/// texel buffer, typed UAV reads as R32, the point size from every stage, no device features,
/// Vulkan 1.0, vkd3d's bindings without an interface.
fn vkd3d_defaults() -> Options {
    Options {
        debug_names: true,
        texel_buffers: TexelBuffers::ALL,
        typed_uav_read: TypedUavRead::R32,
        point_size: PointSize::AllStages,
        device_features: Some(DeviceFeatures::default()),
        target_env: TargetEnv::Vulkan1_0,
        binding: BindingPolicy::Vkd3d.into(),
        ..Options::default()
    }
}

fn translate(text: &str, o: &Options) -> (Vec<u8>, Vec<u32>) {
    let bytes = translator::asm::assemble(text).expect("assembles");
    let words = translator::translate(&bytes, o).expect("translates").spirv;
    (bytes, words)
}

#[test]
fn vkd3d_defaults_are_the_mapped_options() {
    for text in [PS, GS] {
        let (bytes, want) = translate(text, &vkd3d_defaults());
        assert_eq!(stand_in(&bytes, &[], None), want, "{text}");
        // Spelled out as vkd3d's defaults, the options change nothing.
        let spelled = [
            CompileOption {
                name: OPTION_BUFFER_UAV,
                value: BUFFER_UAV_STORAGE_TEXEL_BUFFER,
            },
            CompileOption {
                name: OPTION_TYPED_UAV,
                value: TYPED_UAV_READ_FORMAT_R32,
            },
            CompileOption {
                name: OPTION_WRITE_TESS_GEOM_POINT_SIZE,
                value: 1,
            },
        ];
        assert_eq!(stand_in(&bytes, &spelled, None), want, "{text}");
    }
}

#[test]
fn options_and_target_info_map_onto_layer_options() {
    // wzyx for render target 0, yxww for 1: component c of the output in bits 8c..8c + 7.
    let swizzles = [0x0001_0203u32, 0x0303_0001];
    let sample_count = Parameter {
        name: PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
        ty: PARAMETER_TYPE_IMMEDIATE_CONSTANT,
        data_type: PARAMETER_DATA_TYPE_UINT32,
        u: ParameterValue { u32_: 4 },
    };
    let extensions = [
        SPIRV_EXTENSION_EXT_DEMOTE_TO_HELPER_INVOCATION,
        SPIRV_EXTENSION_EXT_DESCRIPTOR_INDEXING,
    ];
    let target = SpirvTargetInfo {
        ty: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
        next: std::ptr::null(),
        entry_point: c"main".as_ptr(),
        environment: SPIRV_ENVIRONMENT_VULKAN_1_1,
        extensions: extensions.as_ptr(),
        extension_count: extensions.len() as u32,
        parameters: &sample_count,
        parameter_count: 1,
        dual_source_blending: 0,
        output_swizzles: swizzles.as_ptr(),
        output_swizzle_count: 2,
    };
    let options = [
        CompileOption {
            name: OPTION_BUFFER_UAV,
            value: BUFFER_UAV_STORAGE_BUFFER,
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
            value: FEATURE_FLOAT64 | FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY,
        },
    ];
    let mapped = Options {
        texel_buffers: TexelBuffers {
            raw_srv: true,
            raw_uav: false,
            uav_counter: false,
        },
        typed_uav_read: TypedUavRead::WithoutFormat,
        point_size: PointSize::Vertex,
        device_features: Some(DeviceFeatures {
            float64: true,
            zero_initialize_workgroup_memory: true,
            ..DeviceFeatures::default()
        }),
        target_env: TargetEnv::Vulkan1_1,
        rasterizer_sample_count: Some(4),
        output_swizzles: vec![[S::W, S::Z, S::Y, S::X], [S::Y, S::X, S::W, S::W]],
        ..vkd3d_defaults()
    };
    for text in [PS, GS] {
        let (bytes, want) = translate(text, &mapped);
        assert_eq!(stand_in(&bytes, &options, Some(&target)), want, "{text}");
    }
    // The mapping changes the pixel shader (each option has an effect on it) ...
    let (_, plain) = translate(PS, &vkd3d_defaults());
    let (bytes, want) = translate(PS, &mapped);
    assert_ne!(plain, want);
    // ... and dual-source blending moves o1 to location 0, index 1.
    let dual = SpirvTargetInfo {
        dual_source_blending: 1,
        output_swizzle_count: 0,
        ..target
    };
    let (_, want_dual) = translate(
        PS,
        &Options {
            dual_source_blending: true,
            output_swizzles: Vec::new(),
            ..mapped
        },
    );
    assert_eq!(stand_in(&bytes, &options, Some(&dual)), want_dual);
    assert_ne!(want_dual, want);
}

#[test]
fn a_swizzle_component_past_w_is_the_callers_error() {
    let bytes = translator::asm::assemble(PS).unwrap();
    let swizzles = [0x0004_0201u32];
    let target = SpirvTargetInfo {
        ty: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
        next: std::ptr::null(),
        entry_point: std::ptr::null(),
        environment: SPIRV_ENVIRONMENT_VULKAN_1_1,
        extensions: std::ptr::null(),
        extension_count: 0,
        parameters: std::ptr::null(),
        parameter_count: 0,
        dual_source_blending: 0,
        output_swizzles: swizzles.as_ptr(),
        output_swizzle_count: 1,
    };
    let info = common::compile_info(&bytes, SOURCE_DXBC_TPF, (&raw const target).cast());
    let mut out = common::empty_code();
    // SAFETY: every structure lives across the call.
    let rc = unsafe { dxbc_spirv_shim_compile(&info, &mut out, std::ptr::null_mut()) };
    assert_eq!(rc, VKD3D_ERROR_INVALID_ARGUMENT);
    assert!(out.code.is_null());
}
