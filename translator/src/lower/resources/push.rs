//! The push-constant block: constant buffers held in push constants (D3D12 root constants)
//! and the `u32` words that offset descriptor indices (placements' dynamic offsets, a D3D12
//! descriptor table's heap offset). SPIR-V allows one push-constant block per entry point, so
//! every such buffer is one member of a single block, `u32[size / 4]` at the layout's byte
//! offset, and every offset word one `u32` member of its own (or a dword of a buffer's member
//! when the bytes overlap). Rows are read dword by dword, so a range whose size is not a
//! multiple of 16 bytes is never read past its end; components past the end read 0, like a
//! constant buffer read out of bounds with robustness.

use spirv::{Decoration, GlslStd450Op, Op, StorageClass};

use super::super::regs::Idx;
use super::super::{Lowerer, R};
use super::{CbInfo, Range};
use crate::binding::Placement;
use crate::ir::{DecorationTarget, GlobalId, Operand, Type, TypeId};
use crate::reflect::{PushConstantRange, RegisterClass};

/// Where a push-constant constant buffer lives.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PushMember {
    /// Member of the push-constant block.
    pub member: u32,
    /// Dwords of the range.
    pub dwords: u32,
}

/// The push-constant block, once declared.
#[derive(Debug, Clone)]
pub(crate) struct PushBlock {
    pub global: GlobalId,
    /// The member of each constant buffer (by cb ID).
    pub cbs: Vec<(u32, PushMember)>,
    /// Each dynamic-offset word: (byte offset, member, dword in the member or `None` for a
    /// `u32` member of its own).
    pub words: Vec<(u32, u32, Option<u32>)>,
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Declares the push-constant block (on the first push-constant constant buffer), with
    /// one member per push-constant range of the program in byte-offset order, and records
    /// `cb{id}`'s member.
    pub(super) fn declare_push_cb(&mut self, id: u32, range: Range) -> R<()> {
        self.ensure_push_block()?;
        let block = self
            .res
            .push_block
            .as_ref()
            .ok_or_else(|| self.internal("push-constant block missing"))?;
        let g = block.global;
        let m = block
            .cbs
            .iter()
            .find(|(cb, _)| *cb == id)
            .map(|(_, m)| *m)
            .ok_or_else(|| self.internal("cb without a push-constant member"))?;
        self.res.cbs.insert(
            id,
            CbInfo {
                global: g,
                range,
                push: Some(m),
                rows: 0,
            },
        );
        Ok(())
    }

    fn internal(&self, what: &str) -> crate::lower::LowerError {
        crate::lower::LowerError::Internal { what: what.into() }
    }

    /// Declares the push-constant block unless it is.
    pub(in crate::lower) fn ensure_push_block(&mut self) -> R<()> {
        if self.res.push_block.is_none() {
            self.declare_push_block()?;
        }
        Ok(())
    }

    fn declare_push_block(&mut self) -> R<()> {
        // Every constant buffer the plan put in push constants, by byte offset.
        // (byte offset, size, cb ID, index into `origin`) and (cb ID, space, register).
        let mut ranges: Vec<(u32, u32, u32, u32)> = Vec::new();
        let mut origin: Vec<(u32, u32, u32)> = Vec::new();
        for inst in self.prog.iter() {
            let Some(crate::sm4::Declaration::ConstantBuffer { space, .. }) = inst.decl() else {
                continue;
            };
            let Some(op) = inst.operands.first() else {
                continue;
            };
            let (id, range) = self.declared_range(op, *space)?;
            if let Some(Placement::PushConstant { offset, size }) =
                self.res.plan.placement(RegisterClass::B, id, false)
            {
                ranges.push((offset, size, id, origin.len() as u32));
                origin.push((id, range.space, range.lower));
            }
        }
        ranges.sort_unstable();
        // Offset words inside a buffer's bytes are read from its member; the others get one.
        let dynamic = self.res.plan.dynamic_offsets();
        let own: Vec<u32> = dynamic
            .iter()
            .copied()
            .filter(|&w| !ranges.iter().any(|r| r.0 <= w && w < r.0 + r.1))
            .collect();
        // Members in byte-offset order: `Ok(range)` or `Err(word)`.
        let mut members: Vec<Result<(u32, u32, u32, u32), u32>> = ranges
            .iter()
            .map(|&r| Ok(r))
            .chain(own.iter().map(|&w| Err(w)))
            .collect();
        members.sort_by_key(|m| match *m {
            Ok(r) => r.0,
            Err(w) => w,
        });
        let mut member_types = Vec::with_capacity(members.len());
        for m in &members {
            member_types.push(match *m {
                Ok((_, size, _, _)) => {
                    let len = self.b.m.consts.u32(size / 4);
                    self.b.m.types.intern(Type::Array {
                        elem: TypeId::U32,
                        len,
                        stride: Some(4),
                    })
                }
                Err(_) => TypeId::U32,
            });
        }
        let st = self.b.m.types.new_struct(member_types);
        self.b
            .m
            .decorate(DecorationTarget::Type(st), Decoration::Block, &[]);
        let mut cbs = Vec::with_capacity(ranges.len());
        let mut words = Vec::with_capacity(dynamic.len());
        for (i, m) in members.iter().enumerate() {
            let offset = match *m {
                Ok(r) => r.0,
                Err(w) => w,
            };
            self.b.m.decorate(
                DecorationTarget::Member(st, i as u32),
                Decoration::Offset,
                &[offset],
            );
            let Ok((offset, size, id, o)) = *m else {
                words.push((offset, i as u32, None));
                continue;
            };
            cbs.push((
                id,
                PushMember {
                    member: i as u32,
                    dwords: size / 4,
                },
            ));
            let (_, space, register) = origin[o as usize];
            self.refl.push_constants.push(PushConstantRange {
                offset,
                size,
                space,
                register,
            });
        }
        for &w in &dynamic {
            if let Some((i, r)) = members.iter().enumerate().find_map(|(i, m)| match *m {
                Ok(r) if r.0 <= w && w < r.0 + r.1 => Some((i, r)),
                _ => None,
            }) {
                words.push((w, i as u32, Some((w - r.0) / 4)));
            }
        }
        self.refl.dynamic_offsets = dynamic;
        let g = self.b.m.add_global(st, StorageClass::PushConstant, None);
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("push_constants"));
        self.res.push_block = Some(PushBlock {
            global: g,
            cbs,
            words,
        });
        Ok(())
    }

    /// Loads the `u32` at byte `offset` of the push-constant block (a dynamic offset word).
    pub(in crate::lower) fn load_push_word(&mut self, offset: u32) -> R<Operand> {
        self.ensure_push_block()?;
        let block = self
            .res
            .push_block
            .as_ref()
            .ok_or_else(|| self.internal("push-constant block missing"))?;
        let g = block.global;
        let (_, member, dword) = block
            .words
            .iter()
            .copied()
            .find(|w| w.0 == offset)
            .ok_or_else(|| self.internal("dynamic offset word not in the push-constant block"))?;
        let ptr = self
            .b
            .m
            .types
            .pointer(StorageClass::PushConstant, TypeId::U32);
        let m = self.b.u32c(member);
        let p = match dword {
            None => self.b.op(Op::AccessChain, ptr, &[Operand::Global(g), m]),
            Some(d) => {
                let d = self.b.u32c(d);
                self.b.op(Op::AccessChain, ptr, &[Operand::Global(g), m, d])
            }
        };
        Ok(self.b.op(Op::Load, TypeId::U32, &[p]))
    }

    /// Loads row `row` of a push-constant constant buffer as a `vec4`.
    pub(in crate::lower) fn load_push_row(
        &mut self,
        g: GlobalId,
        m: PushMember,
        row: Idx,
    ) -> Operand {
        let ptr = self
            .b
            .m
            .types
            .pointer(StorageClass::PushConstant, TypeId::U32);
        let member = self.b.u32c(m.member);
        let mut comps = [Operand::Lit(0); 4];
        for (c, out) in comps.iter_mut().enumerate() {
            let c = c as u32;
            *out = match row {
                Idx::Imm(k) => {
                    let d = (k as u64) * 4 + c as u64;
                    if d < m.dwords as u64 {
                        let d = self.b.u32c(d as u32);
                        let p = self
                            .b
                            .op(Op::AccessChain, ptr, &[Operand::Global(g), member, d]);
                        self.b.op(Op::Load, TypeId::U32, &[p])
                    } else {
                        self.b.u32c(0)
                    }
                }
                Idx::Dyn(v) => {
                    // Rows 0..limit hold component c within the range.
                    let limit = if m.dwords > c {
                        (m.dwords - c).div_ceil(4)
                    } else {
                        0
                    };
                    if limit == 0 {
                        self.b.u32c(0)
                    } else {
                        let last = self.b.u32c(limit - 1);
                        let r = self.b.glsl(GlslStd450Op::UMin, TypeId::U32, &[v, last]);
                        let two = self.b.u32c(2);
                        let r4 = self.b.op(Op::ShiftLeftLogical, TypeId::U32, &[r, two]);
                        let d = if c == 0 {
                            r4
                        } else {
                            let k = self.b.u32c(c);
                            self.b.op(Op::IAdd, TypeId::U32, &[r4, k])
                        };
                        let p = self
                            .b
                            .op(Op::AccessChain, ptr, &[Operand::Global(g), member, d]);
                        let x = self.b.op(Op::Load, TypeId::U32, &[p]);
                        let n = self.b.u32c(limit);
                        let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[v, n]);
                        let zero = self.b.u32c(0);
                        self.b.op(Op::Select, TypeId::U32, &[inb, x, zero])
                    }
                }
            };
        }
        let v = self.b.op(Op::CompositeConstruct, TypeId::UVEC4, &comps);
        self.b.op(Op::Bitcast, TypeId::VEC4, &[v])
    }
}
