//! Signatures that lowering must refuse, seen through the whole pipeline.

/// A corrupt signature whose component mask has bits beyond xyzw is an invalid program
/// (it used to make a "vector" of eight components, a debug assertion, found by the
/// `translate` fuzz target).
#[test]
fn signature_masks_beyond_xyzw_are_invalid() {
    let mut dxbc = crate::asm::assemble(
        "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 float\n\
         dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\n\
         mov o0.xyzw, v0.xyxy\nret\n",
    )
    .unwrap();
    let c = crate::container::Container::parse(&dxbc).unwrap();
    let osgn = c.chunk(b"OSGN").unwrap();
    let table = u32::from_le_bytes(osgn.data[4..8].try_into().unwrap()) as usize;
    let mask_at = osgn.offset + table + 20;
    assert_eq!(dxbc[mask_at], 0xf, "the output's mask byte");
    let invalid = |blob: &[u8]| match crate::translate(blob, &crate::Options::default()) {
        Err(crate::Error::Lower(crate::lower::LowerError::Invalid { what, .. })) => what,
        other => panic!("expected an invalid-program error, got {other:?}"),
    };
    let mut bad = dxbc.clone();
    bad[mask_at] = 0x3f;
    let e = invalid(&bad);
    assert!(e.contains("beyond xyzw"), "{e}");
    // A register number that would overflow the interface locations (fuzzer finding).
    let reg_at = osgn.offset + table + 16;
    dxbc[reg_at..reg_at + 4].copy_from_slice(&0xffff_fff9u32.to_le_bytes());
    let e = invalid(&dxbc);
    assert!(e.contains("names register 4294967289"), "{e}");
}
