//! Unit tests: token decoding against hand-assembled dwords, disassembly of hand-checked
//! instructions, encode/decode round trips, and malformed input.
//!
//! The token values below were assembled by hand from the field layouts of
//! d3d12TokenizedProgramFormat.hpp; the expected texts follow the fxc syntax of the
//! DirectX assembly reference (see `docs/disassembly.md`), not this disassembler's output.

use super::*;

const BASE: usize = 0x40;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A program of the given version token with `body` after the header; length filled in.
fn program(version: u32, body: &[u32]) -> Vec<u8> {
    let mut words = vec![version, 2 + body.len() as u32];
    words.extend_from_slice(body);
    bytes(&words)
}

const PS40: u32 = 0x0000_0040;
const PS50: u32 = 0x0000_0050;
const PS51: u32 = 0x0000_0051;
const HS50: u32 = 0x0003_0050;
const CS50: u32 = 0x0005_0050;

fn decode_ok(version: u32, body: &[u32]) -> Program {
    let data = program(version, body);
    let p = decode(&data, BASE).unwrap_or_else(|e| panic!("decode failed: {e}"));
    // Every well-formed program must encode back to the same bytes.
    assert_eq!(encode_chunk(&p).unwrap(), data, "round trip of {body:08x?}");
    p
}

/// The listing without the version line.
fn listing(version: u32, body: &[u32]) -> String {
    let text = decode_ok(version, body).to_string();
    text.split_once('\n').unwrap().1.to_string()
}

fn decode_err(version: u32, body: &[u32]) -> DecodeError {
    decode(&program(version, body), BASE).expect_err("decode should fail")
}

// Operand tokens, assembled by hand (see the operand token layout in decode.rs).
/// `r0.xyzw` as a destination: 4 components, mask mode, mask xyzw, temp, 1D, imm32.
const R0_XYZW_DST: [u32; 2] = [0x0010_00f2, 0];
/// `v1.xyzw` as a source: 4 components, swizzle mode xyzw, input, 1D.
const V1_XYZW: [u32; 2] = [0x0010_1e46, 1];

#[test]
fn version_and_empty_program() {
    let p = decode_ok(PS50, &[]);
    assert_eq!(p.version.program_type, ProgramType::Pixel);
    assert_eq!((p.version.major, p.version.minor), (5, 0));
    assert!(p.instructions.is_empty());
    assert_eq!(p.to_string(), "ps_5_0\n");
    assert_eq!(decode_ok(0x0001_0040, &[]).to_string(), "vs_4_0\n");
    assert_eq!(decode_ok(0x0002_0041, &[]).to_string(), "gs_4_1\n");
    assert_eq!(decode_ok(CS50 | 1, &[]).to_string(), "cs_5_1\n");
}

#[test]
fn mov_operands_and_offsets() {
    // mov r0.xyzw, v1.xyzw: opcode 0x36, length 5.
    #[rustfmt::skip]
    let body = [
        0x0500_0036, R0_XYZW_DST[0], R0_XYZW_DST[1], V1_XYZW[0], V1_XYZW[1], 0x0100_003e,
    ];
    let p = decode_ok(PS40, &body);
    let mov = p.get(0).unwrap();
    assert_eq!(mov.opcode, Opcode::Mov);
    assert_eq!(mov.offset, BASE + 8);
    assert_eq!(mov.operands.len(), 2);
    let (dst, src) = (&mov.operands[0], &mov.operands[1]);
    assert_eq!(dst.ty, OperandType::Temp);
    assert_eq!(dst.components, Components::Mask(0xf));
    assert_eq!(dst.mask(), 0xf);
    assert_eq!(dst.register(), Some(0));
    assert_eq!(src.ty, OperandType::Input);
    assert_eq!(src.swizzle(), [0, 1, 2, 3]);
    assert_eq!(src.register(), Some(1));
    assert_eq!(mov.dsts().len(), 1);
    assert_eq!(mov.srcs().len(), 1);
    let ret = p.get(1).unwrap();
    assert_eq!(ret.opcode, Opcode::Ret);
    assert_eq!(ret.offset, BASE + 8 + 5 * 4);
    assert_eq!(listing(PS40, &body), "mov r0.xyzw, v1.xyzw\nret\n");
}

#[test]
fn saturate_and_source_modifiers() {
    // mov_sat r0.xy, -|v1.zwzz| (the example of the brief; swizzle zwzz = 2,3,2,2).
    #[rustfmt::skip]
    let body = [
        0x0600_2036, // mov, saturate (bit 13), length 6
        0x0010_0032, 0, // r0, mask xy
        0x8010_1ae6, // v1, swizzle zwzz, extended
        0x0000_00c1, // extended operand: modifier, absneg (3 << 6)
        1, // v1's index
    ];
    let p = decode_ok(PS40, &body);
    let inst = p.get(0).unwrap();
    assert!(inst.saturate);
    let src = &inst.operands[1];
    assert_eq!(src.modifier, Modifier::AbsNeg);
    assert!(src.extended);
    assert_eq!(src.swizzle(), [2, 3, 2, 2]);
    assert_eq!(listing(PS40, &body), "mov_sat r0.xy, -|v1.zwzz|\n");
}

#[test]
fn conditionals_and_indentation() {
    // if_nz r0.x / mov r0.x, l(1.0) / else / discard_z r0.y / endif
    #[rustfmt::skip]
    let body = [
        0x0304_001f, 0x0010_000a, 0, // if, test nonzero (bit 18); r0 select-1 x
        0x0500_0036, 0x0010_0012, 0, 0x0000_4001, 0x3f80_0000, // mov r0.x, l(1.0)
        0x0100_0012, // else
        0x0300_000d, 0x0010_001a, 0, // discard, test zero; r0.y
        0x0100_0015, // endif
    ];
    let p = decode_ok(PS40, &body);
    assert_eq!(p.get(0).unwrap().test_nonzero(), Some(true));
    assert_eq!(p.get(3).unwrap().test_nonzero(), Some(false));
    assert_eq!(
        listing(PS40, &body),
        "if_nz r0.x\n  mov r0.x, l(1.0)\nelse\n  discard_z r0.y\nendif\n"
    );
}

#[test]
fn immediates_print_by_operand_type() {
    #[rustfmt::skip]
    let body = [
        // mul r0.x, r0.x, l(0.5): float source
        0x0700_0038, 0x0010_0012, 0, 0x0010_000a, 0, 0x0000_4001, 0x3f00_0000,
        // iadd r0.x, r0.x, l(-1): int source
        0x0700_001e, 0x0010_0012, 0, 0x0010_000a, 0, 0x0000_4001, 0xffff_ffff,
        // and r0.x, r0.x, l(0x7fffffff): uint source, large value in hex
        0x0700_0001, 0x0010_0012, 0, 0x0010_000a, 0, 0x0000_4001, 0x7fff_ffff,
        // mov r0.xyzw, l(1.0, 0, -2.5, 3): untyped, 4 components (mask mode, empty mask)
        0x0800_0036, 0x0010_00f2, 0, 0x0000_4002, 0x3f80_0000, 0, 0xc020_0000, 3,
    ];
    assert_eq!(
        listing(PS40, &body),
        "mul r0.x, r0.x, l(0.5)\n\
         iadd r0.x, r0.x, l(-1)\n\
         and r0.x, r0.x, l(0x7fffffff)\n\
         mov r0.xyzw, l(1.0, 0, -2.5, 3)\n"
    );
}

#[test]
fn floats_round_trip_bit_exactly() {
    for bits in [
        0x3f80_0000u32,
        0x0000_0001,
        0x8000_0000,
        0x7f7f_ffff,
        0x3dcc_cccd,
        0x0080_0000,
        0x1234_5678,
    ] {
        let text = format_f32(bits);
        assert!(
            text.contains('.') || text.contains('e'),
            "{text} must read as a float"
        );
        assert_eq!(text.parse::<f32>().unwrap().to_bits(), bits, "{text}");
    }
    for bits in [0x7fc0_0000u32, 0x7f80_0000, 0xff80_0000, 0x7fa0_0001] {
        let text = format_f32(bits);
        assert_eq!(
            u32::from_str_radix(text.trim_start_matches("0x"), 16).unwrap(),
            bits
        );
    }
    for bits in [
        0x3ff0_0000_0000_0000u64,
        1,
        0x8000_0000_0000_0000,
        0x3fb9_9999_9999_999a,
    ] {
        assert_eq!(format_f64(bits).parse::<f64>().unwrap().to_bits(), bits);
    }
}

#[test]
fn sample_with_extended_opcode_tokens() {
    // sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0
    #[rustfmt::skip]
    let body = [
        0x8b00_0045, // sample, extended, length 11
        0x8000_00c2, // resource dim: texture2d (3 << 6), another extended token follows
        0x0015_5543, // return type: float (5) x4 at bits 6..21
        R0_XYZW_DST[0], R0_XYZW_DST[1], 0x0010_1046, // v1.xyxx
        1, 0x0010_7e46, // t0.xyzw
        0, 0x0010_6000, // s0: no components
        0,
    ];
    let p = decode_ok(PS50, &body);
    let inst = p.get(0).unwrap();
    assert_eq!(inst.resource_dim(), Some((ResourceDimension::Texture2D, 0)));
    assert_eq!(inst.resource_return_type(), Some([ReturnType::Float; 4]));
    assert_eq!(inst.operands[3].components, Components::Zero);
    assert_eq!(
        listing(PS50, &body),
        "sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0\n"
    );
}

#[test]
fn aoffimmi_offsets_are_signed() {
    // ld_aoffimmi(-1,2,0) r0.xyzw, r1.xyzw, t0.xyzw
    // sample controls: type 1, u = -1 (0xf << 9), v = 2 (2 << 13)
    #[rustfmt::skip]
    let body = [
        0x8800_002d, 0x0000_5e01, R0_XYZW_DST[0], R0_XYZW_DST[1], 0x0010_0e46, 1, 0x0010_7e46, 0,
    ];
    let p = decode_ok(PS40, &body);
    assert_eq!(p.get(0).unwrap().texel_offsets(), [-1, 2, 0]);
    assert_eq!(
        listing(PS40, &body),
        "ld_aoffimmi(-1,2,0) r0.xyzw, r1.xyzw, t0.xyzw\n"
    );
}

#[test]
fn relative_indices() {
    // mov r0.x, cb0[r1.x + 0].x: cb operand 2D, index 0 imm32, index 1 relative (repr 2)
    // mov r0.x, x0[r1.y + 3].x: indexable temp, index 1 imm32 + relative (repr 3)
    #[rustfmt::skip]
    let body = [
        0x0700_0036, 0x0010_0012, 0, 0x0420_800a, 0, 0x0010_000a, 1, 0x0800_0036, 0x0010_0012, 0, 0x0620_300a, 0, 3, 0x0010_001a, 1,
    ];
    let p = decode_ok(PS40, &body);
    let cb = &p.get(0).unwrap().operands[1];
    assert_eq!(cb.index(1).unwrap().repr, IndexRepr::Relative);
    assert_eq!(p.rel(&cb.index(1).unwrap()).unwrap().register(), Some(1));
    assert!(cb.is_relative());
    assert_eq!(cb.register(), Some(0));
    assert_eq!(
        listing(PS40, &body),
        "mov r0.x, cb0[r1.x + 0].x\nmov r0.x, x0[r1.y + 3].x\n"
    );
}

#[test]
fn sm40_declarations() {
    #[rustfmt::skip]
    let body = [
        0x0100_086a, // dcl_globalFlags refactoringAllowed (bit 11)
        0x0400_0059, 0x0020_8e46, 0, 4, // dcl_constantbuffer cb0[4], immediateIndexed
        0x0300_005a, 0x0010_6000, 0, // dcl_sampler s0, mode_default
        0x0400_1858, 0x0010_7000, 1, 0x5555, // dcl_resource_texture2d (float x4) t1
        0x0300_1062, 0x0010_1032, 1, // dcl_input_ps linear v1.xy
        0x0400_0067, 0x0010_20f2, 0, 1, // dcl_output_siv o0.xyzw, position
        0x0200_0068, 8, // dcl_temps 8
        0x0400_0069, 0, 4, 4, // dcl_indexableTemp x0[4], 4 (3 dwords: reg, size, components)
    ];
    let p = decode_ok(PS40, &body);
    assert_eq!(
        p.get(0).unwrap().decl(),
        Some(&Declaration::GlobalFlags(global_flags::REFACTORING_ALLOWED))
    );
    match p.get(3).unwrap().decl() {
        Some(Declaration::Resource {
            dim,
            return_type,
            space,
            ..
        }) => {
            assert_eq!(*dim, ResourceDimension::Texture2D);
            assert_eq!(return_type.types, [ReturnType::Float; 4]);
            assert_eq!(*space, None);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p.get(4).unwrap().decl().unwrap().interpolation(),
        Some(InterpolationMode::Linear)
    );
    assert_eq!(
        p.get(5).unwrap().decl().unwrap().system_name(),
        Some(SystemName::Position)
    );
    assert_eq!(
        listing(PS40, &body),
        "dcl_globalFlags refactoringAllowed\n\
         dcl_constantbuffer cb0[4], immediateIndexed\n\
         dcl_sampler s0, mode_default\n\
         dcl_resource_texture2d (float,float,float,float) t1\n\
         dcl_input_ps linear v1.xy\n\
         dcl_output_siv o0.xyzw, position\n\
         dcl_temps 8\n\
         dcl_indexableTemp x0[4], 4\n"
    );
}

#[test]
fn sm51_ranges_and_spaces() {
    #[rustfmt::skip]
    let body = [
        // dcl_constantbuffer CB0[0:0][4], immediateIndexed, space=0
        0x0700_0059, 0x0030_8e46, 0, 0, 0, 4, 0,
        // dcl_resource_texture2d (float,float,float,float) T1[10:*], space=2
        0x0700_1858, 0x0030_7000, 1, 10, 0xffff_ffff, 0x5555, 2,
        // dcl_sampler S0[5:5], mode_comparison, space=0
        0x0600_085a, 0x0030_6000, 0, 5, 5, 0,
        // sample r1.xyzw, r0.xyxx, T1[r1.x + 0].xyzw, S0[5]
        0x0c00_0045, 0x0010_00f2, 1, 0x0010_0046, 0, 0x0420_7e46, 1, 0x0010_000a, 1, 0x0020_6000, 0, 5,
    ];
    let p = decode_ok(PS51, &body);
    match p.get(0).unwrap().decl() {
        Some(Declaration::ConstantBuffer { size, space, .. }) => {
            assert_eq!((*size, *space), (Some(4), Some(0)))
        }
        other => panic!("{other:?}"),
    }
    let t = &p.get(1).unwrap().operands[0];
    assert_eq!(
        t.indices().map(|i| i.value).collect::<Vec<_>>(),
        [1, 10, 0xffff_ffff]
    );
    assert_eq!(p.get(1).unwrap().decl().unwrap().space(), Some(2));
    assert_eq!(
        listing(PS51, &body),
        "dcl_constantbuffer CB0[0:0][4], immediateIndexed, space=0\n\
         dcl_resource_texture2d (float,float,float,float) T1[10:*], space=2\n\
         dcl_sampler S0[5:5], mode_comparison, space=0\n\
         sample r1.xyzw, r0.xyxx, T1[r1.x + 0].xyzw, S0[5]\n"
    );
}

#[test]
fn hull_shader_phases() {
    #[rustfmt::skip]
    let body = [
        0x0100_0071, // hs_decls
        0x0100_1893, // dcl_input_control_point_count 3 (3 << 11)
        0x0100_1094, // dcl_output_control_point_count 2
        0x0100_1095, // dcl_tessellator_domain domain_tri (2 << 11)
        0x0100_1896, // dcl_tessellator_partitioning partitioning_fractional_odd (3)
        0x0100_1897, // dcl_tessellator_output_primitive output_triangle_cw (3)
        0x0200_0098, 0x4280_0000, // dcl_hs_max_tessfactor l(64.0)
        0x0100_0072, // hs_control_point_phase
        0x0100_003e, // ret
        0x0100_0073, // hs_fork_phase
        0x0200_0099, 3, // dcl_hs_fork_phase_instance_count 3
        0x0200_005f, 0x0001_7000, // dcl_input vForkInstanceID
        0x0100_003e, 0x0100_0074, // hs_join_phase
        0x0100_003e,
    ];
    let p = decode_ok(HS50, &body);
    assert_eq!(
        p.get(6).unwrap().decl(),
        Some(&Declaration::HsMaxTessFactor(64.0))
    );
    assert_eq!(
        listing(HS50, &body),
        "hs_decls\n\
         dcl_input_control_point_count 3\n\
         dcl_output_control_point_count 2\n\
         dcl_tessellator_domain domain_tri\n\
         dcl_tessellator_partitioning partitioning_fractional_odd\n\
         dcl_tessellator_output_primitive output_triangle_cw\n\
         dcl_hs_max_tessfactor l(64.0)\n\
         hs_control_point_phase\n\
         ret\n\
         hs_fork_phase\n\
         dcl_hs_fork_phase_instance_count 3\n\
         dcl_input vForkInstanceID\n\
         ret\n\
         hs_join_phase\n\
         ret\n"
    );
}

#[test]
fn compute_declarations_sync_and_atomics() {
    #[rustfmt::skip]
    let body = [
        0x0400_009b, 8, 8, 1, // dcl_thread_group 8, 8, 1
        0x0400_009e, 0x0011_e000, 0, 16, // dcl_uav_structured u0, 16
        0x0400_009f, 0x0011_f000, 0, 1024, // dcl_tgsm_raw g0, 1024
        0x0100_18be, // sync_g_t: flags tgsm (bit 12) | threads (bit 11)
        // imm_atomic_iadd r0.x, u0, r1.x, l(1)
        0x0900_00b4, 0x0010_0012, 0, 0x0011_e000, 0, 0x0010_000a, 1, 0x0000_4001, 1,
    ];
    let p = decode_ok(CS50, &body);
    assert_eq!(
        p.get(3).unwrap().control,
        OpControl::Sync(sync_flags::THREADS_IN_GROUP | sync_flags::THREAD_GROUP_SHARED_MEMORY)
    );
    assert_eq!(
        listing(CS50, &body),
        "dcl_thread_group 8, 8, 1\n\
         dcl_uav_structured u0, 16\n\
         dcl_tgsm_raw g0, 1024\n\
         sync_g_t\n\
         imm_atomic_iadd r0.x, u0, r1.x, l(1)\n"
    );
}

#[test]
fn immediate_constant_buffer() {
    // customdata class 3 (3 << 11 | 0x35), length 2 + 8
    let body = [0x0000_1835, 10, 0x3f80_0000, 0, 0, 0, 1, 2, 3, 0x4020_0000];
    let p = decode_ok(PS40, &body);
    let icb = p.get(0).unwrap().custom_data().unwrap().clone();
    assert_eq!(icb.class, CustomDataClass::ImmediateConstantBuffer);
    assert_eq!(icb.icb_rows().count(), 2);
    assert_eq!(
        listing(PS40, &body),
        "dcl_immediateConstantBuffer { { 1.0, 0, 0, 0 },\n  { 1, 2, 3, 2.5 } }\n"
    );
}

#[test]
fn encoding_details_are_annotated() {
    #[rustfmt::skip]
    let body = [
        // mov r0.x, r1.x with an extended operand token that carries nothing
        0x0600_0036, 0x0010_0012, 0, 0x8010_000a, 0x0000_0001, 1,
        // ret with a reserved control bit (bit 20 is not defined for ret... use bit 12)
        0x0100_103e,
        // nop in the long-length form: length field 0, length dword 2
        0x0000_003a, 2,
    ];
    let p = decode_ok(PS40, &body);
    assert!(p.get(0).unwrap().operands[1].extended);
    assert_eq!(p.get(1).unwrap().reserved_control, 0x1000);
    assert!(p.get(2).unwrap().long_length);
    assert_eq!(
        listing(PS40, &body),
        "mov r0.x, r1.x {ext}\nret {control=0x1000}\nnop {longlen}\n"
    );
}

#[test]
fn interfaces() {
    #[rustfmt::skip]
    let body = [
        0x0200_0090, 0, // dcl_function_body fb0
        0x0200_0090, 1, // dcl_function_body fb1
        0x0500_0091, 0, 2, 0, 1, // dcl_function_table ft0 = {fb0, fb1}
        0x0500_0092, 0, 2, 0x0001_0001, 0, // dcl_interface fp0[1][2] = {ft0}
        // fcall fp0[0][1]: function index 1, then the fp operand (2D: interface 0, element 0)
        0x0500_0078, 1, 0x0020_0000 | 19 << 12, 0, 0,
    ];
    let p = decode_ok(PS50, &body);
    match p.get(3).unwrap().decl() {
        Some(Declaration::Interface {
            id,
            table_length,
            array_length,
            tables,
            ..
        }) => {
            assert_eq!(
                (*id, *table_length, *array_length, &tables[..]),
                (0, 2, 1, &[0][..])
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        listing(PS50, &body),
        "dcl_function_body fb0\n\
         dcl_function_body fb1\n\
         dcl_function_table ft0 = {fb0, fb1}\n\
         dcl_interface fp0[1][2] = {ft0}\n\
         fcall fp0[0][1]\n"
    );
}

#[test]
fn samplepos_padding_is_kept() {
    // fxc pads samplepos with a zero dword inside the instruction length.
    #[rustfmt::skip]
    let body = [
        0x0800_006e, 0x0010_0032, 0, 0x0010_7046, 0, 0x0000_4001, 0, 0,
    ];
    let p = decode_ok(PS50, &body);
    assert_eq!(&p.get(0).unwrap().padding[..], [0]);
    assert_eq!(
        listing(PS50, &body),
        "samplepos {pad=0x0} r0.xy, t0.xyxx, l(0)\n"
    );
}

#[test]
fn opcode_table_is_consistent() {
    for &op in opcodes::ALL_OPCODES {
        let info = op.info();
        assert_eq!(info.opcode, op);
        assert_eq!(Opcode::from_u32(op as u32), Some(op));
        assert_eq!(Opcode::from_name(info.name), Some(op), "{}", info.name);
        if let opcodes::Layout::Fixed { dsts, srcs } = info.layout {
            assert_eq!(info.types.len(), (dsts + srcs) as usize, "{}", info.name);
        }
    }
    for reserved in [0x6b, 0x70, 0xd1, 0xda, 0xeb, 0x7ff] {
        assert_eq!(Opcode::from_u32(reserved), None);
    }
    assert_eq!(opcodes::ALL_OPCODES.len(), 0xeb - 4);
}

// ---- malformed input ----

#[test]
fn truncated_header() {
    let e = decode(&[1, 2, 3], BASE).unwrap_err();
    assert_eq!(e.offset, BASE);
    assert!(matches!(e.kind, DecodeErrorKind::Truncated(_)));
    let e = decode(&bytes(&[PS40]), BASE).unwrap_err();
    assert_eq!(e.offset, BASE + 4);
}

#[test]
fn bad_length_token() {
    let e = decode(&bytes(&[PS40, 5, 0x0100_003e]), BASE).unwrap_err();
    assert_eq!(
        e,
        DecodeError::new(
            BASE + 4,
            DecodeErrorKind::ProgramLength {
                declared: 5,
                available: 3
            }
        )
    );
    let e = decode(&bytes(&[PS40, 1]), BASE).unwrap_err();
    assert!(matches!(
        e.kind,
        DecodeErrorKind::ProgramLength { declared: 1, .. }
    ));
}

#[test]
fn bad_version() {
    let e = decode(&bytes(&[0x0009_0040, 2]), BASE).unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "program type",
            value: 9
        }
    );
    let e = decode(&bytes(&[0x0000_0030, 2]), BASE).unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::UnsupportedVersion { major: 3, minor: 0 }
    );
}

#[test]
fn unknown_and_reserved_opcodes() {
    let e = decode_err(PS40, &[0x0100_003e, 0x0100_006b]);
    assert_eq!(
        e,
        DecodeError::new(BASE + 12, DecodeErrorKind::UnknownOpcode(0x6b))
    );
    let e = decode_err(PS40, &[0x0100_07ff]);
    assert_eq!(e.kind, DecodeErrorKind::UnknownOpcode(0x7ff));
}

#[test]
fn instruction_lengths() {
    // Past the end of the program.
    let e = decode_err(PS40, &[0x0500_0036, 0]);
    assert_eq!(
        e,
        DecodeError::new(
            BASE + 8,
            DecodeErrorKind::InstructionPastEnd {
                length: 5,
                remaining: 2
            }
        )
    );
    // Zero length field with no length dword.
    let e = decode_err(PS40, &[0x0000_003e]);
    assert!(matches!(e.kind, DecodeErrorKind::Truncated(_)), "{e}");
    // Zero length field with a length dword that cannot hold the opcode and itself.
    let e = decode_err(PS40, &[0x0000_003e, 1]);
    assert_eq!(
        e,
        DecodeError::new(BASE + 12, DecodeErrorKind::BadLength(1))
    );
    let e = decode_err(PS40, &[0x0000_003e, 0]);
    assert_eq!(e.kind, DecodeErrorKind::BadLength(0));
    // Custom data claiming more than there is.
    let e = decode_err(PS40, &[0x0000_1835, 100, 0]);
    assert!(
        matches!(
            e.kind,
            DecodeErrorKind::InstructionPastEnd { length: 100, .. }
        ),
        "{e}"
    );
}

#[test]
fn operands_past_instruction_end() {
    // mov with length 3 but two 2-dword operands.
    let e = decode_err(PS40, &[0x0300_0036, 0x0010_0012, 0, 0x0010_000a, 1]);
    assert_eq!(
        e,
        DecodeError::new(BASE + 20, DecodeErrorKind::Truncated("operand token"))
    );
    // An index that is missing.
    let e = decode_err(PS40, &[0x0200_0036, 0x0010_0012]);
    assert_eq!(
        e,
        DecodeError::new(BASE + 16, DecodeErrorKind::Truncated("operand index"))
    );
}

#[test]
fn relative_nesting_is_bounded() {
    // mov r0.x, r[r[r[…]]]: each operand is a temp whose only index is relative (repr 2).
    let nested = 0x0090_000a; // r (select-1 x), 1D, index 0 relative
    let mut body = vec![0, 0x0010_0012, 0];
    body.extend(std::iter::repeat_n(nested, 10));
    body.extend([0x0010_000a, 0]);
    body[0] = 0x36 | (body.len() as u32) << 24;
    let e = decode_err(PS40, &body);
    assert_eq!(e.kind, DecodeErrorKind::NestingTooDeep(MAX_RELATIVE_DEPTH));
    // Depth 4 is fine.
    let mut ok = vec![0, 0x0010_0012, 0];
    ok.extend(std::iter::repeat_n(nested, 4));
    ok.extend([0x0010_000a, 0]);
    ok[0] = 0x36 | (ok.len() as u32) << 24;
    decode_ok(PS40, &ok);
}

#[test]
fn absurd_counts_are_rejected_before_allocating() {
    let e = decode_err(PS50, &[0x0300_0091, 0, 0xffff_ffff]);
    assert_eq!(
        e,
        DecodeError::new(
            BASE + 20,
            DecodeErrorKind::CountTooLarge {
                what: "function table",
                count: 0xffff_ffff,
                available: 0
            }
        )
    );
    let e = decode_err(PS50, &[0x0400_0092, 0, 0, 0xffff]);
    assert!(
        matches!(e.kind, DecodeErrorKind::CountTooLarge { count: 0xffff, .. }),
        "{e}"
    );
}

#[test]
fn bad_field_values() {
    // dcl_resource with dimension 31.
    let e = decode_err(PS40, &[0x0400_f858, 0x0010_7000, 0, 0x5555]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "resource dimension",
            value: 31
        }
    );
    // return type 0 in the return type token
    let e = decode_err(PS40, &[0x0400_1858, 0x0010_7000, 0, 0x5550]);
    assert_eq!(
        e,
        DecodeError::new(
            BASE + 20,
            DecodeErrorKind::BadValue {
                what: "resource return type",
                value: 0
            }
        )
    );
    // selection mode 3
    let e = decode_err(PS40, &[0x0300_0036, 0x0010_000e, 0]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "component selection mode",
            value: 3
        }
    );
    // operand type 43
    let e = decode_err(PS40, &[0x0300_0036, 0x0012_b00a, 0]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "operand type",
            value: 43
        }
    );
    // index representation 5
    let e = decode_err(PS40, &[0x0300_0036, 0x0150_000a, 0]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "index representation",
            value: 5
        }
    );
    // extended operand token of type 2, then a chained one
    let e = decode_err(PS40, &[0x0400_0036, 0x8010_000a, 2, 0]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "extended operand type",
            value: 2
        }
    );
    let e = decode_err(PS40, &[0x0400_0036, 0x8010_000a, 0x8000_0001, 0]);
    assert_eq!(e.kind, DecodeErrorKind::ChainedExtendedOperand);
    // min precision 3 is undefined
    let e = decode_err(PS40, &[0x0400_0036, 0x8010_000a, 0xc001, 0]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "minimum precision",
            value: 3
        }
    );
    // extended opcode type 7, and a repeated kind
    let e = decode_err(PS40, &[0x8200_003e, 7]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "extended opcode type",
            value: 7
        }
    );
    let e = decode_err(PS40, &[0x8300_003e, 0x8000_0001, 1]);
    assert_eq!(
        e,
        DecodeError::new(BASE + 16, DecodeErrorKind::ExtendedOpcodes)
    );
    // resinfo return type 3
    let e = decode_err(PS40, &[0x0100_183d]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "resinfo return type",
            value: 3
        }
    );
    // custom data class 9
    let e = decode_err(PS40, &[0x0000_4835, 2]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "custom data class",
            value: 9
        }
    );
    // system value name 99
    let e = decode_err(PS40, &[0x0400_0067, 0x0010_20f2, 0, 99]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadValue {
            what: "system value name",
            value: 99
        }
    );
    // immediate with N components
    let e = decode_err(PS40, &[0x0300_0036, 0x0000_4003, 0]);
    assert!(matches!(e.kind, DecodeErrorKind::BadValue { .. }), "{e}");
}

/// Every error message is one line and names the offset.
#[test]
fn errors_display_one_line() {
    let e = decode_err(PS40, &[0x0100_006b]);
    let text = e.to_string();
    assert_eq!(text, "at byte offset 0x48: unknown opcode 107 (0x6b)");
    assert!(!text.contains('\n'));
}

/// A hand-written program exercising many instruction forms.
fn sample_program() -> Vec<u8> {
    #[rustfmt::skip]
    let body = [
        0x0100_086a, // dcl_globalFlags refactoringAllowed
        0x0400_0059, 0x0020_8e46, 0, 4, // dcl_constantbuffer cb0[4], immediateIndexed
        0x0300_005a, 0x0010_6000, 0, // dcl_sampler s0, mode_default
        0x0400_1858, 0x0010_7000, 0, 0x5555, // dcl_resource_texture2d (float x4) t0
        0x0300_1062, 0x0010_1032, 1, // dcl_input_ps linear v1.xy
        0x0300_0065, 0x0010_20f2, 0, // dcl_output o0.xyzw
        0x0200_0068, 2, // dcl_temps 2
        // sample_indexable(texture2d)(float x4) r0.xyzw, v1.xyxx, t0.xyzw, s0
        0x8b00_0045, 0x8000_00c2, 0x0015_5543, 0x0010_00f2, 0, 0x0010_1046, 1, 0x0010_7e46, 0, 0x0010_6000, 0,
        0x0304_001f, 0x0010_000a, 0, // if_nz r0.x
        0x0600_2036, 0x0010_0032, 0, 0x8010_1ae6, 0x0000_00c1, 1, // mov_sat r0.xy, -|v1.zwzz|
        0x0100_0015, // endif
        0x0700_0036, 0x0010_0012, 1, 0x0420_800a, 0, 0x0010_000a, 0, // mov r1.x, cb0[r0.x + 0].x
        0x0800_0036, 0x0010_00f2, 1, 0x0000_4002, 0x3f80_0000, 0, 0xc020_0000, 3, // mov r1.xyzw, l(…)
        0x0100_003e, // ret
    ];
    program(PS50, &body)
}

#[test]
fn sample_program_round_trips() {
    let data = sample_program();
    let p = decode(&data, 0).unwrap();
    assert_eq!(encode_chunk(&p).unwrap(), data);
    assert_eq!(p.instructions.len(), 14);
}

/// Truncating or corrupting a valid program anywhere yields Ok or an error, never a panic,
/// and whatever decodes re-encodes to the same bytes.
#[test]
fn corrupted_programs_never_panic() {
    let data = sample_program();
    for len in 0..data.len() {
        let _ = decode(&data[..len], 0);
    }
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let mut d = data.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() as usize) % d.len();
            d[i] = match next() % 3 {
                0 => next() as u8,
                1 => d[i] ^ (1 << (next() % 8)),
                _ => 0xff,
            };
        }
        if let Ok(p) = decode(&d, 0) {
            let _ = p.to_string();
            assert_eq!(encode_chunk(&p).unwrap(), d);
        }
    }
}

#[test]
fn encoder_rejects_inconsistent_programs() {
    let mut p = decode(&sample_program(), 0).unwrap();
    // An operand too many for `ret`.
    let last = p.instructions.len() - 1;
    p.instructions[last].operand_range.start -= 1;
    let e = encode(&p).unwrap_err();
    assert_eq!((e.index, e.opcode), (last, "ret"));
}

#[test]
fn geometry_shader_declarations_and_streams() {
    #[rustfmt::skip]
    let body = [
        0x0100_185d, // dcl_inputprimitive triangle (3 << 11)
        0x0300_008f, 0x0011_0000, 0, // dcl_stream m0 (stream register, no components)
        0x0100_285c, // dcl_outputtopology trianglestrip (5 << 11)
        0x0200_005e, 3, // dcl_maxout 3
        0x0200_00ce, 2, // dcl_gsinstances 2
        0x0300_0075, 0x0011_0000, 0, // emit_stream m0
        0x0300_0076, 0x0011_0000, 0, // cut_stream m0
    ];
    let p = decode_ok(0x0002_0050, &body);
    assert_eq!(
        p.get(0).unwrap().decl(),
        Some(&Declaration::GsInputPrimitive(Primitive::Triangle))
    );
    assert_eq!(
        listing(0x0002_0050, &body),
        "dcl_inputprimitive triangle\n\
         dcl_stream m0\n\
         dcl_outputtopology trianglestrip\n\
         dcl_maxout 3\n\
         dcl_gsinstances 2\n\
         emit_stream m0\n\
         cut_stream m0\n"
    );
}

#[test]
fn double_immediates() {
    // dmov r0.xy, d(1.0, -2.0): 4-component imm64 = two doubles, low dword first
    #[rustfmt::skip]
    let body = [0x0800_00c7, 0x0010_0032, 0, 0x0000_5002, 0, 0x3ff0_0000, 0, 0xc000_0000];
    let p = decode_ok(PS50, &body);
    let d: Vec<f64> = p.get(0).unwrap().operands[1]
        .immediates64()
        .map(f64::from_bits)
        .collect();
    assert_eq!(d, [1.0, -2.0]);
    assert_eq!(listing(PS50, &body), "dmov r0.xy, d(1.0, -2.0)\n");
}

#[test]
fn precise_resinfo_and_structured_loads() {
    #[rustfmt::skip]
    let body = [
        // add [precise(xy)] r0.xy, r1.xyxx, r2.xyxx: precise mask xy at bits 19-22
        0x0718_0000, 0x0010_0032, 0, 0x0010_0046, 1, 0x0010_0046, 2,
        // resinfo_indexable(texture2d)(float,float,float,float)_uint r0.xy, l(0), t0.xyzw
        0x8900_103d, 0x8000_00c2, 0x0015_5543, 0x0010_0032, 0, 0x0000_4001, 0, 0x0010_7e46, 0,
        // ld_structured_indexable(structured_buffer, stride=16)(mixed x4) r0.x, v0.x, l(0), t0.xxxx
        0x8b00_00a7, 0x8000_8302, 0x0019_9983, 0x0010_0012, 0, 0x0010_100a, 0, 0x0000_4001, 0, 0x0010_7006, 0,
    ];
    let p = decode_ok(PS50, &body);
    assert_eq!(p.get(0).unwrap().precise, 0b0011);
    assert_eq!(
        p.get(1).unwrap().control,
        OpControl::ResInfo(ResInfoReturnType::Uint)
    );
    assert_eq!(
        p.get(2).unwrap().resource_dim(),
        Some((ResourceDimension::StructuredBuffer, 16))
    );
    assert_eq!(
        listing(PS50, &body),
        "add [precise(xy)] r0.xy, r1.xyxx, r2.xyxx\n\
         resinfo_indexable(texture2d)(float,float,float,float)_uint r0.xy, l(0), t0.xyzw\n\
         ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.x, v0.x, l(0), t0.xxxx\n"
    );
}

#[test]
fn operand_annotations() {
    #[rustfmt::skip]
    let body = [
        // mov r0.x {min16f}, r1.x {min16f}: extended operand tokens with min precision 1
        0x0700_0036, 0x8010_0012, 0x4001, 0, 0x8010_000a, 0x4001, 1,
        // mov r0.xy, r1.xy {mask}: a source in mask mode
        0x0500_0036, 0x0010_0032, 0, 0x0010_0032, 1,
        // mov r0.x, t0[r1.x + 0].x {nonuniform} (5.0 program, so lower case)
        0x0700_0036, 0x0010_0012, 0, 0x8090_700a, 0x0002_0001, 0x0010_000a, 1,
        // dcl_resource_texture2d with a one-component t0
        0x0400_1858, 0x0010_7001, 0, 0x5555,
    ];
    let p = decode_ok(PS50, &body);
    let first = p.get(0).unwrap();
    assert_eq!(first.operands[0].min_precision, MinPrecision::Float16);
    let t = &p.get(2).unwrap().operands[1];
    assert!(t.non_uniform);
    let inst = p.get(2).unwrap();
    assert_eq!(
        inst.rel(&t.index(0).unwrap()).unwrap().ty,
        OperandType::Temp
    );
    assert_eq!(
        listing(PS50, &body),
        "mov r0.x {min16f}, r1.x {min16f}\n\
         mov r0.xy, r1.xy {mask}\n\
         mov r0.x, t[r1.x + 0].x {nonuniform}\n\
         dcl_resource_texture2d (float,float,float,float) t0 {c1}\n"
    );
}

/// An assembler builds programs from the public API; the encoder turns them into the
/// tokens assembled by hand for `relative_indices`.
#[test]
fn programs_built_from_scratch_encode() {
    let version = Version {
        program_type: ProgramType::Pixel,
        major: 4,
        minor: 0,
        reserved: 0,
    };
    let mut dst = Operand::new(OperandType::Temp, Components::Mask(0b0001));
    dst.push_index(Index::imm(0));
    let mut src = Operand::new(OperandType::ConstantBuffer, Components::Select1(0));
    src.push_index(Index::imm(0));
    src.push_index(Index {
        repr: IndexRepr::Relative,
        value: 0,
        relative: Some(0),
    });
    let mut rel = Operand::new(OperandType::Temp, Components::Select1(0));
    rel.push_index(Index::imm(1));
    let mut mov = Instruction::new(Opcode::Mov, 0);
    mov.operand_range = 0..2;
    let mut ret = Instruction::new(Opcode::Ret, 0);
    ret.operand_range = 2..2;
    let program = Program {
        version,
        base_offset: 0,
        instructions: vec![mov, ret],
        operands: vec![dst, src],
        relative: vec![rel],
        trailing: vec![],
    };
    assert_eq!(
        encode(&program).unwrap(),
        [
            PS40,
            10,
            0x0700_0036,
            0x0010_0012,
            0,
            0x0420_800a,
            0,
            0x0010_000a,
            1,
            0x0100_003e
        ]
    );
    assert_eq!(
        program.to_string(),
        "ps_4_0\nmov r0.x, cb0[r1.x + 0].x\nret\n"
    );
    // A relative index pointing nowhere is reported, not encoded.
    let mut broken = program.clone();
    broken.relative.clear();
    assert!(
        encode(&broken)
            .unwrap_err()
            .what
            .contains("relative operand")
    );
}

/// Every pattern of operand token bits 0–11 decodes to the selection the token layout
/// defines (count in bits 0–1, mode in 2–3, mask/swizzle/component above), with the bits the
/// selection leaves undefined kept as reserved, or is refused when the mode is 3.
#[test]
fn every_component_selection() {
    for bits in 0..0x1000u32 {
        // mov r0.x, r1<bits>
        let body = [0x0500_0036, 0x0010_0012, 0, 0x0010_0000 | bits, 1];
        if bits & 0xf == 0b1110 {
            let e = decode_err(PS40, &body);
            assert_eq!(
                (e.offset, e.kind),
                (
                    BASE + 8 + 12,
                    DecodeErrorKind::BadValue {
                        what: "component selection mode",
                        value: 3
                    }
                )
            );
            continue;
        }
        let p = decode_ok(PS40, &body);
        let src = p.get(0).unwrap().operands[1];
        let sel = |s: u32| ((bits >> s) & 3) as u8;
        let want = match bits & 3 {
            0 => Components::Zero,
            1 => Components::One,
            3 => Components::N,
            _ => match (bits >> 2) & 3 {
                0 => Components::Mask(((bits >> 4) & 0xf) as u8),
                1 => Components::Swizzle([sel(4), sel(6), sel(8), sel(10)]),
                _ => Components::Select1(sel(4)),
            },
        };
        assert_eq!(src.components, want, "bits {bits:03x}");
        assert_eq!(src.reserved, bits & !want.defined_bits(), "bits {bits:03x}");
    }
}

/// `Operand::imm_index` and `Operand::wide_index` agree with `Operand::index`.
#[test]
fn immediate_and_wide_indices() {
    let mut op = Operand::new(OperandType::ConstantBuffer, Components::Zero);
    let indices = [
        Index {
            repr: IndexRepr::Imm64,
            value: 7,
            relative: None,
        },
        Index {
            repr: IndexRepr::Imm32PlusRelative,
            value: 2,
            relative: Some(0),
        },
        Index {
            repr: IndexRepr::Imm64,
            value: (3 << 32) | 5,
            relative: None,
        },
    ];
    for i in indices {
        assert!(op.push_index(i));
    }
    assert_eq!(op.imm_index(0), Some(7));
    assert_eq!(op.imm_index(1), None);
    assert_eq!(op.imm_index(2), Some((3 << 32) | 5));
    assert_eq!(op.imm_index(3), None);
    assert_eq!(op.wide_index(), Some((3 << 32) | 5));
    let mut narrow = Operand::new(OperandType::ConstantBuffer, Components::Zero);
    assert!(narrow.push_index(indices[0]));
    assert_eq!(narrow.wide_index(), None);
}

#[test]
fn decode_reusing_gives_what_decode_gives() {
    // A program with relative operands and trailing bytes, and a smaller one with neither:
    // decoding each into the other's vectors gives exactly what a fresh decode gives.
    #[rustfmt::skip]
    let rel = [
        0x0700_0036, 0x0010_0012, 0, 0x0420_800a, 0, 0x0010_000a, 1, 0x0800_0036, 0x0010_0012, 0, 0x0620_300a, 0, 3, 0x0010_001a, 1,
    ];
    let mut big = program(PS40, &rel);
    big.extend_from_slice(&[0xaa, 0xbb, 0xcc, 0xdd]);
    let mut small_body = vec![0x0200_0068, 8];
    small_body.extend([0x0500_0036]);
    small_body.extend(R0_XYZW_DST);
    small_body.extend(V1_XYZW);
    let small = program(PS50, &small_body);
    let fresh_big = decode(&big, BASE).unwrap();
    let fresh_small = decode(&small, 0x80).unwrap();
    assert!(!fresh_big.relative.is_empty() && !fresh_big.trailing.is_empty());
    let reused_small = decode_reusing(&small, 0x80, Some(fresh_big.clone())).unwrap();
    assert_eq!(reused_small, fresh_small);
    let reused_big = decode_reusing(&big, BASE, Some(reused_small)).unwrap();
    assert_eq!(reused_big, fresh_big);
    // Errors are those of `decode`.
    let bad = bytes(&[PS40, 5, 0x0100_003e]);
    assert_eq!(
        decode_reusing(&bad, BASE, Some(fresh_big)).unwrap_err(),
        decode(&bad, BASE).unwrap_err()
    );
}
