//! The three D3D9 constant sets — float `c#`, integer `i#`, boolean `b#` — as uniform
//! buffers placed by the binding policy or layout, their reads, and the placement of every
//! descriptor of the program (constant buffers and samplers together, as the policies need).
//!
//! Each set the program reads from the API is one buffer laid out as the D3D9 runtime's
//! `Set*ShaderConstant{F,I,B}` upload it: `vec4 c[N]` (N = the version's register count),
//! `ivec4 i[16]`, and sixteen `u32` bools packed four to a 16-byte row (one to a row with
//! `D3d9Options::bool_constant_rows`, vkd3d-shader's layout) (software vertex
//! processing: 8192, 2048 and 2048 registers; relaxed limits: as many as the program names). The buffers are the
//! constant-buffer registers `b0`, `b1` and `b2` of space 0 for the binding policy. Direct
//! reads of `def`'d registers are the immediates; relative reads of the float set see the
//! `def`'d values too and read 0 outside the set (D3D9 hardware; the index is clamped before
//! the load so no read goes past the buffer). ps_1_x clamps every float constant to [−1, 1].

use smallvec::SmallVec;
use spirv::{Decoration, Op, StorageClass};

use super::decls::SetUse;
use super::{D9, R};
use crate::binding::{Placement, RangeRequest};
use crate::ir::{DecorationTarget, GlobalId, Operand, Scalar, TypeId, TypeTable};
use crate::lower::LowerError;
use crate::reflect::{
    D3d9ConstantKind, D3d9ConstantSet, D3d9Def, D3d9Info, D3dOrigin, Descriptor, DescriptorType,
    RegisterClass, ResourceShape,
};

#[derive(Debug, Default)]
pub(crate) struct ConstState {
    /// The buffer (global) and register count of each set, once placed.
    pub float: Option<(GlobalId, u32)>,
    pub int: Option<GlobalId>,
    pub bool: Option<GlobalId>,
}

/// A set's `b#` register for the binding policy.
fn set_register(kind: D3d9ConstantKind) -> u32 {
    match kind {
        D3d9ConstantKind::Float => 0,
        D3d9ConstantKind::Int => 1,
        D3d9ConstantKind::Bool => 2,
    }
}

impl<'p, 'm> D9<'p, 'm> {
    /// Whether a set needs its buffer: a relative read, or a direct read of a register the
    /// program does not define.
    fn needs_buffer(&self, kind: D3d9ConstantKind) -> bool {
        use crate::d3dbc::RegisterType as RT;
        let (used, tys): (&SetUse, &[RT]) = match kind {
            D3d9ConstantKind::Float => (
                &self.decl.floats,
                &[RT::Const, RT::Const2, RT::Const3, RT::Const4],
            ),
            D3d9ConstantKind::Int => (&self.decl.ints, &[RT::ConstInt]),
            D3d9ConstantKind::Bool => (&self.decl.bools, &[RT::ConstBool]),
        };
        if used.relative {
            return true;
        }
        if used.range.is_none() {
            // The scan saw no source of the set (every source goes through it): no buffer,
            // without walking the program again.
            return false;
        }
        self.insts.iter().any(|i| {
            i.src.iter().any(|s| {
                tys.contains(&s.reg.ty) && {
                    let n = crate::d3dbc::register_number(s.reg);
                    match kind {
                        D3d9ConstantKind::Float => !self.decl.defs.contains_key(&(n as u16)),
                        D3d9ConstantKind::Int => !self.decl.defis.contains_key(&s.reg.num),
                        D3d9ConstantKind::Bool => !self.decl.defbs.contains_key(&s.reg.num),
                    }
                }
            })
        })
    }

    /// Places and declares the constant buffers and samplers; fills the D3D9 reflection.
    pub(super) fn declare_resources(&mut self) -> R<()> {
        let kinds = [
            D3d9ConstantKind::Float,
            D3d9ConstantKind::Int,
            D3d9ConstantKind::Bool,
        ];
        // Inline lists (three sets at most, samplers rarely past 16): no allocation per program.
        let buffers: SmallVec<[D3d9ConstantKind; 3]> = kinds
            .into_iter()
            .filter(|&k| self.needs_buffer(k))
            .collect();
        let mut ranges: SmallVec<[RangeRequest; 8]> = buffers
            .iter()
            .map(|&k| RangeRequest {
                class: RegisterClass::B,
                space: 0,
                lower: set_register(k),
                upper: Some(set_register(k)),
                counter: false,
                descriptor_type: DescriptorType::UniformBuffer,
            })
            .collect();
        let samplers: SmallVec<[u16; 16]> = self.decl.samplers.iter().copied().collect();
        self.sampler_requests(&samplers, &mut ranges);
        // ps_1_x bump-environment state (`ps1_tex`), last.
        let bump_env = self.bump_env_request();
        ranges.extend(bump_env);
        let places = self
            .opts
            .binding
            .place_all(&ranges)
            .map_err(|error| LowerError::Binding {
                error,
                offset: self.insts.first().map_or(0, |i| i.offset),
            })?;
        for (i, &kind) in buffers.iter().enumerate() {
            self.declare_set(kind, places[i])?;
        }
        self.declare_samplers(
            &samplers,
            &ranges[buffers.len()..],
            &places[buffers.len()..],
        )?;
        if bump_env.is_some() {
            self.declare_bump_env(places[ranges.len() - 1])?;
        }
        // Reflection of the sets.
        let mut info = D3d9Info {
            version: match self.ver.static_name() {
                Some(s) => s.into(),
                None => self.ver.name().into(),
            },
            ..Default::default()
        };
        for kind in kinds {
            let (used, defs, count) = match kind {
                D3d9ConstantKind::Float => (
                    self.decl.floats,
                    self.decl
                        .defs
                        .iter()
                        .map(|(&r, &v)| D3d9Def {
                            register: r.into(),
                            value: v,
                        })
                        .collect::<Vec<_>>(),
                    self.limits.floats,
                ),
                D3d9ConstantKind::Int => (
                    self.decl.ints,
                    self.decl
                        .defis
                        .iter()
                        .map(|(&r, &v)| D3d9Def {
                            register: r.into(),
                            value: v.map(|x| x as u32),
                        })
                        .collect(),
                    self.limits.ints,
                ),
                D3d9ConstantKind::Bool => (
                    self.decl.bools,
                    self.decl
                        .defbs
                        .iter()
                        .map(|(&r, &v)| D3d9Def {
                            register: r.into(),
                            value: [v.into(), 0, 0, 0],
                        })
                        .collect(),
                    self.limits.bools,
                ),
            };
            if used.range.is_none() && defs.is_empty() {
                continue;
            }
            info.constants.push(D3d9ConstantSet {
                kind,
                buffer_register: buffers.contains(&kind).then(|| set_register(kind)),
                count,
                used: used.range.map(|(a, b)| [a, b]),
                relative: used.relative,
                defs,
            });
        }
        info.samplers = self.sampler_reflection();
        info.bump_env = self.bump_env_info();
        self.refl.d3d9 = Some(info);
        Ok(())
    }

    /// Declares one set's uniform buffer where it was placed.
    fn declare_set(&mut self, kind: D3d9ConstantKind, place: Placement) -> R<()> {
        let (elem, count) = match kind {
            D3d9ConstantKind::Float => (TypeId::VEC4, self.limits.floats),
            D3d9ConstantKind::Int => (TypeTable::vec(Scalar::I32, 4), self.limits.ints),
            D3d9ConstantKind::Bool if self.opts.d3d9.bool_constant_rows => {
                (TypeId::UVEC4, self.limits.bools)
            }
            D3d9ConstantKind::Bool => (TypeId::UVEC4, self.limits.bools.div_ceil(4)),
        };
        let name = match kind {
            D3d9ConstantKind::Float => "c",
            D3d9ConstantKind::Int => "i",
            D3d9ConstantKind::Bool => "b",
        };
        let g = self.declare_row_buffer(
            set_register(kind),
            elem,
            count,
            name,
            place,
            "Direct3D 9 constants in push constants (place the b0–b2 buffers in descriptors)",
        )?;
        match kind {
            D3d9ConstantKind::Float => self.consts.float = Some((g, count)),
            D3d9ConstantKind::Int => self.consts.int = Some(g),
            D3d9ConstantKind::Bool => self.consts.bool = Some(g),
        }
        Ok(())
    }

    /// Declares the uniform buffer `b{reg}` (space 0) of `rows` 16-byte `elem` rows where it
    /// was placed, named `name`, and lists it in the reflection; a buffer placed in push
    /// constants is refused as `push_refusal`.
    pub(super) fn declare_row_buffer(
        &mut self,
        reg: u32,
        elem: TypeId,
        rows: u32,
        name: &str,
        place: Placement,
        push_refusal: &str,
    ) -> R<GlobalId> {
        let Placement::Descriptor {
            set,
            binding,
            array_offset,
            dynamic_offset,
            mutable,
        } = place
        else {
            return Err(self.unsupported(push_refusal));
        };
        if dynamic_offset.is_some() {
            return Err(self.unsupported(format!(
                "a dynamic descriptor offset for {name} (Direct3D 9 programs take static placements only)"
            )));
        }
        let st = self.b.m.row_block(elem, rows);
        let m = &mut self.b.m;
        let g = m.add_global(st, StorageClass::Uniform, None);
        let t = DecorationTarget::Global(g);
        m.decorate(t, Decoration::DescriptorSet, &[set]);
        m.decorate(t, Decoration::Binding, &[binding]);
        m.name(t, format_args!("{name}"));
        self.refl.descriptors.push(Descriptor {
            set,
            binding,
            descriptor_type: DescriptorType::UniformBuffer,
            count: Some(1),
            array_offset,
            origin: D3dOrigin {
                class: RegisterClass::B,
                space: 0,
                lower: reg,
                upper: Some(reg),
                range_id: reg,
                uav_counter: false,
            },
            shape: ResourceShape::ConstantBuffer {
                size_bytes: 16 * rows,
            },
            writable: false,
            dynamic_offset: None,
            mutable,
        });
        self.refl_globals.descriptors.push(g);
        Ok(g)
    }

    /// Row `row` (a u32 or i32 operand) of buffer `g` of `elem` rows.
    fn buffer_row(&mut self, g: GlobalId, elem: TypeId, row: Operand) -> Operand {
        let ptr = self.b.m.types.pointer(StorageClass::Uniform, elem);
        let zero = self.b.u32c(0);
        self.b.read_only_row(g, row, |b| {
            let p = b.op(Op::AccessChain, ptr, &[Operand::Global(g), zero, row]);
            b.op(Op::Load, elem, &[p])
        })
    }

    /// Float constant `n` (plus `rel`, an i32, when relative) as a vec4.
    pub fn float_const(&mut self, n: u32, rel: Option<Operand>) -> R<Operand> {
        let v = match rel {
            None => match self.decl.defs.get(&(n as u16)).filter(|_| n < 0x10000) {
                Some(bits) => {
                    let bits = bits.map(u64::from);
                    crate::ir::Operand::Const(self.b.m.consts.vector(Scalar::F32, &bits))
                }
                None => {
                    let (g, _) = self
                        .consts
                        .float
                        .ok_or_else(|| self.invalid("float constants read without a buffer"))?;
                    let row = self.b.u32c(n);
                    self.buffer_row(g, TypeId::VEC4, row)
                }
            },
            Some(rel) => self.relative_float(n, rel)?,
        };
        Ok(if self.ps1() {
            // ps_1_x constants (API or def) read clamped to [−1, 1].
            let lo = self.b.splat(Scalar::F32, 4, (-1f32).to_bits() as u64);
            let hi = self.b.splat(Scalar::F32, 4, 1f32.to_bits() as u64);
            self.b
                .glsl(spirv::GlslStd450Op::NClamp, TypeId::VEC4, &[v, lo, hi])
        } else {
            v
        })
    }

    /// `c[rel + n]`: the buffer row, or a `def`'d value, or 0 outside the set.
    fn relative_float(&mut self, n: u32, rel: Operand) -> R<Operand> {
        let (g, count) = self
            .consts
            .float
            .ok_or_else(|| self.invalid("float constants read without a buffer"))?;
        let base = self.b.i32c(n as i32);
        let idx = self.b.op(Op::IAdd, TypeId::I32, &[rel, base]);
        let uidx = self.b.bitcast(TypeId::U32, idx);
        let cnt = self.b.u32c(count);
        let inside = self.b.op(Op::ULessThan, TypeId::BOOL, &[uidx, cnt]);
        let zero_u = self.b.u32c(0);
        let safe = self.b.op(Op::Select, TypeId::U32, &[inside, uidx, zero_u]);
        let mut v = self.buffer_row(g, TypeId::VEC4, safe);
        let defs: Vec<(u16, [u32; 4])> = self.decl.defs.iter().map(|(&k, &v)| (k, v)).collect();
        for (r, bits) in defs {
            let k = self.b.u32c(r.into());
            let eq = self.b.op(Op::IEqual, TypeId::BOOL, &[uidx, k]);
            let eq = self.bsplat4(eq);
            let d = Operand::Const(self.b.m.consts.vector(Scalar::F32, &bits.map(u64::from)));
            v = self.b.op(Op::Select, TypeId::VEC4, &[eq, d, v]);
        }
        let inside = self.bsplat4(inside);
        let zero = self.b.splat(Scalar::F32, 4, 0);
        Ok(self.b.op(Op::Select, TypeId::VEC4, &[inside, v, zero]))
    }

    /// Integer constant `i#` as an ivec4.
    pub fn int_const(&mut self, n: u16) -> Operand {
        if let Some(v) = self.decl.defis.get(&n) {
            let bits = v.map(|x| u64::from(x as u32));
            return Operand::Const(self.b.m.consts.vector(Scalar::I32, &bits));
        }
        match self.consts.int {
            Some(g) => {
                let row = self.b.u32c(n.into());
                self.buffer_row(g, TypeTable::vec(Scalar::I32, 4), row)
            }
            None => self.b.splat(Scalar::I32, 4, 0),
        }
    }

    /// Boolean constant `b#` as a bool.
    pub fn bool_const(&mut self, n: u16) -> Operand {
        if let Some(&v) = self.decl.defbs.get(&n) {
            return self.b.boolc(v);
        }
        match self.consts.bool {
            Some(g) => {
                let (row, comp) = if self.opts.d3d9.bool_constant_rows {
                    (u32::from(n), 0)
                } else {
                    (u32::from(n) / 4, (n % 4) as u8)
                };
                let row = self.b.u32c(row);
                let r = self.buffer_row(g, TypeId::UVEC4, row);
                let x = self.b.extract(r, comp);
                let zero = self.b.u32c(0);
                self.b.op(Op::INotEqual, TypeId::BOOL, &[x, zero])
            }
            None => self.b.boolc(false),
        }
    }
}
