//! Unit tests: hand-built token streams (encodings taken from Microsoft's documentation),
//! typed errors with offsets, the constant table, and the assembler's errors.

use super::error::DecodeErrorKind as K;
use super::*;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn listing(words: &[u32]) -> String {
    decode(&bytes(words)).unwrap().to_string()
}

fn error(words: &[u32]) -> DecodeError {
    let e = decode(&bytes(words)).unwrap_err();
    let text = e.to_string();
    assert!(
        !text.contains('\n') && text.contains("byte offset"),
        "{text}"
    );
    e
}

/// Assembles `text` and checks that it disassembles back to itself.
fn round_trip(text: &str) -> Vec<u32> {
    let b = asm::assemble(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(decode(&b).unwrap().to_string(), text);
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn predicate_token_follows_the_destination() {
    // Microsoft's assembler: `(!p0) add r2, r2, r3` (notes §1).
    let words = [
        0xFFFF_0201,
        0x1400_0002,
        0x800F_0002,
        0xBDE4_1000,
        0x80E4_0002,
        0x80E4_0003,
        END_TOKEN,
    ];
    assert_eq!(listing(&words), "ps_2_x\n(!p0) add r2, r2, r3\n");
    assert_eq!(round_trip("ps_2_x\n(!p0) add r2, r2, r3\n"), words);
    let p = decode(&bytes(&words)).unwrap();
    let i = p.instructions().next().unwrap();
    assert_eq!(i.offset, 4);
    assert_eq!(i.predicate.unwrap().modifier, SourceModifier::Not);
    assert_eq!(i.predicate.unwrap().reg.ty, RegisterType::Predicate);
}

#[test]
fn relative_addressing_implied_in_vs_1_x_and_a_token_from_2_0() {
    let vs11 = [
        0xFFFE_0101,
        0x0000_0001,
        0x800F_0000,
        0xA0E4_2003,
        END_TOKEN,
    ];
    assert_eq!(listing(&vs11), "vs_1_1\nmov r0, c[a0.x + 3]\n");
    assert_eq!(round_trip("vs_1_1\nmov r0, c[a0.x + 3]\n"), vs11);
    let vs20 = [
        0xFFFE_0200,
        0x0300_0001,
        0x800F_0000,
        0xA0E4_2003,
        0xB000_0000,
        END_TOKEN,
    ];
    assert_eq!(listing(&vs20), "vs_2_0\nmov r0, c[a0.x + 3]\n");
    assert_eq!(round_trip("vs_2_0\nmov r0, c[a0.x + 3]\n"), vs20);
    // aL as the index, on an output (vs_3_0) and an input.
    round_trip("vs_3_0\nmov o[aL + 2].xy, v[aL]\n");
}

#[test]
fn sm1_lengths_come_from_the_table() {
    // ps_1_1: tex t0 (1 token), texm3x3spec (3), cnd co-issued; ps_1_4 texld takes a source.
    round_trip("ps_1_1\ntex t0\ntexm3x3spec t3, t0, c0\nmov r0.xyz, t3\n+cnd r0.w, r0.w, c1, c2\n");
    let w = round_trip("ps_1_4\ntexld r0, t0\nphase\ntexcrd r1.xy, t1_dz\n");
    assert_eq!(w[1..4], [0x42, 0x800F_0000, 0xB0E4_0000]);
    assert_eq!(w[4], 0xFFFD);
    // Co-issue is bit 30; 1.x has no length field.
    let w = round_trip("ps_1_3\nmov r0.xyz, c0\n+mov r0.w, c1\n");
    assert_eq!(w[4], 0x4000_0001);
}

#[test]
fn modifiers_controls_and_declarations() {
    round_trip(
        "ps_1_2\nmad_x2_sat r0.xyz, -c0_bias, r1_bx2, 1 - t0.w\n+add_d4 r0.w, -t1_bx2, t2_x2\n",
    );
    round_trip(
        "ps_3_0\ndcl_texcoord3_centroid v0.xy\ndcl_2d s0\ntexldb_pp r0, v0, s0\nmov r1, -v0_abs.yxzw\n",
    );
    round_trip("vs_2_x\nsetp_le p0.xy, r0, c0\nif_ne r0.x, c1.y\nbreak_ge r0.x, c1.x\nendif\n");
    round_trip("vs_3_0\ndef c0, -0.0, 1e20, 0.1, 0xff800000\ndefi i0, -1, 2, 3, 4\ndefb b1, 0x5\n");
    let w = round_trip("ps_2_0\ndcl_cube s3\ntexldp r0, t0, s3\n");
    assert_eq!(w[1..4], [0x0200_001F, 0x9800_0000, 0xA00F_0803]);
    assert_eq!(w[4], 0x0301_0042);
}

#[test]
fn comments_and_bytes_after_end_are_kept() {
    let mut b = bytes(&[
        0xFFFE_0300,
        0x0002_FFFE,
        u32::from_le_bytes(*b"TEXT"),
        0x1234_5678,
        END_TOKEN,
    ]);
    b.extend([1, 2, 3]);
    let p = decode(&b).unwrap();
    assert_eq!(p.trailing, [1, 2, 3]);
    assert_eq!(p.end_offset, 16);
    let text = p.to_string();
    assert_eq!(
        text,
        "vs_3_0\n// TEXT\n.comment 0x54584554 0x12345678\n.trailing 01 02 03\n"
    );
    assert_eq!(asm::assemble(&text).unwrap(), b);
}

#[test]
fn typed_errors_name_the_offset() {
    assert_eq!(error(&[]).kind, K::Truncated("the version token"));
    assert_eq!(error(&[u32::from_le_bytes(*b"DXBC")]).offset, 0);
    assert!(matches!(
        error(&[0xFFFE_0400, END_TOKEN]).kind,
        K::UnsupportedVersion { .. }
    ));
    assert!(matches!(
        error(&[0xFFFF_0106, END_TOKEN]).kind,
        K::UnsupportedVersion { .. }
    ));
    // No END.
    let e = error(&[0xFFFE_0200, 0x0000_0000]);
    assert_eq!(
        (e.offset, e.kind),
        (8, K::Truncated("an instruction or END token"))
    );
    // texm3x3diff (0x4B) is reserved.
    let e = error(&[0xFFFF_0101, 0x4B, END_TOKEN]);
    assert_eq!((e.offset, e.kind), (4, K::UnknownOpcode(0x4B)));
    // 2.0 length past the end; comment past the end.
    let e = error(&[0xFFFE_0200, 0x0F00_0001, 0x800F_0000, END_TOKEN]);
    assert_eq!(e.offset, 4);
    assert!(matches!(
        e.kind,
        K::InstructionPastEnd {
            length: 15,
            remaining: 2
        }
    ));
    let e = error(&[0xFFFE_0200, 0x7FFF_FFFE, END_TOKEN]);
    assert!(matches!(e.kind, K::CommentPastEnd { length: 0x7FFF, .. }));
    // 1.x with a length field; predication in 1.x.
    assert!(matches!(
        error(&[
            0xFFFE_0101,
            0x0200_0001,
            0x800F_0000,
            0x80E4_0001,
            END_TOKEN
        ])
        .kind,
        K::ReservedBits { .. }
    ));
    assert!(matches!(
        error(&[
            0xFFFE_0101,
            0x1000_0001,
            0x800F_0000,
            0x80E4_0001,
            END_TOKEN
        ])
        .kind,
        K::NotInVersion { .. }
    ));
    // Relative addressing in ps_2_0 names the operand.
    let e = error(&[
        0xFFFF_0200,
        0x0200_0001,
        0x800F_0000,
        0xA0E4_2000,
        END_TOKEN,
    ]);
    assert_eq!(e.offset, 12);
    assert!(matches!(e.kind, K::NotInVersion { .. }));
    // The relative token would run past the instruction.
    let e = error(&[
        0xFFFE_0200,
        0x0200_0001,
        0x800F_0000,
        0xA0E4_2000,
        END_TOKEN,
    ]);
    assert_eq!(
        (e.offset, e.kind),
        (16, K::OperandPastEnd("the relative-address token"))
    );
    // mov with two sources; a destination without bit 31.
    assert!(matches!(
        error(&[
            0xFFFE_0200,
            0x0300_0001,
            0x800F_0000,
            0x80E4_0001,
            0x80E4_0002,
            END_TOKEN
        ])
        .kind,
        K::OperandCount { found: 2, .. }
    ));
    let e = error(&[0xFFFE_0101, 0x01, 0x000F_0000, 0x80E4_0001, END_TOKEN]);
    assert_eq!(e.offset, 8);
    // Register type 20 is undefined; oPos..oPts are 0-2.
    assert!(matches!(
        error(&[
            0xFFFE_0101,
            0x01,
            0x800F_1800 | 4 << 28,
            0x80E4_0001,
            END_TOKEN
        ])
        .kind,
        K::BadValue { .. }
    ));
    assert!(matches!(
        error(&[0xFFFE_0101, 0x01, 0xC00F_0003, 0x80E4_0001, END_TOKEN]).kind,
        K::BadValue { .. }
    ));
    // Comparison 0 and unknown controls.
    assert!(matches!(
        error(&[
            0xFFFE_0201,
            0x0200_0029,
            0x8000_0000,
            0x8000_0001,
            END_TOKEN
        ])
        .kind,
        K::BadValue {
            what: "comparison",
            ..
        }
    ));
    assert!(matches!(
        error(&[
            0xFFFE_0200,
            0x0201_0001,
            0x800F_0000,
            0x80E4_0001,
            END_TOKEN
        ])
        .kind,
        K::BadValue {
            what: "opcode controls",
            ..
        }
    ));
}

#[test]
fn detection() {
    assert!(is_d3dbc(&bytes(&[0xFFFE_0300])));
    assert!(is_d3dbc(&bytes(&[0xFFFF_0104])));
    assert!(!is_d3dbc(b"DXBC\0\0\0\0"));
    assert!(!is_d3dbc(&bytes(&[0xFFFE_0400])));
    assert!(asm::is_d3d9_text("// x\n\nps_2_x\n"));
    assert!(asm::is_d3d9_text("vs_3_sw\n"));
    assert!(!asm::is_d3d9_text("ps_5_0\nret\n"));
    assert!(!asm::is_d3d9_text("vs_4_0_level_9_1\n"));
    for v in [
        "vs_1_0", "vs_1_1", "vs_2_0", "vs_2_x", "vs_2_sw", "vs_3_0", "vs_3_sw", "ps_1_4", "ps_2_x",
        "ps_3_0",
    ] {
        assert_eq!(asm::parse_version(v).unwrap().to_string(), v);
    }
    assert!(asm::parse_version("ps_2_1").is_none());
    assert!(asm::parse_version("vs_1_2").is_none());
}

#[test]
fn assembler_errors_name_line_and_column() {
    let e = asm::assemble("vs_2_0\nmov r0, r1\nfoo r0\n").unwrap_err();
    assert_eq!((e.line, e.column), (3, 1));
    let e = asm::assemble("vs_2_0\nmov r0, q1\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 9));
    // The decoder's rule (mov takes one source) reported at its line.
    let e = asm::assemble("vs_2_0\nnop\nmov r0, r1, r2\n").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("mov takes 1 source"), "{}", e.message);
    // ps_2_0 has no relative addressing; vs_1_1 indexes only with a0.x.
    assert!(asm::assemble("ps_2_0\nmov r0, c[a0.x + 1]\n").is_err());
    assert!(asm::assemble("vs_1_1\nmov r0, c[a0.y + 1]\n").is_err());
    assert!(asm::assemble("ps_4_0\n").is_err());
    assert!(asm::assemble("ifc_gt r0, r1\n").is_err());
    assert!(asm::assemble("vs_2_x\nifc r0.x, r1.x\n").is_err());
    assert!(asm::assemble("ps_2_0\ndcl_2d t0\n").is_err());
}

/// A CTAB payload: one float4x4 `m` at c4 (4 registers), creator "me", target "vs_3_0".
fn ctab(type_offset_of_member: Option<u32>) -> Vec<u32> {
    let mut t = vec![0u8; 0];
    let w = |t: &mut Vec<u8>, v: u32| t.extend(v.to_le_bytes());
    // Header (28 bytes): size, creator@64, version, 1 constant, info@28, flags, target@68.
    for v in [28, 64, 0xFFFE_0300, 1, 28, 0, 68] {
        w(&mut t, v);
    }
    // Constant info (20 bytes at 28): name@76, set 2 (float4) index 4, count 4, type@48.
    w(&mut t, 76);
    w(&mut t, 2 | 4 << 16);
    w(&mut t, 4);
    w(&mut t, 48);
    w(&mut t, 0);
    // Type (16 bytes at 48): matrix rows float 4x4, 1 element, members.
    let (count, at) = match type_offset_of_member {
        Some(_) => (1, 80),
        None => (0, 0),
    };
    for v in [3 | 3 << 16, 4 | 4 << 16, 1 | count << 16, at] {
        w(&mut t, v);
    }
    t.extend(b"me\0\0vs_3_0\0\0m\0\0\0");
    if let Some(member_type) = type_offset_of_member {
        w(&mut t, 76);
        w(&mut t, member_type);
    }
    let mut words = vec![ctab::CTAB];
    words.extend(
        t.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    words
}

#[test]
fn constant_table() {
    let c = Comment {
        offset: 4,
        data: ctab(None),
    };
    let t = c.ctab().unwrap().unwrap();
    assert_eq!((t.creator.as_str(), t.target.as_str()), ("me", "vs_3_0"));
    assert_eq!(t.constants.len(), 1);
    let k = &t.constants[0];
    assert_eq!(
        (
            k.name.as_str(),
            k.register_set,
            k.register_index,
            k.register_count
        ),
        ("m", ctab::RegisterSet::Float4, 4, 4)
    );
    assert_eq!(k.ty.hlsl(), "float4x4");
    // A type whose member is itself: refused (depth), not a hang.
    let c = Comment {
        offset: 4,
        data: ctab(Some(48)),
    };
    let e = c.ctab().unwrap().unwrap_err();
    assert!(e.offset >= 12, "{e}");
    // Cut short: an error, with an offset inside the comment.
    let mut data = ctab(None);
    data.truncate(10);
    let c = Comment { offset: 4, data };
    assert!(c.ctab().unwrap().is_err());
}

#[test]
fn version_names_are_what_display_writes() {
    for stage in [Stage::Vertex, Stage::Pixel] {
        for major in 0..=255u8 {
            for minor in 0..=255u8 {
                let v = Version {
                    stage,
                    major,
                    minor,
                };
                assert_eq!(v.name(), v.to_string());
            }
        }
    }
}

/// A usage's semantic name is its name in capitals, as D3D writes it (`TEXCOORD`).
#[test]
fn usage_semantics_are_the_names_in_capitals() {
    for u in Usage::ALL {
        assert_eq!(u.semantic(), u.name().to_ascii_uppercase(), "{u:?}");
    }
}

/// Every version D3D9 defines has its static name, the name `Display` writes; no other has.
#[test]
fn defined_versions_have_static_names() {
    for stage in [Stage::Vertex, Stage::Pixel] {
        for major in 0..=4u8 {
            for minor in (0..=5u8).chain([0xFF]) {
                let v = Version {
                    stage,
                    major,
                    minor,
                };
                match v.static_name() {
                    Some(s) => {
                        assert!(v.is_defined(), "{v}");
                        assert_eq!(s, v.name());
                        assert_eq!(s, v.to_string());
                    }
                    None => assert!(!v.is_defined(), "{v} lacks a static name"),
                }
            }
        }
    }
}
