//! The table covers exactly what the decoder knows, the docs hold the table as generated,
//! and the behaviours the table claims for global flags are what translation does.

use super::enums::field as ef;
use super::{ENUM_DISPOSITIONS, Handling, all, field, lookup, markdown};
use crate::sm4::{
    CustomDataClass, ExtOpcode, IndexRepr, InterpolationMode, MinPrecision, Modifier, OperandType,
    Primitive, PrimitiveTopology, ProgramType, ResInfoReturnType, ResourceDimension, ReturnType,
    SamplerMode, SystemName, TessDomain, TessOutputPrimitive, TessPartitioning, global_flags,
    sync_flags, uav_flags,
};

/// Every (field, value) the decoder can produce in a flag, mode or enumerated field, from its
/// own lists.
fn decoder_values() -> Vec<(&'static str, String)> {
    decoder_values_and_enums().0
}

/// [`decoder_values`], and the names of the `sm4` enums it walked.
fn decoder_values_and_enums() -> (Vec<(&'static str, String)>, Vec<&'static str>) {
    let mut v: Vec<(&'static str, String)> = Vec::new();
    let mut walked: Vec<&'static str> = Vec::new();
    // Each value of a `token_enum!` (its `ALL`, which the macro builds from the variants).
    macro_rules! walk {
        ($field:expr, $($ty:ident),+) => {$(
            walked.push(stringify!($ty));
            v.extend($ty::ALL.iter().map(|x| ($field, format!("{x:?}"))));
        )+};
    }
    for bit in 0..32 {
        let flag = 1u32 << bit;
        if global_flags::ALL & flag != 0 {
            let name = global_flags::NAMES
                .iter()
                .find(|(f, _)| *f == flag)
                .unwrap_or_else(|| panic!("global flag bit {bit} has no name"))
                .1;
            v.push((field::GLOBAL_FLAG, name.into()));
        }
    }
    v.extend(
        uav_flags::NAMES
            .iter()
            .map(|(_, n)| (field::UAV_FLAG, n.to_string())),
    );
    v.push((field::CB_ACCESS, "immediateIndexed".into()));
    v.push((field::CB_ACCESS, "dynamicIndexed".into()));
    walk!(field::SAMPLER_MODE, SamplerMode);
    walk!(field::INTERPOLATION, InterpolationMode);
    walk!(field::RETURN_TYPE, ReturnType);
    walk!(field::MIN_PRECISION, MinPrecision);
    walk!(field::MODIFIER, Modifier);
    for bit in ["_sat", "precise", "nonuniform", "reserved bits"] {
        v.push((field::INSTRUCTION_BIT, bit.into()));
    }
    // Every kind value the decoder accepts (with valid payload fields) must be a listed kind.
    for kind in 0..64u32 {
        // Payload 0 is valid for offsets and dimensions, return types need a defined type.
        let unorm4 = (1 << 6) | (1 << 10) | (1 << 14) | (1 << 18);
        if [kind, kind | unorm4]
            .iter()
            .any(|&t| ExtOpcode::from_token(t).is_ok())
        {
            let name = ExtOpcode::KINDS
                .iter()
                .find(|(k, _)| *k == kind)
                .unwrap_or_else(|| {
                    panic!("extended opcode kind {kind} decodes but is not in KINDS")
                })
                .1;
            v.push((field::EXT_OPCODE, name.into()));
        }
    }
    walked.push("ExtOpcode");
    walk!(field::RESINFO, ResInfoReturnType);
    v.extend(
        sync_flags::NAMES
            .iter()
            .map(|(_, n)| (field::SYNC_FLAG, n.to_string())),
    );
    walk!(field::CUSTOM_DATA, CustomDataClass);
    walk!(ef::PROGRAM_TYPE, ProgramType);
    walk!(ef::OPERAND_TYPE, OperandType);
    walk!(ef::INDEX_REPR, IndexRepr);
    walk!(ef::RESOURCE_DIMENSION, ResourceDimension);
    walk!(ef::SYSTEM_NAME, SystemName);
    walk!(ef::OUTPUT_TOPOLOGY, PrimitiveTopology);
    walk!(ef::TESS_DOMAIN, TessDomain);
    walk!(ef::TESS_PARTITIONING, TessPartitioning);
    walk!(ef::TESS_OUTPUT, TessOutputPrimitive);
    // Not a `token_enum!` (patches carry a count): every encoding the decoder accepts.
    walked.push("Primitive");
    for p in (0..=u8::MAX as u32).filter_map(Primitive::from_u32) {
        let name = match p {
            Primitive::Patch(_) => "Patch(n)".to_string(),
            p => format!("{p:?}"),
        };
        if !v
            .iter()
            .any(|(f, n)| *f == ef::INPUT_PRIMITIVE && *n == name)
        {
            v.push((ef::INPUT_PRIMITIVE, name));
        }
    }
    (v, walked)
}

/// Every enum `sm4/enums.rs` defines must be walked by [`decoder_values`]: a new field type
/// cannot slip past the table.
#[test]
fn every_decoder_enum_is_walked() {
    let src = include_str!("../sm4/enums.rs");
    let (_, walked) = decoder_values_and_enums();
    let defined: Vec<&str> = src
        .split("pub enum ")
        .skip(1)
        .filter_map(|rest| {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            Some(&rest[..end]).filter(|n| !n.is_empty())
        })
        .collect();
    assert!(
        defined.len() >= 15,
        "found only {defined:?} in sm4/enums.rs"
    );
    let unwalked: Vec<&&str> = defined.iter().filter(|n| !walked.contains(n)).collect();
    assert!(
        unwalked.is_empty(),
        "enums of sm4/enums.rs that decoder_values does not walk (walk them and add their \
         values to the dispositions): {unwalked:?}"
    );
}

#[test]
fn every_decoder_value_has_a_disposition() {
    let missing: Vec<String> = decoder_values()
        .into_iter()
        .filter(|(f, n)| lookup(f, n).is_none())
        .map(|(f, n)| format!("{f}: {n}"))
        .collect();
    assert!(
        missing.is_empty(),
        "neither honoured nor documented (add to DISPOSITIONS): {missing:#?}"
    );
}

#[test]
fn no_disposition_names_a_value_the_decoder_lacks() {
    let known = decoder_values();
    let stale: Vec<String> = all()
        .filter(|e| !known.iter().any(|(f, n)| *f == e.field && n == e.value))
        .map(|e| format!("{}: {}", e.field, e.value))
        .collect();
    assert!(stale.is_empty(), "not a decoder value: {stale:#?}");
    let every: Vec<_> = all().collect();
    for (i, a) in every.iter().enumerate() {
        assert!(
            !every[..i]
                .iter()
                .any(|b| b.field == a.field && b.value == a.value),
            "{}: {} listed twice",
            a.field,
            a.value
        );
    }
}

#[test]
fn every_disposition_says_why() {
    for e in all() {
        let text = match e.handling {
            Handling::Honoured(t)
            | Handling::Refused(t)
            | Handling::NoVulkanMeaning(t)
            | Handling::Weakened(t) => t,
        };
        assert!(text.len() > 5, "{}: {} has no reason", e.field, e.value);
    }
}

#[test]
fn docs_hold_the_generated_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/flags.md");
    let doc = std::fs::read_to_string(path).expect("docs/flags.md");
    let begin = "<!-- generated from translator/src/dispositions.rs: begin -->\n";
    let end = "<!-- generated: end -->";
    let start = doc.find(begin).expect("begin marker") + begin.len();
    let stop = doc.find(end).expect("end marker");
    let table = markdown();
    assert!(
        doc[start..stop] == table,
        "docs/flags.md's table is out of date; replace it with:\n{table}"
    );
}

/// How many `OpDecorate … NoContraction` a module has.
fn no_contraction_count(words: &[u32]) -> usize {
    let mut i = 5;
    let mut n = 0;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        if words[i] & 0xffff == spirv::Op::Decorate as u32
            && words.get(i + 2) == Some(&(spirv::Decoration::NoContraction as u32))
        {
            n += 1;
        }
        i += len.max(1);
    }
    n
}

fn ps_with_flags(flags: &str) -> Vec<u8> {
    crate::asm::assemble(&format!(
        "ps_5_0
.input TEXCOORD 0 v0.xy float
.output SV_Target 0 o0 float
{flags}dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 1
mul r0.x, v0.x, v0.y
add r0.x, r0.x, v0.x
mov o0.xyzw, r0.xxxx
ret
"
    ))
    .unwrap()
}

/// Without `refactoringAllowed` (fxc /Gis) every float operation is precise: the mul and the
/// add may not be fused into an fma. With it, nothing is decorated.
#[test]
fn refactoring_allowed_absent_makes_float_arithmetic_precise() {
    let opts = crate::Options::default();
    let strict = crate::translate(&ps_with_flags(""), &opts).unwrap();
    assert_eq!(no_contraction_count(&strict.spirv), 2);
    let strict = crate::translate(
        &ps_with_flags("dcl_globalFlags enableRawAndStructuredBuffers\n"),
        &opts,
    )
    .unwrap();
    assert_eq!(no_contraction_count(&strict.spirv), 2);
    let relaxed = crate::translate(
        &ps_with_flags("dcl_globalFlags refactoringAllowed\n"),
        &opts,
    )
    .unwrap();
    assert_eq!(no_contraction_count(&relaxed.spirv), 0);
}

/// A program using each value [`ENUM_DISPOSITIONS`] says is refused, and text its error must
/// hold.
fn refusal_cases() -> Vec<(&'static str, String, String, &'static str)> {
    let ps = |body: &str| format!("ps_5_0\ndcl_output o0.xyzw\n{body}\nret\n");
    let gs = |prim: &str, topo: &str| {
        format!("gs_5_0\ndcl_inputprimitive {prim}\ndcl_outputtopology {topo}\ndcl_maxout 1\nret\n")
    };
    let hs = |domain: &str, part: &str, out: &str| {
        format!(
            "hs_5_0\nhs_decls\ndcl_input_control_point_count 1\ndcl_output_control_point_count 1\n\
             dcl_tessellator_domain {domain}\ndcl_tessellator_partitioning {part}\n\
             dcl_tessellator_output_primitive {out}\nhs_fork_phase\nret\n"
        )
    };
    let mut v = vec![
        (
            ef::OPERAND_TYPE,
            "FunctionInput".into(),
            ps("mov o0.xyzw, fi0.xxxx"),
            "reading fi operands",
        ),
        (
            ef::OPERAND_TYPE,
            "FunctionOutput".into(),
            ps("mov fo0.xyzw, l(0,0,0,0)"),
            "writing fo operands",
        ),
        (
            ef::OPERAND_TYPE,
            "CycleCounter".into(),
            ps("dcl_input vCycleCounter.xy\nmov o0.xyzw, vCycleCounter.xxxx"),
            "vCycleCounter",
        ),
        (
            ef::INPUT_PRIMITIVE,
            "Patch(n)".into(),
            gs("patch3", "pointlist"),
            "input primitive Patch(3)",
        ),
        (
            ef::INPUT_PRIMITIVE,
            "Undefined".into(),
            gs("undefined", "pointlist"),
            "input primitive",
        ),
        (
            ef::TESS_DOMAIN,
            "Undefined".into(),
            hs("domain_undefined", "partitioning_integer", "output_point"),
            "tessellator domain",
        ),
        (
            ef::TESS_PARTITIONING,
            "Undefined".into(),
            hs("domain_tri", "partitioning_undefined", "output_point"),
            "tessellator partitioning",
        ),
        (
            ef::TESS_OUTPUT,
            "Undefined".into(),
            hs("domain_tri", "partitioning_integer", "output_undefined"),
            "tessellator output primitive",
        ),
    ];
    for (name, decl) in [
        ("Barycentrics", "barycentrics"),
        ("ShadingRate", "shadingrate"),
        ("CullPrimitive", "cullprimitive"),
    ] {
        // No signature: the declaration's name alone must not become a plain location.
        let body = format!("dcl_input_ps_siv linear v0.x, {decl}\nmov o0.xyzw, v0.xxxx");
        v.push((ef::SYSTEM_NAME, name.into(), ps(&body), "system value"));
    }
    for t in PrimitiveTopology::ALL {
        if lookup(ef::OUTPUT_TOPOLOGY, &format!("{t:?}"))
            .is_some_and(|h| matches!(h, Handling::Refused(_)))
        {
            v.push((
                ef::OUTPUT_TOPOLOGY,
                format!("{t:?}"),
                gs("point", t.name()),
                "output topology",
            ));
        }
    }
    v
}

/// What the enum table says is refused is refused, with an error naming it; and every refused
/// value has a case here.
#[test]
fn refused_enum_values_are_refused_by_name() {
    let cases = refusal_cases();
    for e in ENUM_DISPOSITIONS {
        if matches!(e.handling, Handling::Refused(_)) {
            assert!(
                cases.iter().any(|c| c.0 == e.field && c.1 == e.value),
                "{}: {} is said to be refused but no test proves it",
                e.field,
                e.value
            );
        }
    }
    for (f, value, text, expect) in cases {
        assert!(
            matches!(lookup(f, &value), Some(Handling::Refused(_))),
            "{f}: {value} is not marked refused"
        );
        let dxbc = crate::asm::assemble(&text).unwrap_or_else(|e| panic!("{value}: {e}\n{text}"));
        match crate::translate(&dxbc, &crate::Options::default()) {
            Ok(_) => panic!("{f}: {value} translated:\n{text}"),
            Err(e) => assert!(
                e.to_string().contains(expect),
                "{f}: {value}: error {e:?} does not say {expect:?}"
            ),
        }
    }
}

/// A register index of a 64-bit representation above 2^32 - 1 is refused, not truncated; one
/// that fits is read.
#[test]
fn wide_imm64_index_is_refused() {
    let prog = |index: &str| {
        format!(
            "ps_5_0\ndcl_constantbuffer CB0[6], immediateIndexed\ndcl_output o0.xyzw\n\
             mov o0.xyzw, cb0[{index}].xxxx\nret\n"
        )
    };
    let opts = crate::Options::default();
    let ok = crate::asm::assemble(&prog("5u64")).unwrap();
    crate::translate(&ok, &opts).expect("a 64-bit index that fits");
    let wide = crate::asm::assemble(&prog("0x100000005u64")).unwrap();
    let err = crate::translate(&wide, &opts).expect_err("a 64-bit index past 2^32 - 1");
    assert!(err.to_string().contains("index-range"), "{err}");
}
