//! What D3D12 layers ask (issue 27) through the whole pipeline, checked on the SPIR-V: texel
//! buffers for raw/structured views and counters, descriptor indices offset by push-constant
//! words (beside root constants), mutable bindings, output swizzles and dual-source blending
//! (DXBC and D3D9), typed UAV reads as R32, the sample count as a constant, point size,
//! device features and Vulkan 1.0. (`tests/tests/layer_options.rs` runs spirv-val over the
//! corpus with these options; the runtime tests run them on a device.)

use spirv::{BuiltIn, Capability, Decoration, Dim, ImageFormat, Op, StorageClass};

use super::query::insts;
use crate::binding::{Binding, Placement, RangeRequest, Resolver};
use crate::reflect::{DescriptorType, RegisterClass};
use crate::{Options, SwizzleComponent as C};

fn translate(text: &str, opts: &Options) -> Result<crate::Translation, crate::Error> {
    let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    crate::translate(&dxbc, opts)
}

fn count(words: &[u32], op: Op) -> usize {
    insts(words).iter().filter(|(o, _)| *o == op).count()
}

/// Every `(target, value operands)` of `OpDecorate target DECORATION ...`.
fn decorations(words: &[u32], d: Decoration) -> Vec<(u32, Vec<u32>)> {
    insts(words)
        .iter()
        .filter(|(o, a)| *o == Op::Decorate && a[1] == d as u32)
        .map(|(_, a)| (a[0], a[2..].to_vec()))
        .collect()
}

fn has_capability(words: &[u32], c: Capability) -> bool {
    insts(words)
        .iter()
        .any(|(o, a)| *o == Op::Capability && a[0] == c as u32)
}

/// The floats of every `OpConstantComposite` whose constituents are all 32-bit float
/// constants.
fn float_composites(words: &[u32]) -> Vec<Vec<f32>> {
    let all = insts(words);
    let float_types: Vec<u32> = all
        .iter()
        .filter(|(o, a)| *o == Op::TypeFloat && a[1] == 32)
        .map(|(_, a)| a[0])
        .collect();
    let consts: std::collections::HashMap<u32, f32> = all
        .iter()
        .filter(|(o, a)| *o == Op::Constant && float_types.contains(&a[0]))
        .map(|(_, a)| (a[1], f32::from_bits(a[2])))
        .collect();
    all.iter()
        .filter(|(o, _)| *o == Op::ConstantComposite)
        .filter_map(|(_, a)| a[2..].iter().map(|id| consts.get(id).copied()).collect())
        .collect()
}

const CS_VIEWS: &str = include_str!("../../../shaders/asm/cs_buffer_views.asm");

#[test]
fn texel_buffers_replace_every_storage_buffer() {
    let plain = translate(CS_VIEWS, &Options::default()).unwrap();
    let opts = Options {
        texel_buffers: crate::TexelBuffers::ALL,
        ..Default::default()
    };
    let t = translate(CS_VIEWS, &opts).unwrap();
    // No storage buffer is left: views and counters are R32_UINT images.
    let storage_buffers = |w: &[u32]| {
        insts(w)
            .iter()
            .filter(|(o, a)| *o == Op::Variable && a[2] == StorageClass::StorageBuffer as u32)
            .count()
    };
    assert!(storage_buffers(&plain.spirv) > 0);
    assert_eq!(storage_buffers(&t.spirv), 0);
    let images: Vec<(u32, u32, u32)> = insts(&t.spirv)
        .iter()
        .filter(|(o, _)| *o == Op::TypeImage)
        .map(|(_, a)| (a[2], a[6], a[7]))
        .collect();
    assert_eq!(
        images,
        [
            (Dim::DimBuffer as u32, 1, ImageFormat::Unknown as u32),
            (Dim::DimBuffer as u32, 2, ImageFormat::R32ui as u32)
        ]
    );
    // Four atomics and two counter operations, each through a texel pointer; loads and
    // stores as image reads, fetches and writes.
    assert_eq!(count(&t.spirv, Op::ImageTexelPointer), 6);
    assert_eq!(count(&plain.spirv, Op::ImageTexelPointer), 0);
    assert!(count(&t.spirv, Op::ImageRead) >= 3);
    assert!(count(&t.spirv, Op::ImageWrite) >= 5);
    assert!(count(&t.spirv, Op::ImageFetch) >= 1);
    assert_eq!(
        count(&t.spirv, Op::ImageSparseFetch),
        count(&plain.spirv, Op::ImageSparseFetch)
    );
    // bufinfo on the raw and the structured UAV.
    assert_eq!(count(&t.spirv, Op::ArrayLength), 0);
    assert!(count(&t.spirv, Op::ImageQuerySize) >= 2);
    let types: Vec<(RegisterClass, bool, DescriptorType)> = t
        .reflection
        .descriptors
        .iter()
        .map(|d| (d.origin.class, d.origin.uav_counter, d.descriptor_type))
        .collect();
    for (class, counter, ty) in types {
        let want = match (class, counter) {
            (RegisterClass::T, _) => DescriptorType::UniformTexelBuffer,
            _ => DescriptorType::StorageTexelBuffer,
        };
        assert_eq!(ty, want, "{class:?} counter {counter}");
    }
}

/// Records each range's requested descriptor type; places every range in one mutable heap
/// binding (set 0, binding 0), SRVs at element 8 +, UAVs at 16 +, offset by the words at
/// bytes 16 (SRVs), 20 (UAVs) and 4 (inside the root constants b0 at bytes 0..8, CBVs);
/// counters at binding 1, offset by the word at 20; `b0` in push constants.
struct Heap;

impl Resolver for Heap {
    fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
        if r.class == RegisterClass::B && r.lower == 0 && r.upper == Some(0) {
            return Ok(Placement::PushConstant { offset: 0, size: 8 });
        }
        let (binding, base, word) = match (r.class, r.counter) {
            (_, true) => (1, 0, 20),
            (RegisterClass::T, _) => (0, 8, 16),
            (RegisterClass::U, _) => (0, 16, 20),
            (RegisterClass::B, _) => (0, 0, 4),
            (RegisterClass::S, _) => (2, 0, 16),
        };
        Ok(Placement::Descriptor {
            set: 0,
            binding,
            array_offset: base,
            dynamic_offset: Some(word),
            mutable: binding == 0,
        })
    }
}

const CS_HEAP: &str = "cs_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[0:0][1], immediateIndexed, space=0
dcl_constantbuffer CB1[1:2][1], dynamicIndexed, space=0
dcl_resource_raw T0[0:3], space=0
dcl_uav_structured_opc U0[0:1], 4, space=0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 4, 1, 1
and r0.x, vThreadID.x, l(3)
ld_raw r0.y, l(0), T0[r0.x + 0].xxxx
iadd r0.y, r0.y, CB0[0][0].x
and r0.z, vThreadID.x, l(1)
iadd r0.y, r0.y, CB1[r0.z + 1][0].x
imm_atomic_alloc r1.x, U0[r0.z + 0] {nonuniform}
store_structured U0[r0.z + 0].x {nonuniform}, r1.x, l(0), r0.y
ret
";

#[test]
fn dynamic_offsets_index_runtime_arrays_beside_root_constants() {
    let opts = Options {
        binding: Binding::from(Heap),
        ..Default::default()
    };
    let t = translate(CS_HEAP, &opts).unwrap();
    let r = &t.reflection;
    // Every descriptor is a runtime array offset by its word; the words are listed once.
    assert!(r.descriptors.iter().all(|d| d.count.is_none()));
    let mut got: Vec<_> = r
        .descriptors
        .iter()
        .map(|d| {
            (
                d.origin.class,
                d.origin.uav_counter,
                d.array_offset,
                d.dynamic_offset,
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (RegisterClass::B, false, 0, Some(4)),
            (RegisterClass::T, false, 8, Some(16)),
            (RegisterClass::U, false, 16, Some(20)),
            (RegisterClass::U, true, 0, Some(20)),
        ]
    );
    assert_eq!(r.dynamic_offsets, [4, 16, 20]);
    assert_eq!(r.push_constants.len(), 1);
    assert_eq!(
        (r.push_constants[0].offset, r.push_constants[0].size),
        (0, 8)
    );
    // One push-constant block: b0's `uint[2]` (holding the word at byte 4) and two `u32`
    // words of their own at 16 and 20.
    let offsets: Vec<u32> = insts(&t.spirv)
        .iter()
        .filter(|(o, a)| *o == Op::MemberDecorate && a[2] == Decoration::Offset as u32)
        .filter(|(_, a)| {
            insts(&t.spirv).iter().any(|(o, b)| {
                *o == Op::Decorate && b[0] == a[0] && b[1] == Decoration::Block as u32
            }) && insts(&t.spirv)
                .iter()
                .any(|(o, b)| *o == Op::TypePointer && b[2] == a[0] && b[1] == 9)
        })
        .map(|(_, a)| a[3])
        .collect();
    assert_eq!(offsets, [0, 16, 20]);
    assert!(has_capability(&t.spirv, Capability::RuntimeDescriptorArray));
    assert!(has_capability(&t.spirv, Capability::ShaderNonUniform));
    // The element of a one-register range is its word plus the static offset: the loads of
    // the words come before every descriptor access.
    assert!(
        insts(&t.spirv)
            .iter()
            .filter(|(o, a)| *o == Op::AccessChain && a.len() >= 4)
            .count()
            >= 4
    );
    // CBVs (uniform buffers) share the mutable binding with SRVs and UAVs (storage buffers):
    // the feature is listed. Without the CBVs there, one type: not listed.
    assert!(
        r.vulkan_features
            .iter()
            .any(|f| f == "mutableDescriptorType")
    );
    let no_cbv = CS_HEAP
        .replace(
            "dcl_constantbuffer CB1[1:2][1], dynamicIndexed, space=0\n",
            "",
        )
        .replace("iadd r0.y, r0.y, CB1[r0.z + 1][0].x\n", "");
    let t = translate(&no_cbv, &opts).unwrap();
    assert!(
        !t.reflection
            .vulkan_features
            .iter()
            .any(|f| f == "mutableDescriptorType")
    );
    let texel = Options {
        texel_buffers: crate::TexelBuffers {
            raw_srv: true,
            ..Default::default()
        },
        ..opts.clone()
    };
    let t = translate(&no_cbv, &texel).unwrap();
    assert!(
        t.reflection
            .vulkan_features
            .iter()
            .any(|f| f == "mutableDescriptorType")
    );
    assert!(
        t.reflection
            .descriptors
            .iter()
            .all(|d| d.mutable || d.binding != 0)
    );
}

#[test]
fn dynamic_offsets_are_refused_for_internal_buffers_and_d3d9() {
    struct All;
    impl Resolver for All {
        fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
            Ok(Placement::Descriptor {
                set: 0,
                binding: r.class as u32,
                array_offset: 0,
                dynamic_offset: Some(0),
                mutable: false,
            })
        }
    }
    let opts = Options {
        binding: Binding::from(All),
        icb: crate::IcbMode::UniformBuffer {
            space: 0,
            register: 14,
        },
        ..Default::default()
    };
    let icb = "ps_5_0\n.output SV_Target 0 o0 float\n\
        dcl_immediateConstantBuffer { { 1.0, 2.0, 3.0, 4.0 } }\n\
        dcl_output o0.xyzw\nmov o0.xyzw, icb[0].xyzw\nret\n";
    let e = translate(icb, &opts).unwrap_err();
    assert!(e.is_unsupported(), "{e}");
    assert!(e.to_string().contains("dynamic descriptor offset"), "{e}");
    let d3d9 = crate::d3dbc::asm::assemble(
        "ps_2_0\ndcl_2d s0\ndcl t0.xy\ntexld r0, t0, s0\nmov oC0, r0\n",
    )
    .unwrap();
    let e = crate::translate(&d3d9, &opts).unwrap_err();
    assert!(e.to_string().contains("dynamic descriptor offset"), "{e}");
}

const PS_TARGETS: &str = "ps_5_0
.output SV_Target 0 o0 float
.output SV_Target 1 o1 float
.output SV_Target 2 o2 float
dcl_output o0.xyzw
dcl_output o1.xy
dcl_output o2.xyzw
mov o0.xyzw, l(0.1, 0.2, 0.3, 0.4)
mov o1.xy, l(0.5, 0.6, 0, 0)
mov o2.xyzw, l(0.7, 0.8, 0.9, 1.0)
ret
";

#[test]
fn output_swizzles_move_components() {
    let opts = Options {
        // o0: alpha to red; o1 (written .xy only): yx00 → its own vec4; o2: identity.
        output_swizzles: vec![
            [C::W, C::X, C::Y, C::Z],
            [C::Y, C::X, C::W, C::W],
            C::IDENTITY,
        ],
        ..Default::default()
    };
    let t = translate(PS_TARGETS, &opts).unwrap();
    let consts = float_composites(&t.spirv);
    assert!(consts.contains(&vec![0.4, 0.1, 0.2, 0.3]), "{consts:?}");
    // o1: components 2 and 3 were never written (0).
    assert!(consts.contains(&vec![0.6, 0.5, 0.0, 0.0]), "{consts:?}");
    assert!(consts.contains(&vec![0.7, 0.8, 0.9, 1.0]), "{consts:?}");
    // Identity swizzles change nothing.
    let identity = Options {
        output_swizzles: vec![C::IDENTITY; 3],
        ..Default::default()
    };
    assert_eq!(
        translate(PS_TARGETS, &identity).unwrap().spirv,
        translate(PS_TARGETS, &Options::default()).unwrap().spirv
    );
    // D3D9: the same through oC0.
    let d3d9 =
        crate::d3dbc::asm::assemble("ps_2_0\ndef c0, 0.1, 0.2, 0.3, 0.4\nmov oC0, c0\n").unwrap();
    let t = crate::translate(
        &d3d9,
        &Options {
            output_swizzles: vec![[C::W, C::X, C::Y, C::Z]],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(count(&t.spirv, Op::VectorShuffle), 1);
}

#[test]
fn dual_source_blending_puts_o1_at_index_1() {
    let opts = Options {
        dual_source_blending: true,
        ..Default::default()
    };
    let t = translate(PS_TARGETS, &opts).unwrap();
    let locations = decorations(&t.spirv, Decoration::Location);
    let indices = decorations(&t.spirv, Decoration::Index);
    // o0 and o1 at location 0, indices 0 and 1; o2 has no variable (its writes are dropped).
    assert_eq!(locations.len(), 2);
    assert!(locations.iter().all(|(_, v)| v == &[0]));
    let mut idx: Vec<u32> = indices.iter().map(|(_, v)| v[0]).collect();
    idx.sort();
    assert_eq!(idx, [0, 1]);
    assert!(
        t.reflection
            .vulkan_features
            .iter()
            .any(|f| f == "dualSrcBlend")
    );
    assert_eq!(
        t.reflection
            .outputs
            .iter()
            .map(|o| o.semantic_index)
            .collect::<Vec<_>>(),
        [0, 1]
    );
    // D3D9: oC0 and oC1.
    let d3d9 = crate::d3dbc::asm::assemble(
        "ps_2_0\ndef c0, 0.1, 0.2, 0.3, 0.4\nmov oC0, c0\nmov oC1, c0\nmov oC2, c0\n",
    )
    .unwrap();
    let t = crate::translate(&d3d9, &opts).unwrap();
    let mut idx: Vec<u32> = decorations(&t.spirv, Decoration::Index)
        .iter()
        .map(|(_, v)| v[0])
        .collect();
    idx.sort();
    assert_eq!(idx, [0, 1]);
    // Two colour outputs (oC2 dropped) beside the fog input the render state reads.
    let outputs: Vec<u32> = insts(&t.spirv)
        .iter()
        .filter(|(o, a)| *o == Op::Variable && a[2] == StorageClass::Output as u32)
        .map(|(_, a)| a[1])
        .collect();
    assert_eq!(outputs.len(), 2);
    assert!(
        decorations(&t.spirv, Decoration::Location)
            .iter()
            .filter(|(g, _)| outputs.contains(g))
            .all(|(_, v)| v == &[0])
    );
}

#[test]
fn typed_uav_reads_declare_r32() {
    let cs = "cs_5_0\ndcl_globalFlags refactoringAllowed\n\
        dcl_uav_typed_texture2d (float,float,float,float) u0\n\
        dcl_uav_typed_texture2d (sint,sint,sint,sint) u1\ndcl_temps 1\n\
        dcl_thread_group 1, 1, 1\n\
        ld_uav_typed r0.xyzw, l(0, 0, 0, 0), u0.xyzw\n\
        store_uav_typed u1.xyzw, l(0, 0, 0, 0), r0.xyzw\nret\n";
    let formats = |o: &Options| -> (Vec<u32>, bool) {
        let t = translate(cs, o).unwrap();
        let f = insts(&t.spirv)
            .iter()
            .filter(|(op, _)| *op == Op::TypeImage)
            .map(|(_, a)| a[7])
            .collect();
        (
            f,
            has_capability(&t.spirv, Capability::StorageImageReadWithoutFormat),
        )
    };
    assert_eq!(
        formats(&Options::default()),
        (
            vec![ImageFormat::Unknown as u32, ImageFormat::Unknown as u32],
            true
        )
    );
    // The read UAV is R32f; the one only written keeps Unknown.
    let r32 = Options {
        typed_uav_read: crate::TypedUavRead::R32,
        ..Default::default()
    };
    assert_eq!(
        formats(&r32),
        (
            vec![ImageFormat::R32f as u32, ImageFormat::Unknown as u32],
            false
        )
    );
}

#[test]
fn sample_count_as_a_constant() {
    let ps = "ps_5_0\n.output SV_Target 0 o0 uint\ndcl_output o0.xyzw\n\
        sampleinfo_uint o0.xyzw, rasterizer.xxxx\nret\n";
    let t = translate(
        ps,
        &Options {
            rasterizer_sample_count: Some(4),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(decorations(&t.spirv, Decoration::SpecId).is_empty());
    assert!(t.reflection.spec_constants.is_empty());
    // The stored output is the constant (4, 0, 0, 0).
    let all = insts(&t.spirv);
    let four: Vec<u32> = all
        .iter()
        .filter(|(o, a)| *o == Op::Constant && a.len() == 3 && a[2] == 4)
        .map(|(_, a)| a[1])
        .collect();
    assert!(
        all.iter()
            .any(|(o, a)| *o == Op::ConstantComposite && four.contains(&a[2])),
        "no (4, 0, 0, 0)"
    );
}

#[test]
fn point_size_is_written_by_the_stages_asked() {
    let vs = "vs_5_0\n.input POSITION 0 v0 float\n.output SV_Position 0 o0 float POS\n\
        dcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\nmov o0.xyzw, v0.xyzw\nret\n";
    let gs = "gs_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Position 0 o0 float POS\n\
        dcl_input_siv v[1][0].xyzw, position\ndcl_inputprimitive point\n\
        dcl_stream m0\ndcl_outputtopology pointlist\ndcl_output_siv o0.xyzw, position\n\
        dcl_maxout 1\nmov o0.xyzw, v[0][0].xyzw\nemit_stream m0\nret\n";
    let point_size = |text: &str, p: crate::PointSize| {
        let t = translate(
            text,
            &Options {
                point_size: p,
                ..Default::default()
            },
        )
        .unwrap();
        let builtin = decorations(&t.spirv, Decoration::BuiltIn)
            .iter()
            .any(|(_, v)| v == &[BuiltIn::PointSize as u32]);
        let feature = t
            .reflection
            .vulkan_features
            .iter()
            .any(|f| f == "shaderTessellationAndGeometryPointSize");
        (
            builtin,
            feature,
            has_capability(&t.spirv, Capability::GeometryPointSize),
        )
    };
    use crate::PointSize as P;
    assert_eq!(point_size(vs, P::Unwritten), (false, false, false));
    assert_eq!(point_size(vs, P::Vertex), (true, false, false));
    assert_eq!(point_size(vs, P::AllStages), (true, false, false));
    assert_eq!(point_size(gs, P::Vertex), (false, false, false));
    assert_eq!(point_size(gs, P::AllStages), (true, true, true));
    // A geometry shader that never emits (no output topology: points) writes it too, as
    // Vulkan requires of a points-output geometry shader once the feature is enabled
    // (VUID-VkGraphicsPipelineCreateInfo-Geometry-07725).
    let silent = "gs_5_0\n.input SV_Position 0 v0 float POS\n\
        dcl_input_siv v[1][0].xyzw, position\ndcl_inputprimitive point\n\
        dcl_maxout 1\nret\n";
    assert_eq!(point_size(silent, P::Unwritten), (false, false, false));
    assert_eq!(point_size(silent, P::AllStages), (true, true, true));
}

#[test]
fn device_features() {
    let double = "vs_5_0\n.input POSITION 0 v0 float\n.output SV_Position 0 o0 float POS\n\
        dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
        dcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\ndcl_temps 1\n\
        ftod r0.xy, v0.x\ndtof r0.x, r0.xyxx\nmov o0.xyzw, r0.xxxx\nret\n";
    let lacking = Options {
        device_features: Some(crate::DeviceFeatures::default()),
        ..Default::default()
    };
    let e = translate(double, &lacking).unwrap_err();
    assert!(e.is_unsupported());
    assert!(e.to_string().contains("shaderFloat64"), "{e}");
    assert_eq!(e.opcode(), Some("ftod"));
    let all = Options {
        device_features: Some(crate::DeviceFeatures::ALL),
        ..Default::default()
    };
    assert!(translate(double, &all).is_ok());
    // Thread-group shared memory is zero-initialised exactly when the feature is present.
    let cs = "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_uav_raw u0\ndcl_temps 1\n\
        dcl_tgsm_raw g0, 16\ndcl_thread_group 4, 1, 1\nld_raw r0.x, l(0), g0.xxxx\n\
        store_raw u0.x, l(0), r0.x\nret\n";
    let initialised = |o: &Options| {
        let t = translate(cs, o).unwrap();
        insts(&t.spirv).iter().any(|(op, a)| {
            *op == Op::Variable && a[2] == StorageClass::Workgroup as u32 && a.len() == 4
        })
    };
    assert!(initialised(&Options::default()), "Vulkan 1.3 default");
    assert!(!initialised(&Options {
        target_env: crate::TargetEnv::Vulkan1_1,
        ..Default::default()
    }));
    assert!(!initialised(&lacking));
    assert!(initialised(&Options {
        target_env: crate::TargetEnv::Vulkan1_1,
        ..all
    }));
}

#[test]
fn vulkan_1_0_declares_what_spirv_1_3_made_core() {
    let opts = Options {
        target_env: crate::TargetEnv::Vulkan1_0,
        ..Default::default()
    };
    let t = translate(CS_VIEWS, &opts).unwrap();
    assert_eq!(t.spirv[1], 0x0001_0000);
    assert!(
        t.reflection
            .extensions
            .iter()
            .any(|e| e == "SPV_KHR_storage_buffer_storage_class")
    );
    let vs = "vs_5_0\n.input SV_VertexID 0 v0 uint VERTID\n.output SV_Position 0 o0 float POS\n\
        dcl_input_sgv v0.x, vertex_id\ndcl_output_siv o0.xyzw, position\n\
        utof o0.xyzw, v0.xxxx\nret\n";
    let t = translate(vs, &opts).unwrap();
    assert!(
        t.reflection
            .extensions
            .iter()
            .any(|e| e == "SPV_KHR_shader_draw_parameters")
    );
}
