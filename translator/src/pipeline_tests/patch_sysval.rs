//! System values that exist per control point or per vertex, named where a patch constant is
//! (a patch-constant signature element, a `vpc`/fork-phase declaration): D3D passes such data
//! along unnamed (D3D11.3 §24.1–24.5), so each becomes a plain `Patch` location — never the
//! control points' arrayed `Position`/`ClipDistance` built-in read as one vector (the mutated
//! domain shader of issue 30 loaded `Input _arr_v4float_uint_4` as a `v4float`).

use super::validate;

const DS: &str = "ds_5_0\ndcl_input_control_point_count 3\ndcl_tessellator_domain domain_tri\n";

/// Each case: the program translates, spirv-val accepts the module, and no `Position`,
/// `ClipDistance`, `CullDistance`, `Layer` or `ViewportIndex` built-in but the ones the
/// per-vertex data and outputs need is declared `Patch`.
fn check(text: &str) {
    let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let t = crate::translate(&dxbc, &crate::Options::default())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    validate(&t.spirv);
    // The patch constants are reflected as locations, none as a built-in.
    for v in &t.reflection.patch_constants {
        if let crate::reflect::InterfacePlacement::BuiltIn { builtin } = &v.placement {
            assert!(
                builtin.starts_with("TessLevel"),
                "{builtin} for {v:?}\n{text}"
            );
        }
    }
}

#[test]
fn per_vertex_system_values_among_patch_constants_are_data() {
    let sv = |sv: &str, mask: &str| {
        format!(
            "{DS}.input SV_Position 0 v0 float POS\n\
             .patch SV_TessFactor 0 v0.x float TRIEDGE\n.patch SV_TessFactor 1 v1.x float TRIEDGE\n\
             .patch SV_TessFactor 2 v2.x float TRIEDGE\n.patch SV_InsideTessFactor 0 v3.x float TRIINT\n\
             .patch EXTRA 0 v4{mask} float {sv}\n\
             .output SV_Position 0 o0 float POS\n\
             dcl_input vicp[3][0].xyzw\ndcl_input vpc4{mask}\ndcl_output_siv o0.xyzw, position\n\
             dcl_temps 1\nadd r0.xyzw, vicp[0][0].xyzw, vpc4.xxxx\nmov o0.xyzw, r0.xyzw\nret\n"
        )
    };
    // The mutation's shape: a patch-constant element marked SV_Position, read by the shader.
    check(&sv("POS", ".xyzw"));
    check(&sv("CLIPDST", ".x"));
    check(&sv("CULLDST", ".x"));
    check(&sv("RTINDEX", ".x"));
    check(&sv("VPINDEX", ".x"));
    // Named by the declaration instead of the signature.
    check(&format!(
        "{DS}dcl_input vicp[3][0].xyzw\ndcl_input_siv vpc4.xyzw, position\n\
         dcl_output_siv o0.xyzw, position\ndcl_temps 1\n\
         add r0.xyzw, vicp[0][0].xyzw, vpc4.xyzw\nmov o0.xyzw, r0.xyzw\nret\n"
    ));
}

#[test]
fn hull_shader_patch_constant_outputs_named_position_are_data() {
    let hs = "hs_5_0\nhs_decls\ndcl_input_control_point_count 3\n\
        dcl_output_control_point_count 3\ndcl_tessellator_domain domain_tri\n\
        dcl_tessellator_partitioning partitioning_integer\n\
        dcl_tessellator_output_primitive output_triangle_cw\n";
    check(&format!(
        "{hs}hs_fork_phase\ndcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\n\
         dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor\n\
         dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor\n\
         dcl_output_siv o3.x, finalTriInsideTessFactor\ndcl_output_siv o4.xyzw, position\n\
         mov o0.x, l(1.0)\nmov o1.x, l(1.0)\nmov o2.x, l(1.0)\nmov o3.x, l(1.0)\n\
         mov o4.xyzw, l(1.0, 2.0, 3.0, 4.0)\nret\n"
    ));
    // A hull shader's control points carrying the layer index: data too (TCS has no Layer).
    check(&format!(
        "{hs}hs_control_point_phase\ndcl_input vicp[3][0].xyzw\n\
         dcl_output o0.xyzw\ndcl_output_siv o1.x, rendertarget_array_index\n\
         mov o0.xyzw, vicp[0][0].xyzw\nmov o1.x, l(3)\nret\n"
    ));
}
