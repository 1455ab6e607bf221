//! What D3D12 layers ask beyond bindings and parameters, through the C API: texel-buffer
//! flags (the binding request and the reflection name the type used), dynamic descriptor
//! offsets and mutable bindings from a table's rule extensions and from the second binding
//! callback (the reflection's `descriptor_exts` and `dynamic_offsets`), output swizzles,
//! dual-source blending, point size, typed-UAV reads as R32, device features and Vulkan 1.0.
//! Where an option changes the module, the C API's words equal the Rust API's with the same
//! options; every malformed struct is `DXBC_SPIRV_ERROR_INVALID_ARGUMENT` naming the field.

use super::*;
use dxbc_spirv::layer::*;
use translator::{Options, SwizzleComponent as C};

/// A raw SRV, a structured UAV whose counter is used and a raw UAV updated atomically.
const CS_VIEWS: &str = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_uav_structured u1, 4
dcl_uav_raw u2
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 4, 1, 1
ld_raw r0.x, l(0), t0.xxxx
imm_atomic_alloc r1.x, u1
store_structured u1.x, r1.x, l(0), r0.x
atomic_iadd u2, l(4), r0.x
ret
";

/// SM5.1 ranges in one heap: t0..t3 and the UAVs u0..u1 (with counters).
const CS_HEAP: &str = "cs_5_1
dcl_globalFlags refactoringAllowed
dcl_resource_raw T0[0:3], space=0
dcl_uav_structured_opc U0[0:1], 4, space=0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 4, 1, 1
and r0.x, vThreadID.x, l(3)
ld_raw r0.y, l(0), T0[r0.x + 0].xxxx
and r0.x, vThreadID.x, l(1)
imm_atomic_alloc r1.x, U0[r0.x + 0]
store_structured U0[r0.x + 0].x, r1.x, l(0), r0.y
ret
";

/// Three render targets.
const PS_TARGETS: &str = "ps_5_0
.output SV_Target 0 o0 float
.output SV_Target 1 o1 float
.output SV_Target 2 o2 float
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_output o2.xyzw
mov o0.xyzw, l(0.1, 0.2, 0.3, 0.4)
mov o1.xyzw, l(0.5, 0.6, 0.7, 0.8)
mov o2.xyzw, l(1.0, 1.0, 1.0, 1.0)
ret
";

/// A vertex shader (point size) and a double instruction (device features).
const VS_DOUBLE: &str = "vs_5_0
.input POSITION 0 v0 float
.output SV_Position 0 o0 float POS
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_temps 1
ftod r0.xy, v0.x
dadd r0.xy, r0.xyxy, r0.xyxy
dtof r0.x, r0.xyxx
mov o0.xyzw, r0.xxxx
ret
";

fn chained<T>(s: &T) -> *const c_void {
    (s as *const T).cast()
}

/// The C API's words for `info`, which must equal the Rust API's under `opts`.
fn same_as_rust(text: &str, info: &dxbc_spirv_translate_info, opts: &Options) -> Vec<u32> {
    let dxbc = asm(text);
    let shader = create(&dxbc).unwrap();
    let words = translate_words(shader, Some(info)).unwrap();
    unsafe { dxbc_spirv_shader_destroy(shader) };
    let rust = translator::translate(&dxbc, opts).unwrap();
    assert_eq!(words, rust.spirv, "C and Rust API differ for {opts:?}");
    words
}

fn descriptor_exts(r: *const dxbc_spirv_reflection) -> Vec<(u32, u32)> {
    let r = unsafe { &*r };
    unsafe { std::slice::from_raw_parts(r.descriptor_exts, r.descriptor_count as usize) }
        .iter()
        .map(|e| (e.dynamic_offset, e.flags))
        .collect()
}

fn dynamic_offsets(r: *const dxbc_spirv_reflection) -> Vec<u32> {
    let r = unsafe { &*r };
    unsafe { std::slice::from_raw_parts(r.dynamic_offsets, r.dynamic_offset_count as usize) }
        .to_vec()
}

#[test]
fn texel_buffer_flags_change_the_requested_and_reflected_types() {
    let shader = create(&asm(CS_VIEWS)).unwrap();
    let types = |flags: u32| {
        let mut rec = Recorder::default();
        let cb = dxbc_spirv_binding_callback_info {
            s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO,
            next: null(),
            callback: Some(record),
            user_data: (&mut rec as *mut Recorder).cast(),
        };
        let info = dxbc_spirv_translate_info {
            flags,
            ..translate_info(chained(&cb))
        };
        let (_, refl) = translate(shader, Some(&info)).unwrap();
        let mut reflected: Vec<_> = reflection_descriptors(refl)
            .iter()
            .map(|d| (d.register_class, d.register_lower, d.descriptor_type))
            .collect();
        reflected.sort();
        unsafe { dxbc_spirv_free_reflection(refl) };
        let mut requested: Vec<_> = rec
            .requests
            .iter()
            .map(|r| (r.register_class, r.register_index, r.descriptor_type))
            .collect();
        requested.sort();
        // The callback was told the type the module has.
        assert_eq!(requested, reflected);
        reflected
    };
    use DXBC_SPIRV_REGISTER_CLASS_SRV as SRV;
    use DXBC_SPIRV_REGISTER_CLASS_UAV as UAV;
    use DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER as CTR;
    let sb = DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    let utb = DXBC_SPIRV_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    let stb = DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    let mut none = vec![(SRV, 0, sb), (UAV, 1, sb), (UAV, 2, sb), (CTR, 1, sb)];
    none.sort();
    assert_eq!(types(0), none);
    let mut all = vec![(SRV, 0, utb), (UAV, 1, stb), (UAV, 2, stb), (CTR, 1, stb)];
    all.sort();
    assert_eq!(
        types(
            DXBC_SPIRV_TRANSLATE_RAW_SRV_TEXEL_BUFFERS
                | DXBC_SPIRV_TRANSLATE_RAW_UAV_TEXEL_BUFFERS
                | DXBC_SPIRV_TRANSLATE_UAV_COUNTER_TEXEL_BUFFERS
        ),
        all
    );
    let mut counters = vec![(SRV, 0, sb), (UAV, 1, sb), (UAV, 2, sb), (CTR, 1, stb)];
    counters.sort();
    assert_eq!(
        types(DXBC_SPIRV_TRANSLATE_UAV_COUNTER_TEXEL_BUFFERS),
        counters
    );
    unsafe { dxbc_spirv_shader_destroy(shader) };
    // The words are the Rust API's with `Options::texel_buffers`.
    same_as_rust(
        CS_VIEWS,
        &dxbc_spirv_translate_info {
            flags: DXBC_SPIRV_TRANSLATE_RAW_UAV_TEXEL_BUFFERS,
            ..translate_info(null())
        },
        &Options {
            texel_buffers: translator::TexelBuffers {
                raw_uav: true,
                ..Default::default()
            },
            ..Default::default()
        },
    );
}

#[test]
fn descriptor_rule_extensions_add_dynamic_offsets_and_mutable_bindings() {
    let shader = create(&asm(CS_HEAP)).unwrap();
    let rule = |register_class, binding, array_offset| dxbc_spirv_descriptor_rule {
        register_class,
        register_space: 0,
        register_index: 0,
        count: DXBC_SPIRV_UNBOUNDED,
        set: 0,
        binding,
        array_offset,
        descriptor_type_mask: 0,
    };
    // SRVs and UAVs in one mutable heap binding, each table's offset pushed at bytes 16 and
    // 20; the counters in a binding of their own, offset by bytes 20 too.
    let rules = [
        rule(DXBC_SPIRV_REGISTER_CLASS_SRV, 0, 2),
        rule(DXBC_SPIRV_REGISTER_CLASS_UAV, 0, 0),
        rule(DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER, 1, 0),
    ];
    let ext = |dynamic_offset, flags| dxbc_spirv_descriptor_rule_ext {
        dynamic_offset,
        flags,
    };
    let exts = [
        ext(16, DXBC_SPIRV_DESCRIPTOR_MUTABLE),
        ext(20, DXBC_SPIRV_DESCRIPTOR_MUTABLE),
        ext(20, 0),
    ];
    let ext_info = |exts: &[dxbc_spirv_descriptor_rule_ext]| dxbc_spirv_descriptor_rule_ext_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_DESCRIPTOR_RULE_EXT_INFO,
        next: null(),
        rule_count: exts.len() as u32,
        rules: exts.as_ptr(),
    };
    let e = ext_info(&exts);
    let table = dxbc_spirv_binding_table_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO,
        next: chained(&e),
        descriptor_rule_count: rules.len() as u32,
        descriptor_rules: rules.as_ptr(),
        push_constant_rule_count: 0,
        push_constant_rules: null(),
    };
    let (_, refl) = translate(shader, Some(&translate_info(chained(&table)))).unwrap();
    let placed: Vec<_> = reflection_descriptors(refl)
        .iter()
        .map(|d| (d.binding, d.register_class, d.descriptor_type, d.count))
        .zip(descriptor_exts(refl))
        .collect();
    let runtime = DXBC_SPIRV_UNBOUNDED;
    assert_eq!(
        placed,
        [
            (
                (
                    0,
                    DXBC_SPIRV_REGISTER_CLASS_UAV,
                    DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                    runtime
                ),
                (20, DXBC_SPIRV_DESCRIPTOR_MUTABLE)
            ),
            (
                (
                    0,
                    DXBC_SPIRV_REGISTER_CLASS_SRV,
                    DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                    runtime
                ),
                (16, DXBC_SPIRV_DESCRIPTOR_MUTABLE)
            ),
            (
                (
                    1,
                    DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER,
                    DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                    runtime
                ),
                (20, 0)
            ),
        ]
    );
    assert_eq!(dynamic_offsets(refl), [16, 20]);
    unsafe { dxbc_spirv_free_reflection(refl) };

    // With texel-buffer SRVs, the heap binding holds two descriptor types: allowed because
    // both rules say it is mutable, and the feature is listed.
    let info = dxbc_spirv_translate_info {
        flags: DXBC_SPIRV_TRANSLATE_RAW_SRV_TEXEL_BUFFERS,
        ..translate_info(chained(&table))
    };
    let (_, refl) = translate(shader, Some(&info)).unwrap();
    let r = unsafe { &*refl };
    let features: Vec<String> =
        unsafe { std::slice::from_raw_parts(r.vulkan_features, r.vulkan_feature_count as usize) }
            .iter()
            .map(|&p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
            .collect();
    assert!(
        features.iter().any(|f| f == "mutableDescriptorType"),
        "{features:?}"
    );
    unsafe { dxbc_spirv_free_reflection(refl) };
    // Not mutable: the two types conflict.
    let plain = [ext(16, 0), ext(20, 0), ext(20, 0)];
    let e2 = ext_info(&plain);
    let t2 = dxbc_spirv_binding_table_info {
        next: chained(&e2),
        ..table
    };
    let (s, m) = translate_words(
        shader,
        Some(&dxbc_spirv_translate_info {
            flags: DXBC_SPIRV_TRANSLATE_RAW_SRV_TEXEL_BUFFERS,
            ..translate_info(chained(&t2))
        }),
    )
    .unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_BINDING, "{m}");
    assert!(m.contains("share set 0 binding 0"), "{m}");

    // Malformed extensions, each named.
    let bad: [(&[dxbc_spirv_descriptor_rule_ext], &str); 3] = [
        (&exts[..2], "rule_count 2 differs"),
        (
            &[ext(18, 0), ext(20, 0), ext(20, 0)],
            "rules[0].dynamic_offset 18",
        ),
        (&[ext(16, 0), ext(20, 4), ext(20, 0)], "rules[1].flags 0x4"),
    ];
    for (exts, needle) in bad {
        let e = ext_info(exts);
        let t = dxbc_spirv_binding_table_info {
            next: chained(&e),
            ..table
        };
        let (s, m) = translate_words(shader, Some(&translate_info(chained(&t)))).unwrap_err();
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT, "{m}");
        assert!(m.contains(needle), "{needle}: {m}");
    }
    // Without a table to extend.
    let e = ext_info(&exts);
    let (s, m) = translate_words(shader, Some(&translate_info(chained(&e)))).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("without a dxbc_spirv_binding_table_info"), "{m}");
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

/// Places every range at set 0 binding 0 (mutable), element 10 + register, offset by the word
/// at byte 4 × class; counters at binding 1 without an offset. With `bad_flags`, answers
/// flags no define names.
unsafe extern "C" fn heap(
    user: *mut c_void,
    req: *const dxbc_spirv_binding_request,
    out: *mut dxbc_spirv_binding2,
) -> dxbc_spirv_bool {
    let bad_flags = unsafe { *user.cast::<bool>() };
    let req = unsafe { &*req };
    let out = unsafe { &mut *out };
    // The library's defaults.
    assert_eq!(
        (out.kind, out.dynamic_offset, out.flags),
        (
            DXBC_SPIRV_BINDING_KIND_DESCRIPTOR,
            DXBC_SPIRV_NO_DYNAMIC_OFFSET,
            0
        )
    );
    out.array_offset = 10;
    if req.register_class == DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER {
        out.binding = 1;
        return 1;
    }
    out.dynamic_offset = 4 * req.register_class;
    out.flags = if bad_flags {
        0x10
    } else {
        DXBC_SPIRV_DESCRIPTOR_MUTABLE
    };
    1
}

#[test]
fn binding_callback2_answers_dynamic_offsets_and_mutability() {
    let shader = create(&asm(CS_HEAP)).unwrap();
    let bad_flags = std::cell::Cell::new(false);
    let cb = dxbc_spirv_binding_callback2_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK2_INFO,
        next: null(),
        callback: Some(heap),
        user_data: bad_flags.as_ptr().cast(),
    };
    let (_, refl) = translate(shader, Some(&translate_info(chained(&cb)))).unwrap();
    let got: Vec<_> = reflection_descriptors(refl)
        .iter()
        .map(|d| (d.binding, d.register_class, d.array_offset))
        .zip(descriptor_exts(refl))
        .collect();
    let (srv, uav) = (DXBC_SPIRV_REGISTER_CLASS_SRV, DXBC_SPIRV_REGISTER_CLASS_UAV);
    let mutable = DXBC_SPIRV_DESCRIPTOR_MUTABLE;
    let mut want = vec![
        ((0, srv, 10), (4 * srv, mutable)),
        ((0, uav, 10), (4 * uav, mutable)),
        (
            (1, DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER, 10),
            (DXBC_SPIRV_NO_DYNAMIC_OFFSET, 0),
        ),
    ];
    want.sort();
    let mut got = got;
    got.sort();
    assert_eq!(got, want);
    let mut offsets = vec![4 * srv, 4 * uav];
    offsets.sort();
    assert_eq!(dynamic_offsets(refl), offsets);
    unsafe { dxbc_spirv_free_reflection(refl) };
    // An answer with unknown flags is a binding error naming the register.
    bad_flags.set(true);
    let (s, m) = translate_words(shader, Some(&translate_info(chained(&cb)))).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_BINDING, "{m}");
    assert!(m.contains("flags 0x10"), "{m}");
    // One binding struct of any kind per translation.
    let policy = dxbc_spirv_binding_policy_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO,
        next: chained(&cb),
        policy: DXBC_SPIRV_BINDING_POLICY_PER_RANGE,
    };
    let (s, m) = translate_words(shader, Some(&translate_info(chained(&policy)))).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("more than one"), "{m}");
    let null_cb = dxbc_spirv_binding_callback2_info {
        callback: None,
        ..cb
    };
    let (s, _) = translate_words(shader, Some(&translate_info(chained(&null_cb)))).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

#[test]
fn pixel_outputs_point_size_and_typed_reads_equal_the_rust_api() {
    // vkd3d's packing: alpha to red, the rest shifted; then blue-green-red-alpha.
    let swizzles = [0x0201_0003u32, 0x0300_0102];
    let sw = dxbc_spirv_output_swizzle_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO,
        next: null(),
        swizzle_count: 2,
        swizzles: swizzles.as_ptr(),
    };
    let info = dxbc_spirv_translate_info {
        flags: DXBC_SPIRV_TRANSLATE_DUAL_SOURCE_BLENDING,
        ..translate_info(chained(&sw))
    };
    let words = same_as_rust(
        PS_TARGETS,
        &info,
        &Options {
            output_swizzles: vec![[C::W, C::X, C::Y, C::Z], [C::Z, C::Y, C::X, C::W]],
            dual_source_blending: true,
            ..Default::default()
        },
    );
    // `Index 1` decorates o1 (OpDecorate = 71, Index = 32).
    let decorated_index = words
        .windows(4)
        .any(|w| w[0] == (4 << 16 | 71) && w[2] == 32 && w[3] == 1);
    assert!(decorated_index);
    for (flags, point_size) in [
        (
            DXBC_SPIRV_TRANSLATE_VERTEX_POINT_SIZE,
            translator::PointSize::Vertex,
        ),
        (
            DXBC_SPIRV_TRANSLATE_TESS_GEOM_POINT_SIZE,
            translator::PointSize::AllStages,
        ),
    ] {
        let info = dxbc_spirv_translate_info {
            flags,
            ..translate_info(null())
        };
        same_as_rust(
            VS_DOUBLE,
            &info,
            &Options {
                point_size,
                ..Default::default()
            },
        );
    }
    let typed = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_typed_texture2d (float,float,float,float) u0
dcl_temps 1
dcl_thread_group 1, 1, 1
ld_uav_typed r0.xyzw, l(0, 0, 0, 0), u0.xyzw
store_uav_typed u0.xyzw, l(1, 0, 0, 0), r0.xyzw
ret
";
    let words = same_as_rust(
        typed,
        &dxbc_spirv_translate_info {
            flags: DXBC_SPIRV_TRANSLATE_TYPED_UAV_READ_R32,
            ..translate_info(null())
        },
        &Options {
            typed_uav_read: translator::TypedUavRead::R32,
            ..Default::default()
        },
    );
    // No StorageImageReadWithoutFormat (OpCapability = 17, capability 55).
    assert!(
        !words
            .windows(2)
            .any(|w| w[0] == (2 << 16 | 17) && w[1] == 55)
    );

    // Malformed swizzles.
    let shader = create(&asm(PS_TARGETS)).unwrap();
    let bad_component = [0x0401_0203u32];
    let nine = [0x0302_0100u32; 9];
    for (sw, needle) in [
        (&bad_component[..], "swizzles[0] 0x04010203: component 3"),
        (&nine[..], "swizzle_count 9"),
    ] {
        let s = dxbc_spirv_output_swizzle_info {
            s_type: DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO,
            next: null(),
            swizzle_count: sw.len() as u32,
            swizzles: sw.as_ptr(),
        };
        let (st, m) = translate_words(shader, Some(&translate_info(chained(&s)))).unwrap_err();
        assert_eq!(st, DXBC_SPIRV_ERROR_INVALID_ARGUMENT, "{m}");
        assert!(m.contains(needle), "{needle}: {m}");
    }
    let dangling = dxbc_spirv_output_swizzle_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO,
        next: null(),
        swizzle_count: 1,
        swizzles: null(),
    };
    let (st, _) = translate_words(shader, Some(&translate_info(chained(&dangling)))).unwrap_err();
    assert_eq!(st, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

#[test]
fn device_features_refuse_what_the_device_lacks() {
    let shader = create(&asm(VS_DOUBLE)).unwrap();
    let features = |features| dxbc_spirv_device_features_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_DEVICE_FEATURES_INFO,
        next: null(),
        features,
    };
    let none = features(DXBC_SPIRV_DEVICE_FEATURE_INT64);
    let (s, m) = translate_words(shader, Some(&translate_info(chained(&none)))).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_UNSUPPORTED, "{m}");
    assert!(m.contains("shaderFloat64"), "{m}");
    let f64 = features(DXBC_SPIRV_DEVICE_FEATURE_FLOAT64);
    assert!(translate_words(shader, Some(&translate_info(chained(&f64)))).is_ok());
    let unknown = features(1 << 9);
    let (s, m) = translate_words(shader, Some(&translate_info(chained(&unknown)))).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("0x200"), "{m}");
    unsafe { dxbc_spirv_shader_destroy(shader) };
    // Zero-initialised thread-group shared memory follows the feature, not the target.
    let tgsm = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_temps 1
dcl_tgsm_raw g0, 16
dcl_thread_group 4, 1, 1
ld_raw r0.x, l(0), g0.xxxx
store_raw u0.x, l(0), r0.x
ret
";
    let zero = features(DXBC_SPIRV_DEVICE_FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY);
    same_as_rust(
        tgsm,
        &dxbc_spirv_translate_info {
            target_env: DXBC_SPIRV_TARGET_ENV_VULKAN_1_1,
            ..translate_info(chained(&zero))
        },
        &Options {
            target_env: translator::TargetEnv::Vulkan1_1,
            device_features: Some(translator::DeviceFeatures {
                zero_initialize_workgroup_memory: true,
                ..Default::default()
            }),
            ..Default::default()
        },
    );
}

#[test]
fn vulkan_1_0_target() {
    let words = same_as_rust(
        CS_VIEWS,
        &dxbc_spirv_translate_info {
            target_env: DXBC_SPIRV_TARGET_ENV_VULKAN_1_0,
            ..translate_info(null())
        },
        &Options {
            target_env: translator::TargetEnv::Vulkan1_0,
            ..Default::default()
        },
    );
    assert_eq!(words[1], 0x0001_0000, "SPIR-V 1.0");
}
