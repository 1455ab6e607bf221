//! Residency feedback on raw and structured buffers (`ld_raw_s`, `ld_structured_s`): the
//! SRV becomes an R32_UINT uniform texel buffer read with sparse fetches, stated in the
//! reflection; `RawFeedback::Refuse` and UAVs keep the refusal.

use spirv::Op;

use super::query::insts;
use crate::RawFeedback;
use crate::reflect::{DescriptorType, ResourceShape};

const PS: &str = "ps_5_0\n.output SV_Target 0 o0 uint\ndcl_resource_raw t0\n\
    dcl_resource_structured t1, 12\ndcl_output o0.xyzw\ndcl_temps 3\n\
    ld_raw_s r0.xy, r2.x, l(4), t0.xyxx\ncheck_access_fully_mapped r2.x, r2.x\n\
    ld_structured r1.xyz, l(1), l(0), t1.xyzx\n\
    iadd r0.x, r0.x, r1.x\nmov r0.z, r2.x\nmov o0.xyzw, r0.xyzx\nret\n";

fn translate(text: &str, raw_feedback: RawFeedback) -> Result<crate::Translation, crate::Error> {
    let dxbc = crate::asm::assemble(text).unwrap();
    let opts = crate::Options {
        raw_feedback,
        ..Default::default()
    };
    crate::translate(&dxbc, &opts)
}

#[test]
fn raw_load_with_feedback_reads_a_texel_buffer() {
    let t = translate(PS, RawFeedback::TexelBuffer).unwrap();
    let insts = insts(&t.spirv);
    let count = |op: Op| insts.iter().filter(|(o, _)| *o == op).count();
    // Two dwords, two sparse fetches; their codes are combined once, tested once.
    assert_eq!(count(Op::ImageSparseFetch), 2);
    assert_eq!(count(Op::ImageSparseTexelsResident), 2);
    // t1, read without feedback, stays a storage buffer.
    assert_eq!(count(Op::ImageFetch), 0);
    let d: Vec<_> = t
        .reflection
        .descriptors
        .iter()
        .map(|d| (d.origin.lower, d.descriptor_type, d.shape.clone()))
        .collect();
    assert_eq!(
        d,
        [
            (
                0,
                DescriptorType::UniformTexelBuffer,
                ResourceShape::RawBuffer
            ),
            (
                1,
                DescriptorType::StorageBuffer,
                ResourceShape::StructuredBuffer { stride: 12 }
            ),
        ]
    );
    assert!(
        t.reflection
            .vulkan_features
            .iter()
            .any(|f| f == "shaderResourceResidency")
    );
}

#[test]
fn null_status_keeps_the_storage_buffer() {
    let text = PS.replace("ld_raw_s r0.xy, r2.x,", "ld_raw_s r0.xy, null,");
    let t = translate(&text, RawFeedback::TexelBuffer).unwrap();
    assert!(
        t.reflection
            .descriptors
            .iter()
            .all(|d| d.descriptor_type == DescriptorType::StorageBuffer)
    );
}

#[test]
fn refuse_and_uav_feedback_are_unsupported() {
    let e = translate(PS, RawFeedback::Refuse).unwrap_err();
    assert!(e.is_unsupported(), "{e}");
    assert!(e.to_string().contains("ld_raw_s"), "{e}");
    let uav = PS
        .replace("dcl_resource_raw t0", "dcl_uav_raw u0")
        .replace("l(4), t0.xyxx", "l(4), u0.xyxx");
    let e = translate(&uav, RawFeedback::TexelBuffer).unwrap_err();
    assert!(e.is_unsupported() && e.to_string().contains("UAV"), "{e}");
}
