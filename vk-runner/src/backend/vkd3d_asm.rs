//! Reads resource declarations from vkd3d-compiler's `d3d-asm` disassembly.
//!
//! vkd3d names each descriptor variable of its SPIR-V after the D3D register *ID* (`t1`,
//! `u0`, `cb0_2`); for SM5.1 the ID is not the register, so the `dcl_*` lines are needed to
//! know each ID's register range and space, and whether a buffer is structured or raw.

use translator::reflect::RegisterClass;

/// What a declaration declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclKind {
    ConstantBuffer,
    Sampler,
    Typed,
    Raw,
    Structured { stride: u32 },
}

/// One `dcl_constantBuffer` / `dcl_sampler` / `dcl_resource_*` / `dcl_uav_*` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    pub class: RegisterClass,
    pub id: u32,
    pub lower: u32,
    /// `None` for unbounded ranges (`t0[0:*]`).
    pub upper: Option<u32>,
    pub space: u32,
    pub kind: DeclKind,
}

/// Parses every resource declaration of a disassembly.
pub fn parse_decls(asm: &str) -> Vec<Decl> {
    let mut out = Vec::new();
    for line in asm.lines() {
        let line = line.trim();
        let lower = line.to_ascii_lowercase();
        let (class, base_kind) = if lower.starts_with("dcl_constantbuffer") {
            (RegisterClass::B, DeclKind::ConstantBuffer)
        } else if lower.starts_with("dcl_sampler") {
            (RegisterClass::S, DeclKind::Sampler)
        } else if lower.starts_with("dcl_resource") {
            (RegisterClass::T, DeclKind::Typed)
        } else if lower.starts_with("dcl_uav") {
            (RegisterClass::U, DeclKind::Typed)
        } else {
            continue;
        };
        let first = lower.split_whitespace().next().unwrap_or("");
        let tokens: Vec<&str> = line
            .split([' ', ',', '\t'])
            .filter(|t| !t.is_empty())
            .collect();
        let prefix = match class {
            RegisterClass::B => "cb",
            RegisterClass::S => "s",
            RegisterClass::T => "t",
            RegisterClass::U => "u",
        };
        let Some(pos) = tokens.iter().skip(1).position(|t| {
            t.strip_prefix(prefix)
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        }) else {
            continue;
        };
        let pos = pos + 1;
        let reg = &tokens[pos][prefix.len()..];
        let digits_end = reg.find(|c: char| !c.is_ascii_digit()).unwrap_or(reg.len());
        let Ok(id) = reg[..digits_end].parse::<u32>() else {
            continue;
        };
        let (mut lower_b, mut upper_b) = (id, Some(id));
        let rest = &reg[digits_end..];
        // `[lower:upper]` is a range; a lone `[N]` (SM5.0 constant buffer) is a size.
        if let Some(r) = rest.strip_prefix('[')
            && let Some(end) = r.find(']')
            && let Some((a, b)) = r[..end].split_once(':')
        {
            if let Ok(a) = a.trim().parse() {
                lower_b = a;
            }
            upper_b = b.trim().parse().ok();
        }
        let space = tokens
            .iter()
            .find_map(|t| t.strip_prefix("space=").and_then(|v| v.parse().ok()))
            .unwrap_or(0);
        let kind = if first.contains("structured") {
            let stride = tokens
                .get(pos + 1)
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            DeclKind::Structured { stride }
        } else if first.contains("raw") {
            DeclKind::Raw
        } else {
            base_kind
        };
        out.push(Decl {
            class,
            id,
            lower: lower_b,
            upper: upper_b,
            space,
            kind,
        });
    }
    out
}

/// Reads a vkd3d descriptor variable name: `cb0_2` → (b, 0), `t3` → (t, 3).
pub fn parse_var_name(name: &str) -> Option<(RegisterClass, u32)> {
    let (class, rest) = if let Some(r) = name.strip_prefix("cb") {
        (RegisterClass::B, r.split('_').next()?)
    } else if let Some(r) = name.strip_prefix('t') {
        (RegisterClass::T, r)
    } else if let Some(r) = name.strip_prefix('s') {
        (RegisterClass::S, r)
    } else if let Some(r) = name.strip_prefix('u') {
        (RegisterClass::U, r)
    } else {
        return None;
    };
    Some((class, rest.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm50_and_sm51_declarations() {
        let asm = "cs_5_1\n\
            dcl_constantBuffer cb0[2:2][1], immediateIndexed, space=1\n\
            dcl_sampler s0[1:1], space=1\n\
            dcl_resource_buffer (float,float,float,float) t1[5:5], space=0\n\
            dcl_resource_texture2d (float,float,float,float) t0[3:*], space=2\n\
            dcl_uav_structured u0[2:2], 4, space=0\n\
            dcl_uav_raw u1[4:4], space=0\n\
            dcl_constantBuffer cb2[1], immediateIndexed\n\
            dcl_resource_structured t7, 16\n\
            dcl_resource_texture2dms(0) (float,float,float,float) t6\n\
            dcl_input vThreadID.xyz\n";
        let d = parse_decls(asm);
        assert_eq!(d.len(), 9);
        assert_eq!(
            d[0],
            Decl {
                class: RegisterClass::B,
                id: 0,
                lower: 2,
                upper: Some(2),
                space: 1,
                kind: DeclKind::ConstantBuffer
            }
        );
        assert_eq!(
            (d[1].class, d[1].lower, d[1].space),
            (RegisterClass::S, 1, 1)
        );
        assert_eq!(
            (d[3].id, d[3].lower, d[3].upper, d[3].space),
            (0, 3, None, 2)
        );
        assert_eq!(d[4].kind, DeclKind::Structured { stride: 4 });
        assert_eq!(d[5].kind, DeclKind::Raw);
        assert_eq!((d[6].id, d[6].lower, d[6].upper), (2, 2, Some(2)));
        assert_eq!(d[7].kind, DeclKind::Structured { stride: 16 });
        assert_eq!((d[8].class, d[8].id), (RegisterClass::T, 6));
    }

    #[test]
    fn var_names() {
        assert_eq!(parse_var_name("cb0_2"), Some((RegisterClass::B, 0)));
        assert_eq!(parse_var_name("t12"), Some((RegisterClass::T, 12)));
        assert_eq!(parse_var_name("u1"), Some((RegisterClass::U, 1)));
        assert_eq!(parse_var_name("v0"), None);
        assert_eq!(parse_var_name("tx"), None);
    }
}
