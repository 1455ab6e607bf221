//! What a DXBC shader declares that a root signature must cover: constant buffers, shader
//! resource views, unordered access views and samplers, with register spaces and ranges, read
//! from the shader's declarations with the translator crate's DXBC decoder (what a D3D12
//! application learns from D3DReflect). The D3D12 executor builds its root signature and
//! descriptor tables from this, never from a translation.

use translator::container::Container;
use translator::sm4::{self, Declaration, ResourceDimension};

/// The register classes of D3D12 descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    Cbv,
    Srv,
    Uav,
    Sampler,
}

impl Class {
    pub fn letter(self) -> char {
        match self {
            Class::Cbv => 'b',
            Class::Srv => 't',
            Class::Uav => 'u',
            Class::Sampler => 's',
        }
    }
}

/// What kind of descriptor a declaration asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A constant buffer of this many 16-byte vectors; `dynamic`: declared dynamically
    /// indexed.
    Cbv { vectors: u32, dynamic: bool },
    /// A typed view of this dimension (buffers and textures).
    Typed(ResourceDimension),
    /// A raw (byte address) buffer.
    Raw,
    /// A structured buffer of this stride.
    Structured(u32),
    /// A sampler (`comparison`: declared `mode_comparison`).
    Sampler { comparison: bool },
}

/// One descriptor declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decl {
    pub class: Class,
    pub space: u32,
    pub lower: u32,
    /// Last register; `None`: unbounded (SM5.1 `t0[]`).
    pub upper: Option<u32>,
    pub kind: Kind,
    /// A structured UAV whose hidden counter the shader uses (`imm_atomic_alloc`,
    /// `imm_atomic_consume`).
    pub counter: bool,
}

impl Decl {
    /// `t3`, `u0..u3 space 1`, `s2..`.
    pub fn describe(&self) -> String {
        let c = self.class.letter();
        let range = match self.upper {
            Some(u) if u == self.lower => format!("{c}{}", self.lower),
            Some(u) => format!("{c}{}..{c}{u}", self.lower),
            None => format!("{c}{}.. (unbounded)", self.lower),
        };
        if self.space == 0 {
            range
        } else {
            format!("{range} space {}", self.space)
        }
    }
}

/// The descriptor declarations of a DXBC shader.
pub fn scan(dxbc: &[u8]) -> Result<Vec<Decl>, String> {
    let container = Container::parse(dxbc).map_err(|e| e.to_string())?;
    let chunk = container
        .shader_chunk()
        .ok_or("the DXBC container has no SHDR/SHEX chunk")?;
    let program = sm4::decode(chunk.data, chunk.offset).map_err(|e| e.to_string())?;
    let sm51 = program.version.is_sm51();
    let mut out = Vec::new();
    // The range ID (SM5.1) or register (SM4-5) of each UAV declaration in `out`.
    let mut uav_ids = Vec::new();
    for inst in program.declarations() {
        let Some(decl) = inst.decl() else { continue };
        let Some(op) = inst.operands.first() else {
            continue;
        };
        let (class, kind, counter) = match decl {
            Declaration::ConstantBuffer {
                size,
                dynamic_indexed,
                ..
            } => {
                let vectors = match size {
                    Some(s) => *s,
                    None => op.index(1).map_or(0, |i| i.imm32()),
                };
                let dynamic = *dynamic_indexed;
                (Class::Cbv, Kind::Cbv { vectors, dynamic }, false)
            }
            Declaration::Sampler { mode, .. } => (
                Class::Sampler,
                Kind::Sampler {
                    comparison: *mode == sm4::SamplerMode::Comparison,
                },
                false,
            ),
            Declaration::Resource { dim, .. } => (Class::Srv, Kind::Typed(*dim), false),
            Declaration::ResourceRaw { .. } => (Class::Srv, Kind::Raw, false),
            Declaration::ResourceStructured { stride, .. } => {
                (Class::Srv, Kind::Structured(*stride), false)
            }
            Declaration::UavTyped { dim, .. } => (Class::Uav, Kind::Typed(*dim), false),
            Declaration::UavRaw { .. } => (Class::Uav, Kind::Raw, false),
            Declaration::UavStructured { stride, .. } => {
                (Class::Uav, Kind::Structured(*stride), false)
            }
            _ => continue,
        };
        let space = decl.space().unwrap_or(0);
        let (lower, upper) = if sm51 {
            let idx: Vec<sm4::Index> = op.indices().collect();
            if idx.len() < 3 {
                return Err(format!(
                    "offset {}: an SM5.1 declaration without a register range",
                    inst.offset
                ));
            }
            let (lo, hi) = (idx[1].imm32(), idx[2].imm32());
            if hi != u32::MAX && hi < lo {
                return Err(format!(
                    "offset {}: register range {lo}..{hi} is empty",
                    inst.offset
                ));
            }
            (lo, (hi != u32::MAX).then_some(hi))
        } else {
            let r = op.register().ok_or_else(|| {
                format!("offset {}: a declaration without a register", inst.offset)
            })?;
            (r, Some(r))
        };
        if class == Class::Uav {
            uav_ids.push((op.register(), out.len()));
        }
        out.push(Decl {
            class,
            space,
            lower,
            upper,
            kind,
            counter,
        });
    }
    // Counters are used, not declared: mark the UAVs that counter instructions name.
    for inst in program.iter() {
        if !matches!(
            inst.opcode,
            sm4::Opcode::ImmAtomicAlloc | sm4::Opcode::ImmAtomicConsume
        ) {
            continue;
        }
        let id = inst.srcs().first().and_then(|o| o.register());
        if let Some(&(_, at)) = uav_ids.iter().find(|(i, _)| id.is_some() && *i == id) {
            out[at].counter = true;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_of_assembled_shaders() {
        let text = "ps_5_0\n\
            dcl_globalFlags refactoringAllowed\n\
            dcl_constantbuffer cb1[3], immediateIndexed\n\
            dcl_sampler s2, mode_comparison\n\
            dcl_resource_texture2d (float,float,float,float) t4\n\
            dcl_resource_structured t5, 12\n\
            dcl_uav_raw u1\n\
            dcl_uav_structured u2, 8\n\
            dcl_output o0.xyzw\n\
            dcl_temps 1\n\
            imm_atomic_alloc r0.x, u2\n\
            mov o0.xyzw, l(0, 0, 0, 0)\n\
            ret\n";
        let dxbc = translator::asm::assemble(text).expect("assembles");
        let d = scan(&dxbc).expect("scans");
        let got: Vec<(Class, u32, Kind, bool)> = d
            .iter()
            .map(|d| (d.class, d.lower, d.kind, d.counter))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    Class::Cbv,
                    1,
                    Kind::Cbv {
                        vectors: 3,
                        dynamic: false
                    },
                    false
                ),
                (Class::Sampler, 2, Kind::Sampler { comparison: true }, false),
                (
                    Class::Srv,
                    4,
                    Kind::Typed(ResourceDimension::Texture2D),
                    false
                ),
                (Class::Srv, 5, Kind::Structured(12), false),
                (Class::Uav, 1, Kind::Raw, false),
                (Class::Uav, 2, Kind::Structured(8), true),
            ]
        );
        assert!(d.iter().all(|d| d.space == 0 && d.upper == Some(d.lower)));
        assert_eq!(d[0].describe(), "b1");
        assert!(scan(b"DXBC").is_err());
        assert!(scan(&dxbc[..dxbc.len() / 2]).is_err());
    }
}
