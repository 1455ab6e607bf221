//! Unit tests of the ALU lowering: small pixel shaders assembled from tokens, translated, and
//! checked for the shape of the SPIR-V they produce (which instructions, how many) and for the
//! errors bad operands give. Behaviour (the values computed) is checked at run time by
//! `shaders/runtime/alu/*.shader_test`; these tests pin the lowering choices that keep the code
//! compact and the undefined SPIR-V cases out.

use spirv::{GlslStd450Op as Glsl, Op};

/// Operand and instruction tokens.
mod tok {
    pub const OUTPUT: u32 = 2;
    pub const CB: u32 = 8;

    /// `o#.mask`.
    pub fn out(reg: u32, mask: u32) -> Vec<u32> {
        vec![2 | (mask << 4) | (OUTPUT << 12) | (1 << 20), reg]
    }

    /// `r#.mask`.
    pub fn temp(reg: u32, mask: u32) -> Vec<u32> {
        vec![2 | (mask << 4) | (1 << 20), reg]
    }

    /// `r#.swizzle` as a source.
    pub fn temp_src(reg: u32, swz: [u32; 4]) -> Vec<u32> {
        vec![2 | (1 << 2) | (swizzle(swz) << 4) | (1 << 20), reg]
    }

    /// `cb0[row].swizzle`.
    pub fn cb(row: u32, swz: [u32; 4]) -> Vec<u32> {
        vec![
            2 | (1 << 2) | (swizzle(swz) << 4) | (CB << 12) | (2 << 20),
            0,
            row,
        ]
    }

    /// `l(a, b, c, d)`.
    pub fn imm(v: [u32; 4]) -> Vec<u32> {
        let mut t = vec![2 | (4 << 12)];
        t.extend_from_slice(&v);
        t
    }

    /// `null`.
    pub fn null() -> Vec<u32> {
        vec![13 << 12]
    }

    pub fn swizzle(s: [u32; 4]) -> u32 {
        s[0] | (s[1] << 2) | (s[2] << 4) | (s[3] << 6)
    }

    pub const XYZW: [u32; 4] = [0, 1, 2, 3];
    pub const XXXX: [u32; 4] = [0, 0, 0, 0];
    pub const YYYY: [u32; 4] = [1, 1, 1, 1];

    /// An instruction: opcode (with control bits) and operands.
    pub fn inst(opcode: u32, operands: &[Vec<u32>]) -> Vec<u32> {
        let body: Vec<u32> = operands.iter().flatten().copied().collect();
        let mut t = vec![opcode | ((body.len() as u32 + 1) << 24)];
        t.extend(body);
        t
    }
}

/// A ps_5_0 container: `cb0[4]`, `dcl_temps 4`, a uint `SV_Target` in `o0`, then `code` and
/// `ret`.
fn pixel_shader(code: &[Vec<u32>]) -> Vec<u8> {
    let mut tokens = vec![
        // dcl_globalFlags enableDoublePrecisionFloatOps
        0x6a | (1 << 12) | (1 << 24),
        // dcl_constantbuffer cb0[4], immediateIndexed
        0x59 | (4 << 24),
        2 | (1 << 2) | (tok::swizzle(tok::XYZW) << 4) | (tok::CB << 12) | (2 << 20),
        0,
        4,
        // dcl_output o0.xyzw
        0x65 | (3 << 24),
        2 | (0xf << 4) | (tok::OUTPUT << 12) | (1 << 20),
        0,
        // dcl_temps 4
        0x68 | (2 << 24),
        4,
    ];
    for c in code {
        tokens.extend_from_slice(c);
    }
    tokens.push(0x3e | (1 << 24)); // ret
    let mut shex = vec![0x50, tokens.len() as u32 + 2];
    shex.extend(tokens);
    let shex: Vec<u8> = shex.iter().flat_map(|w| w.to_le_bytes()).collect();
    let isgn: Vec<u8> = [0u32, 8].iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut osgn: Vec<u8> = [1u32, 8, 32, 0, 0, 1, 0, 0x0f]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    osgn.extend_from_slice(b"SV_Target\0\0\0");
    let chunks: [(&[u8; 4], Vec<u8>); 3] = [(b"ISGN", isgn), (b"OSGN", osgn), (b"SHEX", shex)];
    let header = 32 + 4 * chunks.len();
    let mut body = Vec::new();
    let mut offsets = Vec::new();
    for (tag, data) in &chunks {
        offsets.push((header + body.len()) as u32);
        body.extend_from_slice(*tag);
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
    }
    let mut blob = b"DXBC".to_vec();
    blob.extend_from_slice(&[0; 16]);
    blob.extend_from_slice(&1u32.to_le_bytes());
    blob.extend_from_slice(&((header + body.len()) as u32).to_le_bytes());
    blob.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    for o in offsets {
        blob.extend_from_slice(&o.to_le_bytes());
    }
    blob.extend(body);
    let sum = crate::container::checksum::container_checksum(&blob);
    blob[4..20].copy_from_slice(&sum);
    blob
}

fn translate(code: &[Vec<u32>]) -> Result<Vec<u32>, crate::Error> {
    crate::translate(&pixel_shader(code), &crate::Options::default()).map(|t| t.spirv)
}

/// The instructions of the function bodies: (opcode, operand words).
fn body_insts(spirv: &[u32]) -> Vec<(Op, Vec<u32>)> {
    let mut out = Vec::new();
    let mut i = 5;
    let mut in_fn = false;
    while i < spirv.len() {
        let n = (spirv[i] >> 16) as usize;
        let op = spirv[i] & 0xffff;
        assert!(
            n > 0 && i + n <= spirv.len(),
            "malformed SPIR-V at word {i}"
        );
        if op == Op::Function as u32 {
            in_fn = true;
        }
        if in_fn && let Some(o) = Op::from_u32(op) {
            out.push((o, spirv[i + 1..i + n].to_vec()));
        }
        i += n;
    }
    out
}

fn count_op(spirv: &[u32], op: Op) -> usize {
    body_insts(spirv).iter().filter(|(o, _)| *o == op).count()
}

/// Number of GLSL.std.450 instructions `g` (ExtInst operands: type, id, set, instruction).
fn count_glsl(spirv: &[u32], g: Glsl) -> usize {
    body_insts(spirv)
        .iter()
        .filter(|(o, w)| *o == Op::ExtInst && w.get(3) == Some(&(g as u32)))
        .count()
}

/// The message of an invalid-program error, checking that it is at an instruction `opcode`.
fn invalid(r: Result<Vec<u32>, crate::Error>, opcode: &str) -> String {
    match r {
        Err(crate::Error::Lower(crate::lower::LowerError::Invalid {
            what, opcode: at, ..
        })) => {
            assert_eq!(at, Some(opcode), "{what}");
            what
        }
        other => panic!("expected an invalid-program error, got {other:?}"),
    }
}

const UBFE: u32 = 0x8a;
const IBFE: u32 = 0x8b;
const BFI: u32 = 0x8c;

#[test]
fn bitfield_with_one_immediate_field_is_one_instruction() {
    // ubfe o0.xyzw, l(8, 8, 8, 8), l(28, 28, 28, 28), cb0[0]: the field runs past bit 31, so
    // the count is folded to min(8, 32 - 28) = 4.
    let s = translate(&[tok::inst(
        UBFE,
        &[
            tok::out(0, 0xf),
            tok::imm([8; 4]),
            tok::imm([28; 4]),
            tok::cb(0, tok::XYZW),
        ],
    )])
    .unwrap();
    assert_eq!(count_op(&s, Op::BitFieldUExtract), 1);
    assert_eq!(count_op(&s, Op::ShiftRightLogical), 0);
    assert_eq!(count_glsl(&s, Glsl::UMin), 0, "the count folds");
}

#[test]
fn bitfield_with_width_zero_folds_away() {
    let s = translate(&[tok::inst(
        IBFE,
        &[
            tok::out(0, 0xf),
            tok::imm([32; 4]),
            tok::imm([3; 4]),
            tok::cb(0, tok::XYZW),
        ],
    )])
    .unwrap();
    assert_eq!(count_op(&s, Op::BitFieldSExtract), 0);
}

#[test]
fn bitfield_with_immediate_fields_per_component_uses_vector_shifts() {
    // ubfe / ibfe / bfi o0.xyzw, l(4, 8, 0, 31), l(0, 28, 5, 1), ...
    for (op, nsrc) in [(UBFE, 1), (IBFE, 1), (BFI, 2)] {
        let mut ops = vec![
            tok::out(0, 0xf),
            tok::imm([4, 8, 0, 31]),
            tok::imm([0, 28, 5, 1]),
        ];
        for _ in 0..nsrc {
            ops.push(tok::cb(0, tok::XYZW));
        }
        let s = translate(&[tok::inst(op, &ops)]).unwrap();
        for bf in [
            Op::BitFieldUExtract,
            Op::BitFieldSExtract,
            Op::BitFieldInsert,
        ] {
            assert_eq!(count_op(&s, bf), 0, "opcode {op:#x}: no scalar BitField*");
        }
        let shifts = count_op(&s, Op::ShiftLeftLogical)
            + count_op(&s, Op::ShiftRightLogical)
            + count_op(&s, Op::ShiftRightArithmetic);
        assert!((1..=2).contains(&shifts), "opcode {op:#x}: {shifts} shifts");
    }
}

#[test]
fn bitfield_with_run_time_fields() {
    // One register component for all: one vector instruction with a run-time count.
    let s = translate(&[tok::inst(
        BFI,
        &[
            tok::out(0, 0xf),
            tok::cb(1, tok::XXXX),
            tok::cb(1, tok::YYYY),
            tok::cb(0, tok::XYZW),
            tok::cb(2, tok::XYZW),
        ],
    )])
    .unwrap();
    assert_eq!(count_op(&s, Op::BitFieldInsert), 1);
    assert_eq!(
        count_glsl(&s, Glsl::UMin),
        1,
        "count = min(width, 32 - offset)"
    );
    // Fields that differ per component: one scalar instruction each.
    let s = translate(&[tok::inst(
        UBFE,
        &[
            tok::out(0, 0x7),
            tok::cb(1, tok::XYZW),
            tok::cb(2, tok::XYZW),
            tok::cb(0, tok::XXXX),
        ],
    )])
    .unwrap();
    assert_eq!(count_op(&s, Op::BitFieldUExtract), 3);
    assert_eq!(count_glsl(&s, Glsl::UMin), 3);
}

#[test]
fn firstbit_hi_is_bit_reverse_and_find_lsb() {
    let s = translate(&[tok::inst(0x87, &[tok::out(0, 0xf), tok::cb(0, tok::XYZW)])]).unwrap();
    assert_eq!(count_op(&s, Op::BitReverse), 1);
    assert_eq!(count_glsl(&s, Glsl::FindILsb), 1);
    assert_eq!(count_glsl(&s, Glsl::FindUMsb), 0);
    assert_eq!(count_op(&s, Op::Select), 0);
}

#[test]
fn f32tof16_does_not_rely_on_pack_half() {
    let s = translate(&[tok::inst(0x82, &[tok::out(0, 0xf), tok::cb(0, tok::XYZW)])]).unwrap();
    assert_eq!(count_glsl(&s, Glsl::PackHalf2x16), 0);
    // f16tof32 unpacks two components per UnpackHalf2x16.
    let s = translate(&[tok::inst(0x83, &[tok::out(0, 0xf), tok::cb(0, tok::XYZW)])]).unwrap();
    assert_eq!(count_glsl(&s, Glsl::UnpackHalf2x16), 2);
}

#[test]
fn multi_destination_results_share_work() {
    // umul o0.xy(hi), r0.xy(lo): one UMulExtended for both halves.
    let s = translate(&[
        tok::inst(
            0x51,
            &[
                tok::out(0, 0x3),
                tok::temp(0, 0x3),
                tok::cb(0, tok::XYZW),
                tok::cb(1, tok::XYZW),
            ],
        ),
        tok::inst(0x36, &[tok::out(0, 0xc), tok::temp_src(0, [0, 0, 0, 1])]),
    ])
    .unwrap();
    assert_eq!(count_op(&s, Op::UMulExtended), 1);
    assert_eq!(count_op(&s, Op::IMul), 0);
    // udiv with both results: one zero test of the divisor.
    let s = translate(&[
        tok::inst(
            0x4e,
            &[
                tok::out(0, 0x3),
                tok::temp(0, 0x3),
                tok::cb(0, tok::XYZW),
                tok::cb(1, tok::XYZW),
            ],
        ),
        tok::inst(0x36, &[tok::out(0, 0xc), tok::temp_src(0, [0, 0, 0, 1])]),
    ])
    .unwrap();
    assert_eq!(count_op(&s, Op::UDiv), 1);
    assert_eq!(count_op(&s, Op::UMod), 1);
    assert_eq!(count_op(&s, Op::IEqual), 1);
}

#[test]
fn sincos_with_a_null_destination_computes_one_function() {
    let s = translate(&[tok::inst(
        0x4d,
        &[tok::null(), tok::out(0, 0xf), tok::cb(0, tok::XYZW)],
    )])
    .unwrap();
    assert_eq!(count_glsl(&s, Glsl::Sin), 0);
    assert_eq!(count_glsl(&s, Glsl::Cos), 1);
    assert_eq!(count_glsl(&s, Glsl::RoundEven), 1, "range reduction");
}

#[test]
fn doubles_need_float64_and_pairs() {
    // dadd o0.xyzw, cb0[0], cb0[1]: one vector add of two doubles.
    let s = translate(&[tok::inst(
        0xbf,
        &[
            tok::out(0, 0xf),
            tok::cb(0, tok::XYZW),
            tok::cb(1, tok::XYZW),
        ],
    )])
    .unwrap();
    assert_eq!(count_op(&s, Op::FAdd), 1);
    let caps: Vec<u32> = {
        let mut v = Vec::new();
        let mut i = 5;
        while i < s.len() {
            let n = (s[i] >> 16) as usize;
            if s[i] & 0xffff == Op::Capability as u32 {
                v.push(s[i + 1]);
            }
            i += n.max(1);
        }
        v
    };
    assert!(caps.contains(&(spirv::Capability::Float64 as u32)));
    let t = crate::translate(
        &pixel_shader(&[tok::inst(
            0xbf,
            &[
                tok::out(0, 0xf),
                tok::cb(0, tok::XYZW),
                tok::cb(1, tok::XYZW),
            ],
        )]),
        &crate::Options::default(),
    )
    .unwrap();
    assert!(
        t.reflection
            .vulkan_features
            .iter()
            .any(|f| f == "shaderFloat64")
    );
}

#[test]
fn double_operands_with_bad_masks_are_invalid() {
    // dadd o0.x: half a double.
    let e = invalid(
        translate(&[tok::inst(
            0xbf,
            &[
                tok::out(0, 0x1),
                tok::cb(0, tok::XYZW),
                tok::cb(1, tok::XYZW),
            ],
        )]),
        "dadd",
    );
    assert!(e.contains("double destination mask"), "{e}");
    // dtof o0.xyz: three results from at most two doubles.
    let e = invalid(
        translate(&[tok::inst(0xc9, &[tok::out(0, 0x7), tok::cb(0, tok::XYZW)])]),
        "dtof",
    );
    assert!(e.contains("1 or 2 allowed"), "{e}");
    // dadd with a one-component source (`l(1)`): no room for a double.
    let e = invalid(
        translate(&[tok::inst(
            0xbf,
            &[
                tok::out(0, 0x3),
                vec![1 | (4 << 12), 1],
                tok::cb(1, tok::XYZW),
            ],
        )]),
        "dadd",
    );
    assert!(e.contains("cannot hold a double"), "{e}");
}

/// `ftoi`/`ftou` of a pixel shader's `SV_Position.xy` (window coordinates, always in range) are a
/// bare conversion; the same conversions of `SV_Position.z`, of a varying, of `-x` for `ftou`, of
/// a copy in a temp, and of a vertex shader's position input keep the clamp and the selects.
#[test]
fn only_window_coordinates_convert_without_the_range_clamp() {
    let pixel = |body: &str| {
        let text = format!(
            "ps_5_0\n.input SV_Position 0 v0 float POS\n.input TEXCOORD 0 v1 float\n\
             .output SV_Target 0 o0 uint\ndcl_input_ps_siv linear noperspective v0.xyzw, position\n\
             dcl_input_ps linear v1.xy\ndcl_output o0.xyzw\ndcl_temps 1\n{body}\nret\n"
        );
        let dxbc = crate::asm::assemble(&text).unwrap();
        crate::translate(&dxbc, &crate::Options::default())
            .unwrap()
            .spirv
    };
    let clamps = |spirv: &[u32]| count_glsl(spirv, Glsl::NClamp);
    let bare = pixel("ftoi o0.xy, v0.xyxx\nftou o0.zw, |v0.yyyx|\nftoi o0.x, -v0.y");
    assert_eq!(clamps(&bare), 0);
    assert_eq!(count_op(&bare, Op::Select), 0);
    assert_eq!(count_op(&bare, Op::ConvertFToS), 2);
    assert_eq!(count_op(&bare, Op::ConvertFToU), 1);
    for kept in [
        "ftoi o0.x, v0.z",
        "ftoi o0.x, v0.w",
        "ftou o0.x, v1.x",
        "ftou o0.x, -v0.x",
        "mov r0.x, v0.x\nftoi o0.x, r0.x",
    ] {
        assert_eq!(clamps(&pixel(kept)), 1, "{kept}");
    }
    let text = "vs_5_0\n.input SV_Position 0 v0 float\n.output SV_Position 0 o0 float POS\n\
                dcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\n\
                ftoi o0.x, v0.x\nmov o0.yzw, v0.yyzw\nret\n";
    let vertex = crate::translate(
        &crate::asm::assemble(text).unwrap(),
        &crate::Options::default(),
    )
    .unwrap()
    .spirv;
    assert_eq!(clamps(&vertex), 1);
}
