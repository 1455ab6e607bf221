//! Register access for instructions: components of `v#` (loaded once in the entry block, or
//! through a function-local copy of a `dcl_indexrange` when indexed dynamically), the
//! promotable variables that hold `o#` components until the exits, and the special registers
//! (`vThreadID`, `oDepth`, …), declared on first use where D3D allows that.

use smallvec::SmallVec;
use spirv::{Op, StorageClass};

use super::{IoPart, PartKind};
use crate::ir::{Operand, Scalar, Type, TypeId, TypeTable, VarId};
use crate::lower::{Lowerer, R};
use crate::sm4::OperandType;

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Component `c` of input register `reg`, with its scalar kind; zero for components no
    /// part covers.
    pub fn read_input(&mut self, reg: u32, c: u8) -> R<(Operand, Scalar)> {
        let Some(slot) = self.io.inputs.get(reg as usize) else {
            return Err(self.invalid(format!("input register v{reg} is not declared")));
        };
        let Some(pi) = slot
            .parts
            .iter()
            .position(|p| c >= p.first && c < p.first + p.count)
        else {
            return Ok((self.b.u32c(0), Scalar::U32));
        };
        let part = slot.parts[pi].clone();
        let value = match part.loaded {
            Some(v) => v,
            None => {
                let v = self.load_part(&part);
                self.io.inputs[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        let scalar = if part.kind == PartKind::FrontFacing {
            Scalar::U32
        } else {
            part.scalar
        };
        let x = self.b.extract(value, c - part.first);
        Ok((x, scalar))
    }

    /// Components `comps` of input register `reg` as one vector (its own component type), when
    /// they all come from one part of the register: a swizzle of the loaded part, without
    /// per-component extracts. `None` when the components span parts or are not declared.
    pub fn read_input_vector(&mut self, reg: u32, comps: &[u8]) -> Option<Operand> {
        let pi = self.whole_input_part(reg, comps)?;
        let part = &self.io.inputs[reg as usize].parts[pi];
        let first = part.first;
        let value = match part.loaded {
            Some(v) => v,
            None => {
                let part = part.clone();
                let v = self.load_part(&part);
                self.io.inputs[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        if self.b.width_of(value) == 1 {
            let parts: SmallVec<[Operand; 4]> = comps.iter().map(|_| value).collect();
            return Some(self.b.construct(&parts));
        }
        // A fixed array: a vector has at most four components.
        let mut sel = [0u8; 4];
        let sel = sel.get_mut(..comps.len())?;
        for (k, &c) in sel.iter_mut().zip(comps) {
            *k = c - first;
        }
        Some(self.b.swizzle(value, sel))
    }

    /// The part of input register `reg` that holds all of components `comps` and is read as a
    /// vector (not an array, not the front-facing flag), by its index in the register's parts.
    fn whole_input_part(&self, reg: u32, comps: &[u8]) -> Option<usize> {
        let slot = self.io.inputs.get(reg as usize)?;
        let c0 = *comps.first()?;
        let pi = slot
            .parts
            .iter()
            .position(|p| c0 >= p.first && c0 < p.first + p.count)?;
        let part = &slot.parts[pi];
        let whole = part.kind != PartKind::FrontFacing
            && part.array_len == 0
            && comps
                .iter()
                .all(|&c| c >= part.first && c < part.first + part.count);
        whole.then_some(pi)
    }

    /// The scalar type of the interface variable that components `comps` of input register
    /// `reg` are all read from whole (as [`Lowerer::read_input_vector`] reads them), if they are.
    pub fn input_scalar(&self, reg: u32, comps: &[u8]) -> Option<Scalar> {
        let pi = self.whole_input_part(reg, comps)?;
        Some(self.io.inputs[reg as usize].parts[pi].scalar)
    }

    /// Whether components `comps` of input register `reg` are all `FragCoord`'s x or y (a pixel
    /// shader's `SV_Position.xy`). Those are window coordinates of a fragment inside the render
    /// target: finite, non-negative and at most the largest framebuffer size, far below 2^31,
    /// whether at the pixel centre or at a sample.
    pub fn input_is_window_xy(&self, reg: u32, comps: &[u8]) -> bool {
        let Some(slot) = self.io.inputs.get(reg as usize) else {
            return false;
        };
        comps.iter().all(|&c| {
            c < 2
                && slot
                    .parts
                    .iter()
                    .any(|p| p.kind == PartKind::FragCoord && c >= p.first && c < p.first + p.count)
        })
    }

    /// Component `c` of input register `base + index` (index dynamic), read through a
    /// function-local copy of the `dcl_indexrange` holding `base`; out-of-range indices read 0.
    pub fn read_input_dynamic(&mut self, base: u32, index: Operand, c: u8) -> R<Operand> {
        let Some(ri) = self
            .io
            .input_ranges
            .iter()
            .position(|r| base >= r.first && base < r.first + r.count)
        else {
            return Err(self.invalid(format!("v[... + {base}] is not inside a dcl_indexrange")));
        };
        let range = self.io.input_ranges[ri].clone();
        let arr = match range.array {
            Some(a) => a,
            None => {
                let len = self.b.m.consts.u32(range.count);
                let aty = self.b.m.types.intern(Type::Array {
                    elem: TypeId::UVEC4,
                    len,
                    stride: None,
                });
                let g = self.b.m.add_global(aty, StorageClass::Function, None);
                let ptr = self
                    .b
                    .m
                    .types
                    .pointer(StorageClass::Function, TypeId::UVEC4);
                for i in 0..range.count {
                    let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                    for comp in 0..4u8 {
                        let v = self.input_component_in_entry(range.first + i, comp)?;
                        comps.push(self.entry_bitcast_u32(v));
                    }
                    let row = self.entry_op(Op::CompositeConstruct, TypeId::UVEC4, &comps);
                    let idx = self.b.u32c(i);
                    let p = self.entry_op(Op::AccessChain, ptr, &[Operand::Global(g), idx]);
                    let entry = self.b.f.entry();
                    let st = self.b.f.add_inst(crate::ir::Inst::new(
                        Op::Store,
                        TypeId::VOID,
                        smallvec::smallvec![p, row],
                    ));
                    self.b.f.block_mut(entry).insts.push(st);
                }
                self.io.input_ranges[ri].array = Some(g);
                g
            }
        };
        let offset = base - range.first;
        let idx = if offset == 0 {
            index
        } else {
            let k = self.b.u32c(offset);
            self.b.op(Op::IAdd, TypeId::U32, &[index, k])
        };
        let last = self.b.u32c(range.count - 1);
        let clamped = self
            .b
            .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[idx, last]);
        let ptr = self.b.m.types.pointer(StorageClass::Function, TypeId::U32);
        let comp = self.b.u32c(c as u32);
        let p = self
            .b
            .op(Op::AccessChain, ptr, &[Operand::Global(arr), clamped, comp]);
        let v = self.b.op(Op::Load, TypeId::U32, &[p]);
        let n = self.b.u32c(range.count);
        let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[idx, n]);
        let zero = self.b.u32c(0);
        Ok(self.b.op(Op::Select, TypeId::U32, &[inb, v, zero]))
    }

    /// Component `c` of input register `reg`, computed in the entry block (zero when no part
    /// covers it).
    fn input_component_in_entry(&mut self, reg: u32, c: u8) -> R<Operand> {
        let Some(slot) = self.io.inputs.get(reg as usize) else {
            return Err(self.invalid(format!("input register v{reg} is not declared")));
        };
        let Some(pi) = slot
            .parts
            .iter()
            .position(|p| c >= p.first && c < p.first + p.count)
        else {
            return Ok(self.b.u32c(0));
        };
        let part = slot.parts[pi].clone();
        let value = match part.loaded {
            Some(v) => v,
            None => {
                let v = self.load_part(&part);
                self.io.inputs[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        if part.count == 1 {
            return Ok(value);
        }
        let sty = TypeTable::vec(
            if part.kind == PartKind::FrontFacing {
                Scalar::U32
            } else {
                part.scalar
            },
            1,
        );
        Ok(self.entry_op(
            Op::CompositeExtract,
            sty,
            &[value, Operand::Lit((c - part.first) as u32)],
        ))
    }

    /// The variable holding component `c` of output register `reg`.
    pub fn output_var(&mut self, reg: u32, c: u8) -> R<VarId> {
        let file = self.io.output_file();
        let Some(slot) = self.io.file(file).get(reg as usize) else {
            return Err(self.invalid(format!("output register o{reg} is not declared")));
        };
        if !slot.declared {
            return Err(self.invalid(format!("output register o{reg} is not declared")));
        }
        if let Some(v) = slot.vars[c as usize] {
            return Ok(v);
        }
        let v = self.b.f.new_var(TypeId::U32);
        self.io.file_mut(file)[reg as usize].vars[c as usize] = Some(v);
        Ok(v)
    }

    /// The special I/O record for a non-register operand type.
    pub fn special(&mut self, ty: OperandType) -> R<usize> {
        if let Some(i) = self.io.special.iter().position(|s| s.ty == ty) {
            return Ok(i);
        }
        // Some system values are used without a declaration; declare on demand.
        self.declare_special(ty)?;
        Ok(self.io.special.len() - 1)
    }

    /// Component `c` of a special input operand.
    pub fn read_special(&mut self, ty: OperandType, c: u8) -> R<(Operand, Scalar)> {
        let i = self.special(ty)?;
        let s = self.io.special[i].clone();
        let value = match s.loaded {
            Some(v) => v,
            None => {
                let part = IoPart {
                    first: 0,
                    count: s.width,
                    scalar: s.scalar,
                    global: s.global,
                    kind: s.kind,
                    loaded: None,
                    array_len: 0,
                };
                let v = self.load_part(&part);
                self.io.special[i].loaded = Some(v);
                v
            }
        };
        let c = c.min(s.width - 1);
        Ok((self.b.extract(value, c), s.scalar))
    }

    /// The variable for a special output operand (`oDepth`, `oMask`, `oStencilRef`).
    pub fn special_output_var(&mut self, ty: OperandType) -> R<VarId> {
        let i = self.special(ty)?;
        if let Some(v) = self.io.special[i].var {
            return Ok(v);
        }
        let v = self.b.f.new_var(TypeId::U32);
        self.io.special[i].var = Some(v);
        Ok(v)
    }
}
