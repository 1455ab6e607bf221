//! The interface mapping: vkd3d's resource bindings, flags, visibility, static descriptor
//! offsets, push-constant buffers and UAV counters placed as vkd3d's lookup would, checked
//! range by range on the resolver, and end to end on the SM5.1 example of the DirectX docs
//! (`shaders/asm/docs_ps51.asm`) through `vkd3d_shader_compile`, reading the SPIR-V's
//! `DescriptorSet`/`Binding` decorations.

mod common;

use translator::binding::{Placement, RangeRequest, Resolver};
use translator::reflect::{DescriptorType, RegisterClass};
use vkd3d_shader_shim::abi::*;
use vkd3d_shader_shim::exports::*;
use vkd3d_shader_shim::resolver::{Interface, NO_OFFSET};

#[allow(clippy::too_many_arguments)] // one argument per field of the C struct
fn rb(
    ty: u32,
    space: u32,
    reg: u32,
    vis: u32,
    flags: u32,
    set: u32,
    b: u32,
    count: u32,
) -> ResourceBinding {
    ResourceBinding {
        ty,
        register_space: space,
        register_index: reg,
        shader_visibility: vis,
        flags,
        binding: DescriptorBinding {
            set,
            binding: b,
            count,
        },
    }
}

fn range(
    class: RegisterClass,
    space: u32,
    lower: u32,
    upper: Option<u32>,
    t: DescriptorType,
) -> RangeRequest {
    RangeRequest {
        class,
        space,
        lower,
        upper,
        counter: false,
        descriptor_type: t,
    }
}

fn offset(static_offset: u32, dynamic_offset_index: u32) -> DescriptorOffset {
    DescriptorOffset {
        static_offset,
        dynamic_offset_index,
    }
}

#[test]
fn ranges_are_placed_as_vkd3d_looks_them_up() {
    use DescriptorType as D;
    use RegisterClass as C;
    let i = Interface {
        bindings: vec![
            // A buffer SRV table first: images must skip it by its flag.
            (
                rb(
                    DESCRIPTOR_TYPE_SRV,
                    0,
                    0,
                    VISIBILITY_ALL,
                    BINDING_FLAG_BUFFER,
                    9,
                    9,
                    64,
                ),
                NO_OFFSET,
            ),
            // Visible to the vertex stage only: a pixel shader skips it.
            (
                rb(
                    DESCRIPTOR_TYPE_SRV,
                    0,
                    0,
                    VISIBILITY_VERTEX,
                    BINDING_FLAG_IMAGE,
                    8,
                    8,
                    64,
                ),
                NO_OFFSET,
            ),
            (
                rb(
                    DESCRIPTOR_TYPE_SRV,
                    0,
                    4,
                    VISIBILITY_PIXEL,
                    BINDING_FLAG_IMAGE,
                    1,
                    0,
                    u32::MAX,
                ),
                offset(100, u32::MAX),
            ),
            (
                rb(
                    DESCRIPTOR_TYPE_CBV,
                    2,
                    3,
                    VISIBILITY_ALL,
                    BINDING_FLAG_BUFFER,
                    0,
                    2,
                    4,
                ),
                NO_OFFSET,
            ),
            (
                rb(
                    DESCRIPTOR_TYPE_UAV,
                    0,
                    0,
                    VISIBILITY_ALL,
                    BINDING_FLAG_IMAGE,
                    3,
                    0,
                    8,
                ),
                offset(0, 2),
            ),
            // Buffer UAVs in the same Vulkan binding as the image ones (vkd3d's mutable
            // heap): both are then mutable placements.
            (
                rb(
                    DESCRIPTOR_TYPE_UAV,
                    0,
                    0,
                    VISIBILITY_ALL,
                    BINDING_FLAG_BUFFER,
                    3,
                    0,
                    8,
                ),
                offset(0, 2),
            ),
            (
                rb(DESCRIPTOR_TYPE_SAMPLER, 0, 5, VISIBILITY_ALL, 0, 0, 1, 1),
                NO_OFFSET,
            ),
        ],
        descriptor_table_offset: 48,
        descriptor_table_count: 3,
        push_constants: vec![PushConstantBuffer {
            register_space: 0,
            register_index: 0,
            shader_visibility: VISIBILITY_ALL,
            offset: 16,
            size: 32,
        }],
        visibility: VISIBILITY_PIXEL,
        ..Interface::default()
    };
    let place = |r: RangeRequest| i.place(&r);
    // t5 and the unbounded t10..: elements 5 − 4 + 100 and 10 − 4 + 100 of set 1, binding 0.
    assert_eq!(
        place(range(C::T, 0, 5, Some(5), D::SampledImage)),
        Ok(Placement::Descriptor {
            dynamic_offset: None,
            mutable: false,
            set: 1,
            binding: 0,
            array_offset: 101
        })
    );
    assert_eq!(
        place(range(C::T, 0, 10, None, D::SampledImage)),
        Ok(Placement::Descriptor {
            dynamic_offset: None,
            mutable: false,
            set: 1,
            binding: 0,
            array_offset: 106
        })
    );
    // A typed buffer SRV takes the BUFFER-flagged binding.
    assert_eq!(
        place(range(C::T, 0, 2, Some(2), D::UniformTexelBuffer)),
        Ok(Placement::Descriptor {
            dynamic_offset: None,
            mutable: false,
            set: 9,
            binding: 9,
            array_offset: 2
        })
    );
    // t0..t3 as images: the only image binding starts at t4 (the vertex one is not visible).
    assert!(
        place(range(C::T, 0, 0, Some(3), D::SampledImage))
            .unwrap_err()
            .contains("no SRV binding")
    );
    // b4..b6 in space 2 lies inside b3..b6; b5..b7 does not.
    assert_eq!(
        place(range(C::B, 2, 4, Some(6), D::UniformBuffer)),
        Ok(Placement::Descriptor {
            dynamic_offset: None,
            mutable: false,
            set: 0,
            binding: 2,
            array_offset: 1
        })
    );
    assert!(place(range(C::B, 2, 5, Some(7), D::UniformBuffer)).is_err());
    // b0 of space 0: root constants.
    assert_eq!(
        place(range(C::B, 0, 0, Some(0), D::UniformBuffer)),
        Ok(Placement::PushConstant {
            offset: 16,
            size: 32
        })
    );
    // s5 (samplers ignore the flags).
    assert_eq!(
        place(range(C::S, 0, 5, Some(5), D::Sampler)),
        Ok(Placement::Descriptor {
            dynamic_offset: None,
            mutable: false,
            set: 0,
            binding: 1,
            array_offset: 0
        })
    );
    // u0: its descriptor index adds the push-constant word of dynamic offset index 2, at byte
    // 48 + 4 × 2; the binding holds image and buffer UAVs, so it is mutable.
    let mutable_u = |lower: u32, t: D| {
        assert_eq!(
            place(range(C::U, 0, lower, Some(lower), t)),
            Ok(Placement::Descriptor {
                dynamic_offset: Some(56),
                mutable: true,
                set: 3,
                binding: 0,
                array_offset: lower,
            })
        );
    };
    mutable_u(0, D::StorageImage);
    // Raw and structured UAVs as texel buffers (vkd3d's default) and as storage buffers
    // (BUFFER_UAV = STORAGE_BUFFER) both take the BUFFER-flagged binding.
    mutable_u(1, D::StorageTexelBuffer);
    mutable_u(2, D::StorageBuffer);
    // A raw or structured SRV as a texel buffer, like a typed buffer SRV.
    assert_eq!(
        place(range(C::T, 0, 5, Some(5), D::UniformTexelBuffer)),
        Ok(Placement::descriptor(9, 9, 5))
    );
    // A dynamic offset index past descriptor_table_count is the caller's error.
    let past = Interface {
        descriptor_table_count: 2,
        ..i.clone()
    };
    assert!(
        past.place(&range(C::U, 0, 0, Some(0), D::StorageImage))
            .unwrap_err()
            .contains("descriptor_table_count 2")
    );
    // Counters are placed by their own bindings and offsets, as texel buffers or storage
    // buffers alike.
    let with_counters = Interface {
        counters: vec![(
            UavCounterBinding {
                register_space: 0,
                register_index: 0,
                shader_visibility: VISIBILITY_ALL,
                binding: DescriptorBinding {
                    set: 4,
                    binding: 7,
                    count: 2,
                },
                offset: 0,
            },
            offset(3, 1),
        )],
        ..i.clone()
    };
    for t in [D::StorageTexelBuffer, D::StorageBuffer] {
        let mut counter = range(C::U, 0, 1, Some(1), t);
        counter.counter = true;
        assert_eq!(
            with_counters.place(&counter),
            Ok(Placement::Descriptor {
                dynamic_offset: Some(52),
                mutable: false,
                set: 4,
                binding: 7,
                array_offset: 4
            })
        );
    }
    // No counter binding covers u2.
    let mut counter = range(C::U, 0, 2, Some(2), D::StorageTexelBuffer);
    counter.counter = true;
    assert!(
        with_counters
            .place(&counter)
            .unwrap_err()
            .contains("no UAV counter binding")
    );
}

fn decorations(words: &[u32]) -> Vec<(u32, u32)> {
    let m = rspirv::dr::load_words(words).unwrap();
    let mut sets = std::collections::BTreeMap::new();
    let mut bindings = std::collections::BTreeMap::new();
    for a in &m.annotations {
        if a.class.opcode != rspirv::spirv::Op::Decorate {
            continue;
        }
        let target = match a.operands[0] {
            rspirv::dr::Operand::IdRef(id) => id,
            _ => continue,
        };
        match (&a.operands[1], a.operands.get(2)) {
            (
                rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::DescriptorSet),
                Some(rspirv::dr::Operand::LiteralBit32(v)),
            ) => {
                sets.insert(target, *v);
            }
            (
                rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::Binding),
                Some(rspirv::dr::Operand::LiteralBit32(v)),
            ) => {
                bindings.insert(target, *v);
            }
            _ => {}
        }
    }
    let mut out: Vec<(u32, u32)> = sets.iter().map(|(id, s)| (*s, bindings[id])).collect();
    out.sort();
    out
}

#[test]
fn the_docs_sm51_example_compiles_with_vkd3d_bindings() {
    let text =
        std::fs::read_to_string(integration_tests::repo_root().join("shaders/asm/docs_ps51.asm"))
            .unwrap();
    let bytes = translator::asm::assemble(&text).unwrap();
    // s5, t5, t10.. and t0..t7 of space 1 (the docs' example), in a virtual-heaps layout.
    let bindings = [
        rb(
            DESCRIPTOR_TYPE_SRV,
            0,
            0,
            VISIBILITY_ALL,
            BINDING_FLAG_BUFFER,
            5,
            5,
            u32::MAX,
        ),
        rb(
            DESCRIPTOR_TYPE_SRV,
            0,
            5,
            VISIBILITY_PIXEL,
            BINDING_FLAG_IMAGE,
            1,
            0,
            1,
        ),
        rb(
            DESCRIPTOR_TYPE_SRV,
            0,
            10,
            VISIBILITY_ALL,
            BINDING_FLAG_IMAGE,
            1,
            1,
            u32::MAX,
        ),
        rb(
            DESCRIPTOR_TYPE_SRV,
            1,
            0,
            VISIBILITY_ALL,
            BINDING_FLAG_IMAGE,
            2,
            0,
            8,
        ),
        rb(
            DESCRIPTOR_TYPE_SAMPLER,
            0,
            5,
            VISIBILITY_ALL,
            BINDING_FLAG_IMAGE,
            0,
            0,
            1,
        ),
    ];
    let offsets = [
        NO_OFFSET,
        NO_OFFSET,
        offset(7, u32::MAX),
        NO_OFFSET,
        NO_OFFSET,
    ];
    let off_info = DescriptorOffsetInfo {
        ty: STRUCTURE_TYPE_DESCRIPTOR_OFFSET_INFO,
        next: std::ptr::null(),
        descriptor_table_offset: 0,
        descriptor_table_count: 0,
        binding_offsets: offsets.as_ptr(),
        uav_counter_offsets: std::ptr::null(),
    };
    // The unbounded t10.. is a runtime array: the target must allow descriptor indexing (the
    // compile is refused without it).
    let extensions = [SPIRV_EXTENSION_EXT_DESCRIPTOR_INDEXING];
    let target = SpirvTargetInfo {
        ty: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
        next: (&raw const off_info).cast(),
        entry_point: std::ptr::null(),
        environment: SPIRV_ENVIRONMENT_VULKAN_1_1,
        extensions: extensions.as_ptr(),
        extension_count: 1,
        parameters: std::ptr::null(),
        parameter_count: 0,
        dual_source_blending: 0,
        output_swizzles: std::ptr::null(),
        output_swizzle_count: 0,
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
        uav_counters: std::ptr::null(),
        uav_counter_count: 0,
    };
    let info = common::compile_info(&bytes, SOURCE_DXBC_TPF, (&raw const interface).cast());
    let mut out = common::empty_code();
    // SAFETY: all structures live across the call.
    let rc = unsafe { dxbc_spirv_shim_compile(&info, &mut out, std::ptr::null_mut()) };
    assert_eq!(rc, VKD3D_OK);
    // SAFETY: the stand-in's SPIR-V.
    let words =
        unsafe { std::slice::from_raw_parts(out.code.cast::<u32>(), out.size / 4) }.to_vec();
    // SAFETY: the stand-in's code.
    unsafe { dxbc_spirv_shim_free_shader_code(&mut out) };
    assert_eq!(decorations(&words), [(0, 0), (1, 0), (1, 1), (2, 0)]);
}
