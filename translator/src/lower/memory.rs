//! Memory instructions: raw and structured buffer loads and stores (`ld_raw`, `ld_structured`,
//! `store_raw`, `store_structured` on `t#`, `u#` and `g#`), typed UAV loads and stores, every
//! atomic (`atomic_*`, `imm_atomic_*`) on typed UAVs, buffers and thread-group shared memory,
//! the UAV counter (`imm_atomic_alloc`/`imm_atomic_consume`) and `sync`.
//!
//! Raw and structured views are `u32` arrays: a byte address becomes a dword index and each
//! component is one access chain and one load or store. Out-of-bounds buffer accesses are left
//! to the device: with `robustBufferAccess2` (VK_EXT_robustness2) a load past the view reads 0
//! per dword and a store past it is dropped, exactly D3D's rule, because the descriptor range
//! *is* the view. Thread-group shared memory has no such net (an out-of-bounds Workgroup
//! access is undefined behaviour in SPIR-V), so every dynamic TGSM index is clamped to the
//! last dword: D3D makes the results of out-of-bounds TGSM accesses undefined (a write may
//! trash any of the group's shared memory), and clamping keeps that undefined-but-contained.
//! Constant out-of-bounds TGSM accesses read 0 and drop the write.
//!
//! Stores and atomics need no guard after `discard`: the lowering demotes the invocation to a
//! helper, and Vulkan defines that stores and atomics of helper invocations have no effect on
//! memory (their atomic results are undefined, as in D3D).

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op, StorageClass};

use super::resources::{TgsmInfo, ViewInfo, ViewKind};
use super::texture::coord_count;
use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, TypeId, TypeTable};
use crate::reflect::ShaderStage;
use crate::sm4::{InstRef, OpControl, Opcode, Operand as Sm4Operand, OperandType, sync_flags};

/// SPIR-V scopes.
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;

/// SPIR-V memory semantics bits.
const SEM_ACQUIRE_RELEASE: u32 = 0x8;
const SEM_UNIFORM_MEMORY: u32 = 0x40;
const SEM_WORKGROUP_MEMORY: u32 = 0x100;
const SEM_IMAGE_MEMORY: u32 = 0x800;

/// Where the dwords of a raw or structured access live.
#[derive(Clone)]
enum Mem {
    /// A storage buffer: the access-chain prefix (`global[, element], 0`).
    Buffer {
        prefix: SmallVec<[Operand; 3]>,
        non_uniform: bool,
    },
    /// Thread-group shared memory.
    Tgsm(TgsmInfo),
}

/// A dword index: known at translation time or computed.
#[derive(Clone, Copy)]
enum Addr {
    Imm(u64),
    Dyn(Operand),
}

impl<'p, 'm> Lowerer<'p, 'm> {
    fn const_bits(&self, v: Operand) -> Option<u64> {
        match v {
            Operand::Const(c) => self.b.m.consts.scalar_bits(c),
            _ => None,
        }
    }

    /// The memory a `t#`/`u#` (raw or structured) or `g#` operand names, and its structure
    /// stride (0 = raw).
    fn mem_target(&mut self, op: &Sm4Operand) -> R<(Mem, u32)> {
        if op.ty == OperandType::ThreadGroupSharedMemory {
            let reg = self.imm_register(op)?;
            let info = self
                .res
                .tgsm
                .get(&reg)
                .cloned()
                .ok_or_else(|| self.invalid(format!("g{reg} is not declared")))?;
            let stride = info.stride;
            return Ok((Mem::Tgsm(info), stride));
        }
        let info = self.view_info(op)?;
        let stride = match info.kind {
            ViewKind::Raw => 0,
            ViewKind::Structured { stride } => stride,
            ViewKind::Typed { .. } | ViewKind::TexelBuffer { .. } => {
                return Err(self.invalid("raw or structured access to a typed view"));
            }
        };
        let mut prefix: SmallVec<[Operand; 3]> = smallvec::smallvec![Operand::Global(info.global)];
        if info.range.is_array() {
            let el = self.descriptor_element(op, &info.range)?;
            prefix.push(el);
        }
        prefix.push(self.b.u32c(0));
        let non_uniform = op.non_uniform;
        Ok((
            Mem::Buffer {
                prefix,
                non_uniform,
            },
            stride,
        ))
    }

    /// The dword index of a raw byte address.
    fn raw_dword(&mut self, byte: Operand) -> Addr {
        if let Some(b) = self.const_bits(byte) {
            return Addr::Imm(b / 4);
        }
        let two = self.b.u32c(2);
        Addr::Dyn(self.b.op(Op::ShiftRightLogical, TypeId::U32, &[byte, two]))
    }

    /// The dword index of byte `offset` in structure `index` of `stride` bytes.
    fn structured_dword(&mut self, stride: u32, index: Operand, offset: Operand) -> Addr {
        let (ci, co) = (self.const_bits(index), self.const_bits(offset));
        if let (Some(i), Some(o)) = (ci, co) {
            return Addr::Imm((i * stride as u64 + o) / 4);
        }
        if stride.is_multiple_of(4) {
            let k = self.b.u32c(stride / 4);
            let base = self.b.op(Op::IMul, TypeId::U32, &[index, k]);
            let off = match co {
                Some(o) => self.b.u32c((o / 4) as u32),
                None => {
                    let two = self.b.u32c(2);
                    self.b
                        .op(Op::ShiftRightLogical, TypeId::U32, &[offset, two])
                }
            };
            if co == Some(0) {
                return Addr::Dyn(base);
            }
            Addr::Dyn(self.b.op(Op::IAdd, TypeId::U32, &[base, off]))
        } else {
            let k = self.b.u32c(stride);
            let base = self.b.op(Op::IMul, TypeId::U32, &[index, k]);
            let bytes = self.b.op(Op::IAdd, TypeId::U32, &[base, offset]);
            let two = self.b.u32c(2);
            Addr::Dyn(self.b.op(Op::ShiftRightLogical, TypeId::U32, &[bytes, two]))
        }
    }

    /// Pointer to dword `addr + c`; `None` for a constant index past the end of TGSM.
    fn dword_ptr(&mut self, mem: &Mem, addr: Addr, c: u32) -> Option<Operand> {
        match mem {
            Mem::Buffer {
                prefix,
                non_uniform,
            } => {
                let idx = match addr {
                    // Past 2^32 dwords: any index past the view is dropped by robustness.
                    Addr::Imm(k) => self.b.u32c((k + c as u64).min(u32::MAX as u64) as u32),
                    Addr::Dyn(v) if c == 0 => v,
                    Addr::Dyn(v) => {
                        let k = self.b.u32c(c);
                        self.b.op(Op::IAdd, TypeId::U32, &[v, k])
                    }
                };
                let ptr = self
                    .b
                    .m
                    .types
                    .pointer(StorageClass::StorageBuffer, TypeId::U32);
                let mut args: SmallVec<[Operand; 4]> = prefix.iter().copied().collect();
                args.push(idx);
                let p = self.b.op(Op::AccessChain, ptr, &args);
                if *non_uniform {
                    self.mark_non_uniform(p);
                }
                Some(p)
            }
            Mem::Tgsm(info) => {
                let idx = match addr {
                    Addr::Imm(k) => {
                        let k = k + c as u64;
                        if k >= info.dwords as u64 {
                            return None;
                        }
                        self.b.u32c(k as u32)
                    }
                    Addr::Dyn(v) => {
                        let v = if c == 0 {
                            v
                        } else {
                            let k = self.b.u32c(c);
                            self.b.op(Op::IAdd, TypeId::U32, &[v, k])
                        };
                        let last = self.b.u32c(info.dwords - 1);
                        self.b.glsl(Glsl::UMin, TypeId::U32, &[v, last])
                    }
                };
                let ptr = self.b.m.types.pointer(StorageClass::Workgroup, TypeId::U32);
                Some(
                    self.b
                        .op(Op::AccessChain, ptr, &[Operand::Global(info.global), idx]),
                )
            }
        }
    }

    /// Loads the components `src` selects for `dst`'s mask, from dwords `addr + component`.
    fn load_dwords(&mut self, dst: &Sm4Operand, src: &Sm4Operand, mem: &Mem, addr: Addr) -> R<()> {
        let mask = match dst.components {
            crate::sm4::Components::One | crate::sm4::Components::Zero => 1,
            _ => dst.mask(),
        };
        let comps = super::regs::src_components(src, mask);
        if mask == 0 || comps.is_empty() {
            return Ok(());
        }
        let mut loaded: [Option<Operand>; 4] = [None; 4];
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        for &c in &comps {
            let v = match loaded[c as usize & 3] {
                Some(v) => v,
                None => {
                    let v = match self.dword_ptr(mem, addr, c as u32) {
                        Some(p) => self.b.op(Op::Load, TypeId::U32, &[p]),
                        None => self.b.u32c(0),
                    };
                    loaded[c as usize & 3] = Some(v);
                    v
                }
            };
            parts.push(v);
        }
        let v = self.b.construct(&parts);
        self.write(dst, v, Scalar::U32, false)
    }

    /// Stores `value`'s components for `dst`'s mask to dwords `addr + component`.
    fn store_dwords(
        &mut self,
        dst: &Sm4Operand,
        value: &Sm4Operand,
        mem: &Mem,
        addr: Addr,
    ) -> R<()> {
        let mask = dst.mask();
        if mask == 0 {
            return Ok(());
        }
        let v = self.read(value, mask, Scalar::U32)?;
        let mut i = 0u8;
        for c in 0..4u8 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let x = self.b.extract(v, i);
            i += 1;
            if let Some(p) = self.dword_ptr(mem, addr, c as u32) {
                self.b.op_void(Op::Store, &[p, x]);
            }
        }
        Ok(())
    }

    fn check_count(&self, inst: &InstRef<'p>, ops: usize, min: usize) -> R<()> {
        if ops < min {
            return Err(self.invalid(format!(
                "{} with {ops} operands (expected {min})",
                inst.opcode.info().name
            )));
        }
        Ok(())
    }

    fn ld_raw(&mut self, inst: &InstRef<'p>) -> R<()> {
        let structured = matches!(inst.opcode, Opcode::LdStructured | Opcode::LdStructuredS);
        let (ops, status) = self.split_feedback(inst, 3 + structured as usize)?;
        let src = &ops[2 + structured as usize];
        // A texel-buffer view (`texel_views.rs`), for every read.
        let texel = match src.ty {
            OperandType::Resource | OperandType::UnorderedAccessView => Some(self.view_info(src)?)
                .filter(|i| matches!(i.kind, ViewKind::TexelBuffer { .. })),
            _ => None,
        };
        if let Some(info) = texel {
            let ViewKind::TexelBuffer { stride, .. } = info.kind else {
                unreachable!("filtered above")
            };
            let base = self.texel_base(&ops[1..], structured, stride)?;
            return self.load_texel_dwords(&ops[0], src, &info, base, status);
        }
        if status.is_some() {
            return Err(self.unsupported(format!(
                "{} with residency feedback on a {} (only texel-buffer views report residency: raw and structured SRVs with Options::raw_feedback = TexelBuffer, UAVs with Options::texel_buffers.raw_uav)",
                inst.opcode.info().name,
                if src.ty == OperandType::UnorderedAccessView { "storage-buffer UAV" } else { "view that is not a texel buffer" }
            )));
        }
        let (mem, stride) = self.mem_target(src)?;
        let addr = if structured {
            if stride == 0 {
                return Err(self.invalid("ld_structured on a raw view"));
            }
            let i = self.read_scalar(&ops[1], Scalar::U32)?;
            let o = self.read_scalar(&ops[2], Scalar::U32)?;
            self.structured_dword(stride, i, o)
        } else {
            let b = self.read_scalar(&ops[1], Scalar::U32)?;
            self.raw_dword(b)
        };
        self.load_dwords(&ops[0], src, &mem, addr)
    }

    /// The first texel of a raw (`addr[0]` = byte address) or structured (`addr[0]` =
    /// structure, `addr[1]` = byte offset) access to a texel-buffer view.
    fn texel_base(&mut self, addr: &[Sm4Operand], structured: bool, stride: u32) -> R<Operand> {
        let addr = if structured {
            if stride == 0 {
                return Err(self.invalid("structured access to a raw view"));
            }
            let i = self.read_scalar(&addr[0], Scalar::U32)?;
            let o = self.read_scalar(&addr[1], Scalar::U32)?;
            self.structured_dword(stride, i, o)
        } else {
            let b = self.read_scalar(&addr[0], Scalar::U32)?;
            self.raw_dword(b)
        };
        Ok(match addr {
            // Past 2^32 dwords: any index past the view is read as 0 or dropped by robustness.
            Addr::Imm(k) => self.b.u32c(k.min(u32::MAX as u64) as u32),
            Addr::Dyn(v) => v,
        })
    }

    fn store_raw(&mut self, inst: &InstRef<'p>) -> R<()> {
        let structured = inst.opcode == Opcode::StoreStructured;
        let ops = inst.operands;
        self.check_count(inst, ops.len(), 3 + structured as usize)?;
        let dst = &ops[0];
        if dst.ty == OperandType::Resource {
            return Err(self.invalid("store to a shader resource view"));
        }
        if dst.ty == OperandType::UnorderedAccessView {
            let info = self.view_info(dst)?;
            if let ViewKind::TexelBuffer { stride, .. } = info.kind {
                let base = self.texel_base(&ops[1..], structured, stride)?;
                return self.store_texel_dwords(dst, &ops[2 + structured as usize], &info, base);
            }
        }
        let (mem, stride) = self.mem_target(dst)?;
        let addr = if structured {
            if stride == 0 {
                return Err(self.invalid("store_structured on a raw view"));
            }
            let i = self.read_scalar(&ops[1], Scalar::U32)?;
            let o = self.read_scalar(&ops[2], Scalar::U32)?;
            self.structured_dword(stride, i, o)
        } else {
            let b = self.read_scalar(&ops[1], Scalar::U32)?;
            self.raw_dword(b)
        };
        self.store_dwords(dst, &ops[2 + structured as usize], &mem, addr)
    }

    /// The image of a typed UAV with its sampled scalar and dimension.
    fn typed_uav(
        &mut self,
        op: &Sm4Operand,
    ) -> R<(ViewInfo, Scalar, crate::sm4::ResourceDimension, TypeId)> {
        if op.ty != OperandType::UnorderedAccessView {
            return Err(self.invalid("expected a u# operand"));
        }
        let info = self.view_info(op)?;
        let ViewKind::Typed { scalar, dim, image } = info.kind else {
            return Err(self.invalid("typed access to a raw or structured UAV"));
        };
        if dim.is_multisampled() {
            return Err(self.unsupported("multisampled UAVs"));
        }
        Ok((info, scalar, dim, image))
    }

    fn ld_uav_typed(&mut self, inst: &InstRef<'p>) -> R<()> {
        let (ops, status) = self.split_feedback(inst, 3)?;
        let (dst, coord_op, u) = (&ops[0], &ops[1], &ops[2]);
        let (_, scalar, dim, _) = self.typed_uav(u)?;
        let (img, _) = self.load_image(u)?;
        let coord = self.read_n(coord_op, coord_count(dim), Scalar::U32)?;
        let r = self.image_op(
            Op::ImageRead,
            TypeTable::vec(scalar, 4),
            &[img, coord],
            status,
        )?;
        self.write_texture_result(dst, r, u, scalar, inst.saturate)
    }

    fn store_uav_typed(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = inst.operands;
        self.check_count(inst, ops.len(), 3)?;
        let (u, coord_op, value) = (&ops[0], &ops[1], &ops[2]);
        let (_, scalar, dim, _) = self.typed_uav(u)?;
        let (img, _) = self.load_image(u)?;
        let coord = self.read_n(coord_op, coord_count(dim), Scalar::U32)?;
        let texel = self.read(value, 0xf, scalar)?;
        self.b.op_void(Op::ImageWrite, &[img, coord, texel]);
        Ok(())
    }

    /// Pointer, result type and scope of the atomic an operand pair (`u#`/`g#`, address)
    /// names; `None` for a constant address past the end of TGSM.
    fn atomic_target(
        &mut self,
        target: &Sm4Operand,
        addr: &Sm4Operand,
    ) -> R<Option<(Operand, TypeId, u32)>> {
        if target.ty == OperandType::UnorderedAccessView
            && let ViewKind::Typed { .. } = self.view_info(target)?.kind
        {
            let (info, scalar, dim, image) = self.typed_uav(target)?;
            if !matches!(scalar, Scalar::U32 | Scalar::I32) {
                return Err(self.unsupported("atomics on a float typed UAV"));
            }
            let imgp = self.descriptor_pointer(
                target,
                info.global,
                &info.range,
                image,
                StorageClass::UniformConstant,
            )?;
            let coord = self.read_n(addr, coord_count(dim), Scalar::U32)?;
            let sty = TypeTable::vec(scalar, 1);
            let ptr = self.b.m.types.pointer(StorageClass::Image, sty);
            let zero = self.b.u32c(0);
            let p = self.b.op(Op::ImageTexelPointer, ptr, &[imgp, coord, zero]);
            if target.non_uniform {
                self.mark_non_uniform(p);
            }
            return Ok(Some((p, sty, SCOPE_DEVICE)));
        }
        if !matches!(
            target.ty,
            OperandType::UnorderedAccessView | OperandType::ThreadGroupSharedMemory
        ) {
            return Err(self.invalid("atomic on something that is not a UAV or TGSM"));
        }
        if target.ty == OperandType::UnorderedAccessView {
            let info = self.view_info(target)?;
            if let ViewKind::TexelBuffer { stride, image, .. } = info.kind {
                let index = if stride == 0 {
                    self.texel_base(std::slice::from_ref(addr), false, 0)?
                } else {
                    // The address's first two components: structure and byte offset.
                    let swz = addr.swizzle();
                    let i = self.read_comps(addr, &[swz[0]], Scalar::U32)?;
                    let o = self.read_comps(addr, &[swz[1]], Scalar::U32)?;
                    match self.structured_dword(stride, i, o) {
                        Addr::Imm(k) => self.b.u32c(k.min(u32::MAX as u64) as u32),
                        Addr::Dyn(v) => v,
                    }
                };
                let imgp = self.descriptor_pointer(
                    target,
                    info.global,
                    &info.range,
                    image,
                    StorageClass::UniformConstant,
                )?;
                let p = self.texel_pointer(imgp, index, target.non_uniform);
                return Ok(Some((p, TypeId::U32, SCOPE_DEVICE)));
            }
        }
        let (mem, stride) = self.mem_target(target)?;
        let a = if stride == 0 {
            let b = self.read_scalar(addr, Scalar::U32)?;
            self.raw_dword(b)
        } else {
            let swz = addr.swizzle();
            let i = self.read_comps(addr, &[swz[0]], Scalar::U32)?;
            let o = self.read_comps(addr, &[swz[1]], Scalar::U32)?;
            self.structured_dword(stride, i, o)
        };
        let scope = match mem {
            Mem::Tgsm(_) => SCOPE_WORKGROUP,
            Mem::Buffer { .. } => SCOPE_DEVICE,
        };
        let p = self.dword_ptr(&mem, a, 0);
        Ok(p.map(|p| (p, TypeId::U32, scope)))
    }

    /// `atomic_*` (no result) and `imm_atomic_*` (old value to the first destination).
    fn atomic(&mut self, inst: &InstRef<'p>) -> R<()> {
        use Opcode as O;
        let (op, imm, cmp) = match inst.opcode {
            O::AtomicAnd => (Op::AtomicAnd, false, false),
            O::AtomicOr => (Op::AtomicOr, false, false),
            O::AtomicXor => (Op::AtomicXor, false, false),
            O::AtomicCmpStore => (Op::AtomicCompareExchange, false, true),
            O::AtomicIAdd => (Op::AtomicIAdd, false, false),
            O::AtomicIMax => (Op::AtomicSMax, false, false),
            O::AtomicIMin => (Op::AtomicSMin, false, false),
            O::AtomicUMax => (Op::AtomicUMax, false, false),
            O::AtomicUMin => (Op::AtomicUMin, false, false),
            O::ImmAtomicIAdd => (Op::AtomicIAdd, true, false),
            O::ImmAtomicAnd => (Op::AtomicAnd, true, false),
            O::ImmAtomicOr => (Op::AtomicOr, true, false),
            O::ImmAtomicXor => (Op::AtomicXor, true, false),
            O::ImmAtomicExch => (Op::AtomicExchange, true, false),
            O::ImmAtomicCmpExch => (Op::AtomicCompareExchange, true, true),
            O::ImmAtomicIMax => (Op::AtomicSMax, true, false),
            O::ImmAtomicIMin => (Op::AtomicSMin, true, false),
            O::ImmAtomicUMax => (Op::AtomicUMax, true, false),
            O::ImmAtomicUMin => (Op::AtomicUMin, true, false),
            _ => unreachable!("atomic family"),
        };
        let ops = inst.operands;
        let first = imm as usize;
        self.check_count(inst, ops.len(), first + 3 + cmp as usize)?;
        let (target, addr) = (&ops[first], &ops[first + 1]);
        let target_info = self.atomic_target(target, addr)?;
        let s = match target_info {
            Some((_, ty, _)) => self.b.m.types.scalar(ty).unwrap_or(Scalar::U32),
            None => Scalar::U32,
        };
        // Sources: compare value (src0) then new value (src1) for the compare forms.
        let v0 = self.read_scalar(&ops[first + 2], s)?;
        let v1 = if cmp {
            Some(self.read_scalar(&ops[first + 3], s)?)
        } else {
            None
        };
        let Some((ptr, ty, scope)) = target_info else {
            // Constant address past the end of shared memory: no effect, undefined result.
            if imm {
                let zero = self.b.u32c(0);
                self.write(&ops[0], zero, Scalar::U32, false)?;
            }
            return Ok(());
        };
        let scope = self.b.u32c(scope);
        let none = self.b.u32c(0);
        let r = match v1 {
            // OpAtomicCompareExchange takes (Value, Comparator): the new value first.
            Some(new) => self.b.op(op, ty, &[ptr, scope, none, none, new, v0]),
            None => self.b.op(op, ty, &[ptr, scope, none, v0]),
        };
        if imm {
            self.write(&ops[0], r, s, false)?;
        }
        Ok(())
    }

    /// `imm_atomic_alloc` (old count) and `imm_atomic_consume` (new count) on a UAV counter.
    fn counter(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = inst.operands;
        self.check_count(inst, ops.len(), 2)?;
        let (dst, u) = (&ops[0], &ops[1]);
        if u.ty != OperandType::UnorderedAccessView {
            return Err(self.invalid("UAV counter operation on something that is not a UAV"));
        }
        let info = self.view_info(u)?;
        let counter = info
            .counter
            .ok_or_else(|| self.invalid("UAV counter operation on a UAV without a counter"))?;
        let crange = counter.range;
        let p = if let Some(image) = counter.image {
            // A texel-buffer counter: texel 0.
            let imgp = self.descriptor_pointer(
                u,
                counter.global,
                &crange,
                image,
                StorageClass::UniformConstant,
            )?;
            let zero = self.b.u32c(0);
            self.texel_pointer(imgp, zero, u.non_uniform)
        } else {
            let mut args: SmallVec<[Operand; 4]> =
                smallvec::smallvec![Operand::Global(counter.global)];
            if crange.is_array() {
                let el = self.descriptor_element(u, &crange)?;
                args.push(el);
            }
            let zero = self.b.u32c(0);
            args.push(zero);
            args.push(zero);
            let ptr = self
                .b
                .m
                .types
                .pointer(StorageClass::StorageBuffer, TypeId::U32);
            let p = self.b.op(Op::AccessChain, ptr, &args);
            if u.non_uniform {
                self.mark_non_uniform(p);
            }
            p
        };
        let zero = self.b.u32c(0);
        let scope = self.b.u32c(SCOPE_DEVICE);
        let r = if inst.opcode == Opcode::ImmAtomicAlloc {
            self.b
                .op(Op::AtomicIIncrement, TypeId::U32, &[p, scope, zero])
        } else {
            let old = self
                .b
                .op(Op::AtomicIDecrement, TypeId::U32, &[p, scope, zero]);
            let one = self.b.u32c(1);
            self.b.op(Op::ISub, TypeId::U32, &[old, one])
        };
        self.write(dst, r, Scalar::U32, false)
    }

    /// `sync[_uglobal|_ugroup][_g][_t]`: a control barrier with `_t`, else a memory barrier.
    fn sync(&mut self, inst: &InstRef<'p>) -> R<()> {
        let flags = match inst.control {
            OpControl::Sync(f) => f,
            _ => 0,
        };
        let compute = self.stage == ShaderStage::Compute;
        let threads = flags & sync_flags::THREADS_IN_GROUP != 0;
        let tgsm = flags & sync_flags::THREAD_GROUP_SHARED_MEMORY != 0;
        let uav_group = flags & sync_flags::UAV_MEMORY_GROUP != 0;
        let uav_global = flags & sync_flags::UAV_MEMORY_GLOBAL != 0;
        if !compute && (threads || tgsm || uav_group) {
            return Err(self.invalid(format!(
                "{} outside a compute shader (only sync_uglobal is allowed there)",
                crate::sm4::sync_flags::NAMES
                    .iter()
                    .filter(|(f, _)| flags & f != 0)
                    .fold(String::from("sync"), |s, (_, n)| s + n)
            )));
        }
        let mut sem = 0;
        if tgsm {
            sem |= SEM_WORKGROUP_MEMORY;
        }
        if uav_group || uav_global {
            sem |= SEM_UNIFORM_MEMORY | SEM_IMAGE_MEMORY;
        }
        if sem != 0 {
            sem |= SEM_ACQUIRE_RELEASE;
        }
        // Device scope only where another group can see the UAV writes: graphics stages, and
        // globally coherent UAVs in compute; other UAVs are coherent within the group only.
        let any_coherent = self.res.uavs.values().any(|u| u.globally_coherent);
        let mem_scope = if uav_global && (!compute || any_coherent) {
            SCOPE_DEVICE
        } else {
            SCOPE_WORKGROUP
        };
        let scope = self.b.u32c(mem_scope);
        let semv = self.b.u32c(sem);
        if threads {
            let wg = self.b.u32c(SCOPE_WORKGROUP);
            self.b.op_void(Op::ControlBarrier, &[wg, scope, semv]);
        } else if sem != 0 {
            self.b.op_void(Op::MemoryBarrier, &[scope, semv]);
        }
        Ok(())
    }

    /// Lowers a memory instruction; false when `inst` is not one.
    pub(super) fn memory_op(&mut self, inst: InstRef<'p>) -> R<bool> {
        use Opcode as O;
        match inst.opcode {
            O::LdRaw | O::LdStructured | O::LdRawS | O::LdStructuredS => self.ld_raw(&inst)?,
            O::StoreRaw | O::StoreStructured => self.store_raw(&inst)?,
            O::LdUavTyped | O::LdUavTypedS => self.ld_uav_typed(&inst)?,
            O::StoreUavTyped => self.store_uav_typed(&inst)?,
            op if op.is_atomic() => self.atomic(&inst)?,
            O::ImmAtomicAlloc | O::ImmAtomicConsume => self.counter(&inst)?,
            O::Sync => self.sync(&inst)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
