//! The ps_1_0–1_4 texture-addressing instructions: `tex` (ps_1_0–1_3), `texld` of ps_1_4,
//! `texcoord`/`texcrd`, `texbem`/`texbeml`/`bem`, `texreg2ar/gb/rgb`, `texm3x2pad/tex/depth`,
//! `texm3x3pad/tex/spec/vspec`, `texm3x3`, `texdp3`/`texdp3tex`, `texdepth`.
//!
//! They exist only before shader model 2.0 and name their texture stage by their destination
//! register; the samplers they use are found by the scan (`decls::ps1_samples`) and declared
//! like any `s#` (`texture`). Three things are theirs alone, all here: the `texm3x*pad` rows
//! a later `texm3x2*`/`texm3x3*` completes ([`Ps1State`]), the per-stage bump-environment
//! matrix and luminance scale/offset `texbem`/`texbeml`/`bem` read (one uniform buffer, `b3`
//! of space 0 for the binding policy, placed with the constant sets), and the depth
//! `texdepth`/`texm3x2depth` write (the `oDepth` output). Semantics and choices:
//! `docs/d3d9.md`, "ps_1_x texture addressing".

use crate::rules::d3d9::D3d9Rule;
use spirv::{GlslStd450Op as G, Op, StorageClass};

use super::{D9, R};
use crate::binding::{Placement, RangeRequest};
use crate::d3dbc::{Instruction, Opcode as O, RegisterType as RT, TextureType};
use crate::ir::{GlobalId, Operand, TypeId};
use crate::lower::LowerError;
use crate::reflect::{D3d9BumpEnv, DescriptorType, RegisterClass};

/// The `b#` register (space 0) of the bump-environment buffer for the binding policy.
pub(crate) const BUMP_ENV_REGISTER: u32 = 3;
/// Texture stages the bump-environment buffer holds (Direct3D 9 has eight).
pub(crate) const BUMP_ENV_STAGES: u32 = 8;

/// State carried between ps_1_x instructions.
#[derive(Debug, Default)]
pub(crate) struct Ps1State {
    /// The rows the `texm3x2pad`/`texm3x3pad` since the last completing instruction computed:
    /// (destination register number, row · source). Values of the one block-free program.
    pads: Vec<(u16, Operand)>,
    /// Which pad (`texm3x2pad`/`texm3x3pad`) the pads are, and the offset of the first.
    pad_kind: Option<(O, usize)>,
    /// The bump-environment buffer, once declared.
    bump_env: Option<GlobalId>,
}

/// The texture type a ps_1_0–1_3 instruction implies for the stage it samples (ps_1_x
/// declares none): a cube map for the `texm3x3` lookups (a normal or reflection vector), a
/// volume for `texreg2rgb` (a 3D lookup table); `None` (2D) for the rest.
pub(crate) fn implied_type(op: O) -> Option<TextureType> {
    match op {
        O::TexM3x3Tex | O::TexM3x3Spec | O::TexM3x3VSpec => Some(TextureType::Cube),
        O::TexReg2Rgb => Some(TextureType::Volume),
        _ => None,
    }
}

/// Opcodes that read the bump-environment state of their stage.
fn reads_bump_env(op: O) -> bool {
    matches!(op, O::TexBem | O::TexBemL | O::Bem)
}

impl<'p, 'm> D9<'p, 'm> {
    /// Lowers one ps_1_x texture-addressing instruction.
    pub(super) fn ps1_tex(&mut self, inst: &Instruction) -> R<()> {
        if !self.ps1() {
            return Err(self
                .invalid(format!("{} outside ps_1_x", inst.opcode.name(self.ver)))
                .with_rule(D3d9Rule::OpcodeInVersion.name()));
        }
        let dst = inst
            .dst
            .ok_or_else(|| self.invalid("texture instruction without a destination"))?;
        let m = dst.reg.num;
        let ps14 = self.ver.minor >= 4;
        // Every form but ps_1_4's names a t# destination; ps_1_4's name r#.
        let want = if ps14 { RT::Temp } else { RT::AddrOrTexture };
        if dst.reg.ty != want {
            return Err(self
                .invalid(format!(
                    "{} writes {}",
                    inst.opcode.name(self.ver),
                    self.reg_name(dst.reg)
                ))
                .with_rule(D3d9Rule::TextureDestination.name()));
        }
        match inst.opcode {
            O::Tex if ps14 => {
                // texld r(m), t#/r#: stage m at the source (its _dz/_dw divide first).
                let c = self.read_src(inst, 0)?;
                let v = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                self.write(inst, v)
            }
            O::Tex => {
                let c = self.texcoord_input(m);
                let c = self.project_by_state(m, c);
                let v = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                self.write(inst, v)
            }
            O::TexCoord if ps14 => {
                // texcrd: the coordinate as read (_dz/_dw, swizzle), unclamped.
                let v = self.read_src(inst, 0)?;
                self.write(inst, v)
            }
            O::TexCoord => {
                // texcoord: (u, v, w, 1) clamped to [0, 1].
                let c = self.texcoord_input(m);
                let c = self.saturate(c);
                let one = self.b.f32c(1.0);
                let parts = [0, 1, 2].map(|i| self.b.extract(c, i));
                let v = self.b.construct(&[parts[0], parts[1], parts[2], one]);
                self.write(inst, v)
            }
            O::TexBem | O::TexBemL => {
                let s = self.read_src(inst, 0)?;
                let c = self.texcoord_input(m);
                let (du, dv) = self.bump(m, s)?;
                let u = self.b.extract(c, 0);
                let u = self.b.op(Op::FAdd, TypeId::F32, &[u, du]);
                let v = self.b.extract(c, 1);
                let v = self.b.op(Op::FAdd, TypeId::F32, &[v, dv]);
                let z = self.b.extract(c, 2);
                let w = self.b.extract(c, 3);
                let c = self.b.construct(&[u, v, z, w]);
                let mut r = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                if inst.opcode == O::TexBemL {
                    // × (src.b · LSCALE + LOFFSET), all four components, unclamped.
                    let row = self.bump_row(m, 1)?;
                    let scale = self.b.extract(row, 0);
                    let offset = self.b.extract(row, 1);
                    let lum = self.b.extract(s, 2);
                    let l = self.b.op(Op::FMul, TypeId::F32, &[lum, scale]);
                    let l = self.b.op(Op::FAdd, TypeId::F32, &[l, offset]);
                    let l = self.splat4(l);
                    r = self.b.op(Op::FMul, TypeId::VEC4, &[r, l]);
                }
                self.write(inst, r)
            }
            O::Bem => {
                // bem r(m).xy, s0, s1: s0.xy + BUMPENVMAT(m) · s1.xy.
                if dst.mask != 0x3 {
                    return Err(self
                        .invalid("bem writes other than .xy")
                        .with_rule(D3d9Rule::BemMask.name()));
                }
                let a = self.read_src(inst, 0)?;
                let s = self.read_src(inst, 1)?;
                let (du, dv) = self.bump(m, s)?;
                let x = self.b.extract(a, 0);
                let x = self.b.op(Op::FAdd, TypeId::F32, &[x, du]);
                let y = self.b.extract(a, 1);
                let y = self.b.op(Op::FAdd, TypeId::F32, &[y, dv]);
                let zero = self.b.f32c(0.0);
                let v = self.b.construct(&[x, y, zero, zero]);
                self.write(inst, v)
            }
            O::TexReg2Ar | O::TexReg2Gb | O::TexReg2Rgb => {
                let s = self.read_src(inst, 0)?;
                let sel: [u8; 4] = match inst.opcode {
                    O::TexReg2Ar => [3, 0, 0, 0],
                    O::TexReg2Gb => [1, 2, 2, 2],
                    _ => [0, 1, 2, 2],
                };
                let c = self.b.swizzle(s, &sel);
                let v = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                self.write(inst, v)
            }
            O::TexM3x2Pad | O::TexM3x3Pad => {
                let full = if inst.opcode == O::TexM3x2Pad { 1 } else { 2 };
                if self.ps1_state.pads.len() >= full {
                    return Err(self
                        .invalid(format!(
                            "{} after the rows its matrix has",
                            inst.opcode.name(self.ver)
                        ))
                        .with_rule(D3d9Rule::TexmSequence.name()));
                }
                if let Some((kind, _)) = self.ps1_state.pad_kind.filter(|&(k, _)| k != inst.opcode)
                {
                    return Err(self
                        .invalid(format!(
                            "{} after {}",
                            inst.opcode.name(self.ver),
                            kind.name(self.ver)
                        ))
                        .with_rule(D3d9Rule::TexmSequence.name()));
                }
                let d = self.texm_row(inst, m)?;
                self.ps1_state.pads.push((m, d));
                self.ps1_state
                    .pad_kind
                    .get_or_insert((inst.opcode, self.offset));
                Ok(())
            }
            O::TexM3x2Tex | O::TexM3x2Depth => {
                let rows = self.texm_rows(inst, m, 2)?;
                if inst.opcode == O::TexM3x2Depth {
                    // depth = z / w (1 where w is 0), clamped to [0, 1] by the oDepth store.
                    let one = self.b.f32c(1.0);
                    let q = self.b.op(Op::FDiv, TypeId::F32, &[rows[0].1, rows[1].1]);
                    let zero = self.b.f32c(0.0);
                    let w0 = self.b.op(Op::FOrdEqual, TypeId::BOOL, &[rows[1].1, zero]);
                    let d = self.b.op(Op::Select, TypeId::F32, &[w0, one, q]);
                    return self.write_depth(d);
                }
                let zero = self.b.f32c(0.0);
                let c = self.b.construct(&[rows[0].1, rows[1].1, zero, zero]);
                let v = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                self.write(inst, v)
            }
            O::TexM3x3Tex | O::TexM3x3 | O::TexM3x3Spec | O::TexM3x3VSpec => {
                let rows = self.texm_rows(inst, m, 3)?;
                let n = [rows[0].1, rows[1].1, rows[2].1];
                let one = self.b.f32c(1.0);
                let nv = self.b.construct(&[n[0], n[1], n[2], one]);
                let c = match inst.opcode {
                    O::TexM3x3 => return self.write(inst, nv),
                    O::TexM3x3Tex => nv,
                    O::TexM3x3Spec => {
                        let e = self.read_src(inst, 1)?;
                        self.reflect(nv, e)
                    }
                    _ => {
                        // The eye ray is the w of the three rows' texture coordinates.
                        let mut e = Vec::new();
                        for &(r, _) in &rows {
                            let tc = self.texcoord_input(r);
                            e.push(self.b.extract(tc, 3));
                        }
                        e.push(one);
                        let e = self.b.construct(&e);
                        self.reflect(nv, e)
                    }
                };
                let v = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                self.write(inst, v)
            }
            O::TexDp3 | O::TexDp3Tex => {
                let d = self.texm_row(inst, m)?;
                if inst.opcode == O::TexDp3 {
                    let v = self.splat4(d);
                    return self.write(inst, v);
                }
                let zero = self.b.f32c(0.0);
                let c = self.b.construct(&[d, zero, zero, zero]);
                let v = self.sample(m, c, super::texture::Lod::Implicit, false)?;
                self.write(inst, v)
            }
            O::TexDepth => {
                // texdepth r5: r5.r / min(r5.g, 1) (1 where that is 0), clamped to [0, 1].
                let v = self.fetch(dst.reg, None)?;
                let x = self.b.extract(v, 0);
                let y = self.b.extract(v, 1);
                let one = self.b.f32c(1.0);
                let y = self.b.glsl(G::NMin, TypeId::F32, &[y, one]);
                let q = self.b.op(Op::FDiv, TypeId::F32, &[x, y]);
                let zero = self.b.f32c(0.0);
                let y0 = self.b.op(Op::FOrdEqual, TypeId::BOOL, &[y, zero]);
                let d = self.b.op(Op::Select, TypeId::F32, &[y0, one, q]);
                self.write_depth(d)
            }
            _ => Err(self.unsupported(format!(
                "instruction {} of {}",
                inst.opcode.name(self.ver),
                self.ver
            ))),
        }
    }

    /// One row of a `texm*`/`texdp3*`: texture coordinate `m`.xyz · source 0.xyz.
    fn texm_row(&mut self, inst: &Instruction, m: u16) -> R<Operand> {
        let s = self.read_src(inst, 0)?;
        let tc = self.texcoord_input(m);
        Ok(self.dot(tc, s, 3))
    }

    /// The rows of a completed `texm3x2*`/`texm3x3*` (`n` of them): the pads before it and
    /// its own; the pad state is cleared.
    fn texm_rows(&mut self, inst: &Instruction, m: u16, n: usize) -> R<Vec<(u16, Operand)>> {
        let pad = if n == 2 { O::TexM3x2Pad } else { O::TexM3x3Pad };
        if self.ps1_state.pads.len() != n - 1
            || self.ps1_state.pad_kind.is_some_and(|(k, _)| k != pad)
        {
            return Err(self
                .invalid(format!(
                    "{} after {} texm{}pad (it needs {})",
                    inst.opcode.name(self.ver),
                    self.ps1_state.pads.len(),
                    if n == 2 { "3x2" } else { "3x3" },
                    n - 1
                ))
                .with_rule(D3d9Rule::TexmSequence.name()));
        }
        let d = self.texm_row(inst, m)?;
        let mut rows = std::mem::take(&mut self.ps1_state.pads);
        self.ps1_state.pad_kind = None;
        rows.push((m, d));
        Ok(rows)
    }

    /// At the end of the program: a `texm3x2pad`/`texm3x3pad` sequence no `texm3x2*` /
    /// `texm3x3*` completed is an invalid program (rule texm-sequence).
    pub(super) fn texm_complete(&self) -> R<()> {
        match self.ps1_state.pad_kind {
            None => Ok(()),
            Some((kind, offset)) => Err(LowerError::invalid(
                offset,
                format!(
                    "{} without the instruction completing its matrix before the program ends",
                    kind.name(self.ver)
                ),
            )
            .with_rule(D3d9Rule::TexmSequence.name())),
        }
    }

    /// `2·N·(N·E)/(N·N) − E` (vec4s; xyz used, w of the result 1).
    fn reflect(&mut self, n: Operand, e: Operand) -> Operand {
        let ne = self.dot(n, e, 3);
        let nn = self.dot(n, n, 3);
        let two = self.b.f32c(2.0);
        let k = self.b.op(Op::FMul, TypeId::F32, &[two, ne]);
        let k = self.b.op(Op::FDiv, TypeId::F32, &[k, nn]);
        let k = self.splat4(k);
        let r = self.b.op(Op::FMul, TypeId::VEC4, &[n, k]);
        let r = self.b.op(Op::FSub, TypeId::VEC4, &[r, e]);
        let parts = [0, 1, 2].map(|i| self.b.extract(r, i));
        let one = self.b.f32c(1.0);
        self.b.construct(&[parts[0], parts[1], parts[2], one])
    }

    /// `BUMPENVMAT(stage) · s.xy`: (M00·s.r + M10·s.g, M01·s.r + M11·s.g).
    fn bump(&mut self, stage: u16, s: Operand) -> R<(Operand, Operand)> {
        let mat = self.bump_row(stage, 0)?;
        let r = self.b.extract(s, 0);
        let g = self.b.extract(s, 1);
        let m = [0, 1, 2, 3].map(|i| self.b.extract(mat, i));
        let f = |l: &mut Self, a: Operand, b: Operand| l.b.op(Op::FMul, TypeId::F32, &[a, b]);
        let u0 = f(self, m[0], r);
        let u1 = f(self, m[2], g);
        let du = self.b.op(Op::FAdd, TypeId::F32, &[u0, u1]);
        let v0 = f(self, m[1], r);
        let v1 = f(self, m[3], g);
        let dv = self.b.op(Op::FAdd, TypeId::F32, &[v0, v1]);
        Ok((du, dv))
    }

    /// Row `which` (0: matrix M00, M01, M10, M11; 1: luminance scale, offset) of a stage's
    /// bump-environment state.
    fn bump_row(&mut self, stage: u16, which: u32) -> R<Operand> {
        use crate::d3d9_state::StateItem;
        let item = u8::try_from(stage)
            .ok()
            .filter(|&s| u32::from(s) < BUMP_ENV_STAGES)
            .map(StateItem::BumpEnv)
            .ok_or_else(|| self.invalid(format!("texture stage {stage} (there are 8)")))?;
        if !self.state_in_buffer(item) {
            // The caller's specialization constants, push constants or baked values.
            let w = self.state_words(item);
            let zero = self.b.f32c(0.0);
            return Ok(if which == 0 {
                self.b.construct(&w[0..4])
            } else {
                self.b.construct(&[w[4], w[5], zero, zero])
            });
        }
        self.state_read(item);
        let g = self
            .ps1_state
            .bump_env
            .ok_or_else(|| self.invalid("bump-environment state read without its buffer"))?;
        if u32::from(stage) >= BUMP_ENV_STAGES {
            return Err(self.invalid(format!("texture stage {stage} (there are 8)")));
        }
        let row = self.b.u32c(2 * u32::from(stage) + which);
        let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::VEC4);
        let zero = self.b.u32c(0);
        Ok(self.b.read_only_row(g, row, |b| {
            let p = b.op(Op::AccessChain, ptr, &[Operand::Global(g), zero, row]);
            b.op(Op::Load, TypeId::VEC4, &[p])
        }))
    }

    /// Writes the fragment depth (`texdepth`, `texm3x2depth`).
    fn write_depth(&mut self, d: Operand) -> R<()> {
        let vars = *self
            .regs
            .get(&(RT::DepthOut, 0))
            .ok_or_else(|| self.invalid("depth written without the depth output"))?;
        self.set_var(vars[0], d);
        Ok(())
    }

    /// The stages whose bump-environment state the program reads from the buffer (the
    /// default delivery of the state items `bump-env-N`).
    fn bump_env_stages(&self) -> Vec<u32> {
        use crate::d3d9_state::StateItem;
        let mut s: Vec<u32> = self
            .insts
            .iter()
            .filter(|i| reads_bump_env(i.opcode))
            .filter_map(|i| i.dst.map(|d| u32::from(d.reg.num)))
            .filter(|&n| {
                u8::try_from(n).map_or(true, |n| self.state_in_buffer(StateItem::BumpEnv(n)))
            })
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    /// The binding request of the bump-environment buffer, when the program reads it.
    pub(super) fn bump_env_request(&self) -> Option<RangeRequest> {
        (self.ps1() && !self.bump_env_stages().is_empty()).then_some(RangeRequest {
            class: RegisterClass::B,
            space: 0,
            lower: BUMP_ENV_REGISTER,
            upper: Some(BUMP_ENV_REGISTER),
            counter: false,
            descriptor_type: DescriptorType::UniformBuffer,
        })
    }

    /// Declares the bump-environment buffer where it was placed: per stage s (0–7), row 2s
    /// = (BUMPENVMAT00, 01, 10, 11) and row 2s + 1 = (BUMPENVLSCALE, BUMPENVLOFFSET, 0, 0).
    pub(super) fn declare_bump_env(&mut self, place: Placement) -> R<()> {
        let g = self.declare_row_buffer(
            BUMP_ENV_REGISTER,
            TypeId::VEC4,
            2 * BUMP_ENV_STAGES,
            "bump_env",
            place,
            "the ps_1_x bump-environment buffer in push constants (place b3 in a descriptor)",
        )?;
        self.ps1_state.bump_env = Some(g);
        Ok(())
    }

    /// The reflection of the bump-environment state, when the program reads it.
    pub(super) fn bump_env_info(&self) -> Option<D3d9BumpEnv> {
        self.ps1_state.bump_env.map(|_| D3d9BumpEnv {
            buffer_register: BUMP_ENV_REGISTER,
            stages: self.bump_env_stages(),
        })
    }
}

#[cfg(test)]
#[path = "ps1_tex_tests.rs"]
mod tests;
