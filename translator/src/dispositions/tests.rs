//! The table covers exactly what the decoder knows, the docs hold the table as generated,
//! and the behaviours the table claims for global flags are what translation does.

use super::{DISPOSITIONS, Handling, field, lookup, markdown};
use crate::sm4::{
    CustomDataClass, ExtOpcode, InterpolationMode, MinPrecision, Modifier, ResInfoReturnType,
    ReturnType, SamplerMode, global_flags, sync_flags, uav_flags,
};

/// Every (field, value) the decoder can produce in a flag or mode field, from its own lists.
fn decoder_values() -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = Vec::new();
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
    v.extend(
        SamplerMode::ALL
            .iter()
            .map(|x| (field::SAMPLER_MODE, format!("{x:?}"))),
    );
    v.extend(
        InterpolationMode::ALL
            .iter()
            .map(|x| (field::INTERPOLATION, format!("{x:?}"))),
    );
    v.extend(
        ReturnType::ALL
            .iter()
            .map(|x| (field::RETURN_TYPE, format!("{x:?}"))),
    );
    v.extend(
        MinPrecision::ALL
            .iter()
            .map(|x| (field::MIN_PRECISION, format!("{x:?}"))),
    );
    v.extend(
        Modifier::ALL
            .iter()
            .map(|x| (field::MODIFIER, format!("{x:?}"))),
    );
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
    v.extend(
        ResInfoReturnType::ALL
            .iter()
            .map(|x| (field::RESINFO, format!("{x:?}"))),
    );
    v.extend(
        sync_flags::NAMES
            .iter()
            .map(|(_, n)| (field::SYNC_FLAG, n.to_string())),
    );
    v.extend(
        CustomDataClass::ALL
            .iter()
            .map(|x| (field::CUSTOM_DATA, format!("{x:?}"))),
    );
    v
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
    let stale: Vec<String> = DISPOSITIONS
        .iter()
        .filter(|e| !known.iter().any(|(f, n)| *f == e.field && n == e.value))
        .map(|e| format!("{}: {}", e.field, e.value))
        .collect();
    assert!(stale.is_empty(), "not a decoder value: {stale:#?}");
    for (i, a) in DISPOSITIONS.iter().enumerate() {
        assert!(
            !DISPOSITIONS[..i]
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
    for e in DISPOSITIONS {
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
