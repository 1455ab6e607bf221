//! The `vkd3d` backend for D3D9 bytecode (SM1–3): `vkd3d-compiler -x d3dbc -b
//! spirv-binary`, with a [`Reflection`] built from that SPIR-V and vkd3d's `d3d-asm` listing.
//!
//! A D3D9 program has no signatures, so interface variables are named from the listing's
//! `dcl_<usage><index> v#`/`o#` lines (vkd3d names each SPIR-V variable after its register,
//! `v0`, `o1`, and gives it that register's location, except ps_2_x colour inputs, which it
//! places at 8 and up, as our translator does). Its descriptors are named like its SM4 ones
//! (`cb0_0` for the float constants, `t0` + `s0` per sampler), each its own register.

use super::spirv_info::{IoVar, SpirvInfo};
use super::vkd3d_reflect::{self, Located};
use translator::reflect::*;

/// The `(usage, index)` a `dcl_<usage><index> REG` line of the listing gives register `reg`
/// (`v0`, `o1`), if any.
fn declared_semantic(asm: &str, reg: &str) -> Option<(String, u32)> {
    asm.lines().find_map(|l| {
        let mut t = l.split_whitespace();
        let usage = t.next()?.strip_prefix("dcl_")?;
        let r = t.next()?;
        if r.split('.').next()? != reg {
            return None;
        }
        let digits = usage.trim_start_matches(|c: char| !c.is_ascii_digit());
        let name = &usage[..usage.len() - digits.len()];
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let index: u32 = digits.parse().unwrap_or(0);
        // vkd3d's listing has its own names for three usages: D3DDECLUSAGE_COLOR index
        // N ≥ 1 is `specular<N-1>`, BLENDWEIGHT `weight`, BLENDINDICES `blend`.
        match name.to_ascii_uppercase().as_str() {
            "SPECULAR" => Some(("COLOR".into(), index + 1)),
            "WEIGHT" => Some(("BLENDWEIGHT".into(), index)),
            "BLEND" => Some(("BLENDINDICES".into(), index)),
            n => Some((n.to_string(), index)),
        }
    })
}

/// The semantic of an SM1/SM2 varying vkd3d placed at `location` without a `dcl` naming it
/// (vs_1_x/vs_2_x outputs, ps_1_x/ps_2_x inputs): vkd3d-compiler puts `oT#`/`t#` at #, `oD#`/`v#`
/// at 8 + #, `oFog` at 11 and `oPts` at 12 (seen in its SPIR-V; the point size also goes to
/// the `PointSize` built-in).
fn sm1_varying(location: u32) -> (String, u32) {
    match location {
        0..=7 => ("TEXCOORD".into(), location),
        8 | 9 => ("COLOR".into(), location - 8),
        11 => ("FOG".into(), 0),
        12 => ("PSIZE".into(), 0),
        l => ("TEXCOORD".into(), l),
    }
}

fn interface(
    vars: &[IoVar],
    asm: &str,
    stage: ShaderStage,
    output: bool,
    sm3: bool,
) -> Vec<InterfaceVar> {
    vars.iter()
        .map(|v| {
            // Vertex inputs and SM3 varyings sit at their register's location; vkd3d's
            // variable names count the declared registers instead (`v1` for register `v5`),
            // so the listing is searched by location there.
            let by_location = sm3 || (stage == ShaderStage::Vertex && !output);
            let name = match (by_location, v.location, &v.builtin) {
                (true, Some(l), None) => format!("{}{l}", if output { "o" } else { "v" }),
                _ => v.name.clone().unwrap_or_default(),
            };
            let register = name
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .parse::<u32>()
                .ok();
            let (semantic_name, semantic_index) = match (&v.builtin, declared_semantic(asm, &name))
            {
                (Some(b), _) => (b.to_ascii_uppercase(), 0),
                (None, Some(s)) => s,
                // Pixel shader outputs are colours; other undeclared registers are named by
                // their location.
                (None, None) if stage == ShaderStage::Pixel && output => {
                    ("COLOR".into(), register.unwrap_or(0))
                }
                (None, None) => sm1_varying(v.location.unwrap_or(0)),
            };
            let placement = match (&v.builtin, v.location) {
                (Some(b), _) => InterfacePlacement::BuiltIn {
                    builtin: b.clone().into(),
                },
                (None, Some(location)) => InterfacePlacement::Location {
                    location,
                    component: v.component,
                },
                (None, None) => InterfacePlacement::Unused,
            };
            InterfaceVar {
                semantic_name: semantic_name.into(),
                semantic_index,
                register: if v.builtin.is_some() { None } else { register },
                mask: ((1u32 << v.vec_size.min(4)) - 1) as u8,
                component_type: v.scalar.unwrap_or(ComponentType::Float),
                placement,
            }
        })
        .collect()
}

/// Builds the reflection of vkd3d's SPIR-V for a D3D9 program.
pub fn reflect(info: &SpirvInfo, asm: &str) -> Result<Reflection, String> {
    // Each D3D9 register is its own descriptor, in space 0.
    let descriptors = vkd3d_reflect::descriptors(info, |_, _, id| {
        Ok(Located {
            space: 0,
            lower: id,
            upper: Some(id),
            buffer: None,
        })
    })?;
    let version = asm
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string();
    let sm3 = version.ends_with("_3_0") || version.ends_with("_3_sw");
    Ok(Reflection {
        inputs: interface(&info.inputs, asm, info.stage, false, sm3),
        outputs: interface(&info.outputs, asm, info.stage, true, sm3),
        d3d9: Some(D3d9Info {
            version: version.into(),
            ..Default::default()
        }),
        ..vkd3d_reflect::module_reflection(info, descriptors)
    })
}

#[cfg(test)]
mod tests {
    use super::{declared_semantic, sm1_varying};

    #[test]
    fn sm1_varyings_by_location() {
        assert_eq!(sm1_varying(3), ("TEXCOORD".into(), 3));
        assert_eq!(sm1_varying(9), ("COLOR".into(), 1));
        assert_eq!(sm1_varying(11), ("FOG".into(), 0));
        assert_eq!(sm1_varying(12), ("PSIZE".into(), 0));
    }

    #[test]
    fn semantics_from_the_listing() {
        let asm = "vs_3_0\ndcl_position0 v0\ndcl_texcoord1 v1\ndcl_texcoord0 o1.xy\n";
        assert_eq!(declared_semantic(asm, "v0"), Some(("POSITION".into(), 0)));
        assert_eq!(declared_semantic(asm, "v1"), Some(("TEXCOORD".into(), 1)));
        assert_eq!(declared_semantic(asm, "o1"), Some(("TEXCOORD".into(), 0)));
        assert_eq!(declared_semantic(asm, "o0"), None);
        assert_eq!(declared_semantic("ps_2_0\ndcl t0\n", "t0"), None);
        assert_eq!(
            declared_semantic("vs_3_0\ndcl_specular0 o2\n", "o2"),
            Some(("COLOR".into(), 1))
        );
        assert_eq!(
            declared_semantic("ps_3_0\ndcl_blend v0\n", "v0"),
            Some(("BLENDINDICES".into(), 0))
        );
    }
}
