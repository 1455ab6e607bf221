//! Class linkage through the whole pipeline: the SPIR-V shape of `fcall` and `this`, the
//! reflection's class-instance layout, and every declaration field checked or refused.

use crate::reflect::{CLASS_INSTANCE_REGISTER, RegisterClass};

const HEAD: &str = "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 float\n\
    dcl_constantbuffer cb0[4], dynamicIndexed\n\
    dcl_input_ps_siv linear noperspective v0.xy, position\n";

/// Two classes (ft0, ft1) of an interface with two call sites, bound at slots 0 and 1.
const TABLES: &str = "dcl_function_body fb0\ndcl_function_body fb1\ndcl_function_body fb2\n\
    dcl_function_body fb3\ndcl_function_table ft0 = {fb0, fb1}\n\
    dcl_function_table ft1 = {fb2, fb3}\n";

const BODIES: &str = "label fb0\nadd r0.x, r0.x, l(1.0)\nret\nlabel fb1\nmov r0.y, l(2.0)\nret\n\
    label fb2\nmul r0.x, r0.x, cb[r1.y + 0][r1.x + 0].x\nret\nlabel fb3\nmov r0.y, l(3.0)\nret\n";

fn program(decls: &str, code: &str, bodies: &str) -> String {
    format!(
        "{HEAD}{decls}dcl_output o0.xyzw\ndcl_temps 2\nmov r0.xyzw, l(0, 0, 0, 0)\n\
         {code}mov o0.xyzw, r0.xyzw\nret\n{bodies}"
    )
}

fn translate(text: &str) -> Result<crate::Translation, crate::Error> {
    let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    crate::translate(&dxbc, &crate::Options::default())
}

fn error(text: &str) -> String {
    match translate(text) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("expected an error for\n{text}"),
    }
}

fn words_of(t: &crate::Translation, op: spirv::Op) -> Vec<Vec<u32>> {
    let w = &t.spirv;
    let mut out = Vec::new();
    let mut i = 5;
    while i < w.len() {
        let n = (w[i] >> 16) as usize;
        if (w[i] & 0xffff) as u16 == op as u16 {
            out.push(w[i + 1..i + n].to_vec());
        }
        i += n.max(1);
    }
    out
}

#[test]
fn fcall_switches_over_the_interface_tables() {
    let decls = format!(
        "{TABLES}dcl_interface fp0[1][2] = {{ft0, ft1}}\ndcl_interface fp1[1][2] = {{ft0, ft1}}\n"
    );
    let code = "mov r1.xy, this[1].yxyy\nfcall fp1[0][0]\nfcall fp0[0][1]\n";
    let t = translate(&program(&decls, code, BODIES)).unwrap();
    // Two calls, each a switch with one case per table (IDs 0 and 1).
    let switches = words_of(&t, spirv::Op::Switch);
    assert_eq!(switches.len(), 2, "{switches:?}");
    for s in &switches {
        let literals: Vec<u32> = s[2..].iter().step_by(2).copied().collect();
        assert_eq!(literals, [0, 1], "{s:?}");
    }
    let refl = &t.reflection;
    let linkage = refl.class_linkage.as_ref().expect("class linkage");
    assert_eq!(linkage.register, CLASS_INSTANCE_REGISTER);
    assert_eq!(linkage.slot_count, 2);
    assert_eq!(linkage.slot_stride, 32);
    assert_eq!(linkage.interfaces.len(), 2);
    assert_eq!(linkage.interfaces[1].tables, [0, 1]);
    assert_eq!(linkage.function_tables[1].bodies, [2, 3]);
    // The class-instance buffer: b15, one 32-byte record per slot.
    let d = refl
        .descriptors
        .iter()
        .find(|d| d.origin.class == RegisterClass::B && d.origin.lower == CLASS_INSTANCE_REGISTER)
        .expect("class-instance buffer descriptor");
    assert_eq!(
        d.shape,
        crate::reflect::ResourceShape::ConstantBuffer { size_bytes: 64 }
    );
}

#[test]
fn dynamically_indexed_interfaces() {
    let decls = format!("{TABLES}dcl_interface_dynamicindexed fp0[2][2] = {{ft0, ft1}}\n");
    let code = "ftou r1.z, v0.x\nfcall fp0[r1.z + 0][1]\n";
    let t = translate(&program(&decls, code, BODIES)).unwrap();
    assert_eq!(words_of(&t, spirv::Op::Switch).len(), 1);
    // Without `dynamicindexed`, a register index is refused.
    let decls = format!("{TABLES}dcl_interface fp0[2][2] = {{ft0, ft1}}\n");
    let e = error(&program(&decls, code, BODIES));
    assert!(e.contains("not declared dynamicindexed"), "{e}");
}

#[test]
fn this_reads_the_slot_record() {
    let decls = format!("{TABLES}dcl_interface fp0[1][2] = {{ft0, ft1}}\n");
    let code = "mov r0.xyzw, this[0].xyzw\n";
    let t = translate(&program(&decls, code, BODIES)).unwrap();
    assert!(
        t.reflection
            .descriptors
            .iter()
            .any(|d| d.origin.lower == 15)
    );
    // `this` without any interface.
    let e = error(&program("", code, ""));
    assert!(e.contains("without dcl_interface"), "{e}");
}

#[test]
fn declarations_are_checked() {
    let cases = [
        (
            "dcl_function_body fb0\ndcl_function_table ft0 = {fb0, fb1}\n",
            "ft0 names fb1",
        ),
        (
            "dcl_function_body fb0\ndcl_function_body fb0\n",
            "fb0 is declared twice",
        ),
        (
            "dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\ndcl_interface fp0[1][2] = {ft0}\n",
            "fp0 has 2 call sites but ft0 has 1 bodies",
        ),
        (
            "dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\ndcl_interface fp0[1][1] = {ft3}\n",
            "fp0 names ft3",
        ),
        (
            "dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\ndcl_interface fp0[2][1] = {ft0}\n\
             dcl_interface fp1[1][1] = {ft0}\n",
            "fp1 overlaps the slots of fp0",
        ),
        (
            "dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\ndcl_interface fp252[2][1] = {ft0}\n",
            "past the 253 interface slots",
        ),
    ];
    for (decls, want) in cases {
        let e = error(&program(decls, "", "label fb0\nret\n"));
        assert!(e.contains(want), "{want}: {e}");
    }
}

#[test]
fn calls_are_checked() {
    let decls = format!("{TABLES}dcl_interface fp0[1][2] = {{ft0, ft1}}\n");
    let e = error(&program(&decls, "fcall fp0[0][2]\n", BODIES));
    assert!(e.contains("call site 2 of fp0"), "{e}");
    let e = error(&program(&decls, "fcall fp0[1][0]\n", BODIES));
    assert!(e.contains("fp0[1] is past"), "{e}");
    let e = error(&program(&decls, "fcall fp3[0][0]\n", BODIES));
    assert!(e.contains("fp3 is not declared"), "{e}");
    // A body without its label.
    let e = error(&program(&decls, "fcall fp0[0][0]\n", "label fb1\nret\n"));
    assert!(e.contains("fb0 has no label"), "{e}");
    // A body that calls itself through the interface.
    let recursive = BODIES.replace("add r0.x, r0.x, l(1.0)", "fcall fp0[0][0]");
    let e = error(&program(&decls, "fcall fp0[0][0]\n", &recursive));
    assert!(e.contains("recursive call to fb0"), "{e}");
}

#[test]
fn what_cannot_be_honoured_is_refused() {
    let decls = format!("{TABLES}dcl_interface fp0[1][2] = {{ft0, ft1}}\n");
    // The program's own cb15 would collide with the class-instance buffer.
    let e = error(&program(
        &format!("dcl_constantbuffer cb15[1], immediateIndexed\n{decls}"),
        "mov r0.xyzw, this[0].xyzw\nadd r0.x, r0.x, cb15[0].x\n",
        BODIES,
    ));
    assert!(e.contains("cb15 is declared"), "{e}");
    // UAVs chosen by a register value (class instances have none).
    let e = error(&program(
        &format!("{decls}dcl_uav_typed_texture2d (float,float,float,float) u1\n"),
        "mov r1.xy, this[0].zwzz\nstore_uav_typed u[r1.x + 0].xyzw, l(0, 0, 0, 0), r0.xyzw\n",
        BODIES,
    ));
    assert!(e.contains("u# register chosen by a register value"), "{e}");
}

#[test]
fn textures_and_samplers_chosen_by_this() {
    let decls = format!(
        "{TABLES}dcl_interface fp0[1][2] = {{ft0, ft1}}\n\
         dcl_resource_texture2d (float,float,float,float) t0\n\
         dcl_resource_texture2d (float,float,float,float) t1\n\
         dcl_resource_buffer (float,float,float,float) t2\n\
         dcl_sampler s0, mode_default\ndcl_sampler s3, mode_default\n"
    );
    // A class instance's texture and sampler: this.z + 1, this.w.
    let code = "mov r1.xy, this[0].zwzz\niadd r1.x, r1.x, l(1)\n\
        sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v0.xyxx, t[r1.x + 0].xyzw, s[r1.y + 0]\n";
    let t = translate(&program(&decls, code, BODIES)).unwrap();
    // One switch on the texture (the 2D ones: t0, t1, not the buffer t2), in each case one
    // on the sampler (s0, s3).
    let switches = words_of(&t, spirv::Op::Switch);
    let literals: Vec<Vec<u32>> = switches
        .iter()
        .map(|s| s[2..].iter().step_by(2).copied().collect())
        .collect();
    assert_eq!(
        literals,
        [vec![0, 1], vec![0, 3], vec![0, 3]],
        "{switches:?}"
    );
    assert_eq!(words_of(&t, spirv::Op::ImageSampleImplicitLod).len(), 4);
    // Nothing of the file declared.
    let e = error(&program(
        &format!("{TABLES}dcl_interface fp0[1][2] = {{ft0, ft1}}\ndcl_sampler s0, mode_default\n"),
        "mov r1.xy, this[0].zwzz\nsample r0.xyzw, v0.xyxx, t[r1.x + 0].xyzw, s0\n",
        BODIES,
    ));
    assert!(e.contains("no such t is declared"), "{e}");
}
