//! The immediate constant buffer as a uniform buffer (`IcbMode::UniformBuffer`): placed by
//! the binding policy like the constant buffer it stands for, reflected with its data, and
//! refused where the program declares that register itself.

use spirv::{Decoration, Op, StorageClass};

use super::query::insts;
use crate::IcbMode;
use crate::reflect::{DescriptorType, RegisterClass, ResourceShape};

const PS: &str = "ps_4_0\n.output SV_Target 0 o0 uint\n\
    dcl_immediateConstantBuffer { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } }\n\
    dcl_constantbuffer cb0[1], immediateIndexed\ndcl_output o0.xyzw\ndcl_temps 1\n\
    mov r0.x, cb0[0].x\nmov r0.yzw, icb[r0.x + 0].yzw\nmov o0.xyzw, r0.xyzw\nret\n";

fn translate(text: &str, icb: IcbMode) -> Result<crate::Translation, crate::Error> {
    let dxbc = crate::asm::assemble(text).unwrap();
    let opts = crate::Options {
        icb,
        ..Default::default()
    };
    crate::translate(&dxbc, &opts)
}

#[test]
fn icb_as_uniform_buffer_is_placed_and_reflected_with_its_data() {
    let icb = IcbMode::UniformBuffer {
        space: 2,
        register: 14,
    };
    let t = translate(PS, icb).unwrap();
    let d = t
        .reflection
        .descriptors
        .iter()
        .find(|d| d.origin.class == RegisterClass::B && d.origin.lower == 14)
        .expect("the icb descriptor");
    assert_eq!(d.descriptor_type, DescriptorType::UniformBuffer);
    // The default class-offsets policy: set = space, binding = b's base (0) + register.
    assert_eq!((d.set, d.binding, d.origin.space), (2, 14, 2));
    assert_eq!(
        d.shape,
        ResourceShape::ImmediateConstantBuffer {
            data: vec![1, 2, 3, 4, 5, 6, 7, 8]
        }
    );
    let insts = insts(&t.spirv);
    // Two uniform blocks (cb0 and the icb), no private array.
    let vars: Vec<u32> = insts
        .iter()
        .filter(|(op, _)| *op == Op::Variable)
        .map(|(_, w)| w[2])
        .collect();
    assert_eq!(
        vars.iter()
            .filter(|&&s| s == StorageClass::Uniform as u32)
            .count(),
        2
    );
    assert!(!vars.contains(&(StorageClass::Private as u32)));
    assert_eq!(
        insts
            .iter()
            .filter(|(op, w)| *op == Op::Decorate && w[1] == Decoration::Block as u32)
            .count(),
        2
    );
}

#[test]
fn icb_defaults_to_a_private_array() {
    let t = translate(PS, IcbMode::PrivateArray).unwrap();
    assert!(
        !t.reflection
            .descriptors
            .iter()
            .any(|d| matches!(d.shape, ResourceShape::ImmediateConstantBuffer { .. }))
    );
    assert!(
        insts(&t.spirv)
            .iter()
            .any(|(op, w)| *op == Op::Variable && w[2] == StorageClass::Private as u32)
    );
}

#[test]
fn icb_register_the_program_declares_is_refused() {
    let icb = IcbMode::UniformBuffer {
        space: 0,
        register: 0,
    };
    let e = translate(PS, icb).unwrap_err();
    assert!(e.to_string().contains("b0 in space 0"), "{e}");
}
