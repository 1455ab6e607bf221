//! The instructions of the render-state code (`state`): reading an item's words as delivered
//! and the fixed-function stages after a program — fog, alpha test, user clip planes.
//!
//! Kept apart from the declarations (globals, decorations, capabilities, reflection), which
//! `state` makes while lowering, so that the same code serves both places it is generated:
//! in line while lowering, and after the passes for the stages `tail` defers (whose code the
//! passes could not change). Every formula is documented in `docs/d3d9.md`.

use smallvec::SmallVec;
use spirv::{GlslStd450Op as G, Op, StorageClass};

use crate::d3d9_state::{DeliveryRef, StateItem, StateTable, WordType};
use crate::ir::builder::FnBuilder;
use crate::ir::{BlockId, GlobalId, Merge, Operand, Scalar, Terminator, TypeId};

/// The push block of the items delivered in push constants: the global and, per item, its
/// member index.
pub(crate) type PushBlock = (GlobalId, Vec<(StateItem, u32)>);

/// A generator of state code into `b`.
pub(crate) struct StateCode<'a, 'm> {
    pub b: &'a mut FnBuilder<'m>,
    pub table: &'a StateTable<'a>,
    /// The push block, declared before any pushed item is read.
    pub push: Option<&'a PushBlock>,
    /// Code made after the structurizer: a selection gets its merge block, not a join.
    pub structured: bool,
}

/// The caller's delivery of `item`, with table-derived spec IDs resolved.
pub(crate) fn resolved_delivery<'o>(table: &StateTable<'o>, item: StateItem) -> DeliveryRef<'o> {
    match table.delivery(item) {
        DeliveryRef::Spec { first_id: None } => DeliveryRef::Spec {
            first_id: Some(table.spec_id_base() + item.spec_slot()),
        },
        d => d,
    }
}

impl StateCode<'_, '_> {
    /// The words of `item` (f32 or u32 operands by its word type), as delivered (never
    /// `Buffer`: the bump-environment buffer is read by `ps1_tex`).
    pub fn words(&mut self, item: StateItem) -> SmallVec<[Operand; 4]> {
        let ty = match item.word_type() {
            WordType::F32 => TypeId::F32,
            WordType::U32 => TypeId::U32,
        };
        match resolved_delivery(self.table, item) {
            DeliveryRef::Baked { words } => words
                .iter()
                .map(|&w| match item.word_type() {
                    WordType::F32 => self.b.f32c(f32::from_bits(w)),
                    WordType::U32 => self.b.u32c(w),
                })
                .collect(),
            DeliveryRef::Spec { first_id } => {
                let first = first_id.unwrap_or(0);
                let defaults = item.default_words();
                (0..item.words())
                    .map(|k| {
                        let d = u64::from(defaults[k as usize]);
                        Operand::Const(self.b.m.consts.spec(ty, first + k, d))
                    })
                    .collect()
            }
            DeliveryRef::Push { .. } => {
                let (g, members) = self.push.expect("the push block is declared first");
                let g = *g;
                let member = members
                    .iter()
                    .find(|(i, _)| *i == item)
                    .map(|&(_, m)| m)
                    .expect("every pushed item has a member");
                let ptr = self
                    .b
                    .m
                    .types
                    .pointer(StorageClass::PushConstant, TypeId::U32);
                let m = self.b.u32c(member);
                (0..item.words())
                    .map(|k| {
                        let k = self.b.u32c(k);
                        let p = self.b.op(Op::AccessChain, ptr, &[Operand::Global(g), m, k]);
                        let w = self.b.op(Op::Load, TypeId::U32, &[p]);
                        if ty == TypeId::F32 {
                            self.b.op(Op::Bitcast, TypeId::F32, &[w])
                        } else {
                            w
                        }
                    })
                    .collect()
            }
            DeliveryRef::Buffer => unreachable!("bump-environment buffer reads go to ps1_tex"),
        }
    }

    /// The one word of a u32 flag item as a bool (`!= 0`).
    pub fn flag(&mut self, item: StateItem) -> Operand {
        let w = self.words(item)[0];
        let zero = self.b.u32c(0);
        self.b.op(Op::INotEqual, TypeId::BOOL, &[w, zero])
    }

    /// A `bvec4` with every component `c`.
    pub fn bsplat4(&mut self, c: Operand) -> Operand {
        self.b
            .op(Op::CompositeConstruct, super::regs::BVEC4, &[c, c, c, c])
    }

    /// Runs `body` only where `cond` holds (a structured if without else).
    pub fn only_if(&mut self, cond: Operand, body: impl FnOnce(&mut FnBuilder<'_>)) {
        only_if(self.b, cond, self.structured, body);
    }

    /// Fixed-function fog (pixel shaders below 3.0) applied to the colour `c` (vec4): the
    /// colour's rgb blends towards the fog colour by the factor f (1 = no fog), alpha kept.
    /// `comp(b, k)` is component k of `c`; `fog` the FOG input, `frag_coord` FragCoord.
    pub fn fog(
        &mut self,
        c: Operand,
        mut comp: impl FnMut(&mut FnBuilder<'_>, u8) -> Operand,
        fog: GlobalId,
        frag_coord: GlobalId,
    ) -> Operand {
        let mode = self.words(StateItem::FogMode)[0];
        let source = self.words(StateItem::FogSource)[0];
        let col = self.words(StateItem::FogColour);
        let p = self.words(StateItem::FogParams);
        let (start, end, density) = (p[0], p[1], p[2]);
        let b = &mut *self.b;
        // Vertex fog: the FOG varying is the factor.
        let vf = b.op(Op::Load, TypeId::F32, &[Operand::Global(fog)]);
        // Table fog: from the fragment's z or w (FragCoord.w is 1/w).
        let fc = b.op(Op::Load, TypeId::VEC4, &[Operand::Global(frag_coord)]);
        let z = b.extract(fc, 2);
        let rw = b.extract(fc, 3);
        let one = b.f32c(1.0);
        let w = b.op(Op::FDiv, TypeId::F32, &[one, rw]);
        let zero_u = b.u32c(0);
        let use_z = b.op(Op::IEqual, TypeId::BOOL, &[source, zero_u]);
        let d = b.op(Op::Select, TypeId::F32, &[use_z, z, w]);
        let e_minus_d = b.op(Op::FSub, TypeId::F32, &[end, d]);
        let e_minus_s = b.op(Op::FSub, TypeId::F32, &[end, start]);
        let linear = b.op(Op::FDiv, TypeId::F32, &[e_minus_d, e_minus_s]);
        let dd = b.op(Op::FMul, TypeId::F32, &[density, d]);
        let neg = b.op(Op::FNegate, TypeId::F32, &[dd]);
        let exp = b.glsl(G::Exp, TypeId::F32, &[neg]);
        let sq = b.op(Op::FMul, TypeId::F32, &[dd, dd]);
        let negsq = b.op(Op::FNegate, TypeId::F32, &[sq]);
        let exp2 = b.glsl(G::Exp, TypeId::F32, &[negsq]);
        let mut f = linear;
        for (k, v) in [(3u32, exp2), (2, exp), (1, vf)] {
            let kc = b.u32c(k);
            let is = b.op(Op::IEqual, TypeId::BOOL, &[mode, kc]);
            f = b.op(Op::Select, TypeId::F32, &[is, v, f]);
        }
        // Clamped to [0, 1], NaN → 1 (no fog).
        let nan = b.op(Op::IsNan, TypeId::BOOL, &[f]);
        let f = b.op(Op::Select, TypeId::F32, &[nan, one, f]);
        let f = saturate(b, f);
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        for (k, &fogc) in col.iter().enumerate().take(3) {
            let x = comp(b, k as u8);
            let mixed = b.glsl(G::FMix, TypeId::F32, &[fogc, x, f]);
            parts.push(mixed);
        }
        parts.push(comp(b, 3));
        let fogged = b.construct(&parts);
        let off = b.op(Op::IEqual, TypeId::BOOL, &[mode, zero_u]);
        let off4 = self.bsplat4(off);
        self.b.op(Op::Select, TypeId::VEC4, &[off4, c, fogged])
    }

    /// Alpha test: the invocation is demoted unless the alpha `alpha(b)` (unclamped: a float
    /// target keeps alpha past 1) compares with the reference as the function says; a NaN
    /// passes `not equal` and `always` only. `demote` appends the demotion.
    pub fn alpha_test(
        &mut self,
        alpha: impl FnOnce(&mut FnBuilder<'_>) -> Operand,
        demote: impl FnOnce(&mut FnBuilder<'_>),
    ) {
        let func = self.words(StateItem::AlphaFunc)[0];
        let r = self.words(StateItem::AlphaRef)[0];
        let b = &mut *self.b;
        let a = alpha(b);
        // D3DCMPFUNC − 1 is a mask: bit 0 less, bit 1 equal, bit 2 greater.
        let mut bits = None;
        for (k, op) in [
            (1u32, Op::FOrdLessThan),
            (2, Op::FOrdEqual),
            (4, Op::FOrdGreaterThan),
        ] {
            let t = b.op(op, TypeId::BOOL, &[a, r]);
            let kc = b.u32c(k);
            let zero = b.u32c(0);
            let v = b.op(Op::Select, TypeId::U32, &[t, kc, zero]);
            bits = Some(match bits {
                None => v,
                Some(bits) => b.op(Op::BitwiseOr, TypeId::U32, &[bits, v]),
            });
        }
        let bits = bits.expect("three comparisons");
        let one = b.u32c(1);
        let mask = b.op(Op::ISub, TypeId::U32, &[func, one]);
        let hit = b.op(Op::BitwiseAnd, TypeId::U32, &[bits, mask]);
        let zero = b.u32c(0);
        let miss = b.op(Op::IEqual, TypeId::BOOL, &[hit, zero]);
        // A NaN alpha or reference compares unordered (no bit set): it passes only the
        // functions that hold for unordered values, not-equal (mask 5) and always (mask 7).
        let unordered = b.op(Op::IEqual, TypeId::BOOL, &[bits, zero]);
        let five = b.u32c(5);
        let ne = b.op(Op::BitwiseAnd, TypeId::U32, &[mask, five]);
        let ne = b.op(Op::IEqual, TypeId::BOOL, &[ne, five]);
        let nan_pass = b.op(Op::LogicalAnd, TypeId::BOOL, &[unordered, ne]);
        let pass = b.op(Op::LogicalNot, TypeId::BOOL, &[nan_pass]);
        let fail = b.op(Op::LogicalAnd, TypeId::BOOL, &[miss, pass]);
        self.only_if(fail, demote);
    }

    /// User clip planes into `clip` (`ClipDistance[6]`): ClipDistance[i] = dot(pos, plane i)
    /// for each enabled plane, else 0.
    pub fn clip_planes(&mut self, pos: Operand, clip: GlobalId) {
        let mask = self.words(StateItem::ClipPlaneMask)[0];
        let planes = self.words(StateItem::ClipPlanes);
        let b = &mut *self.b;
        let ptr = b.m.types.pointer(StorageClass::Output, TypeId::F32);
        let zero = b.f32c(0.0);
        let zero_u = b.u32c(0);
        for i in 0..6u32 {
            let plane = b.construct(&planes[4 * i as usize..4 * i as usize + 4]);
            let d = b.op(Op::Dot, TypeId::F32, &[pos, plane]);
            let bit = b.u32c(1 << i);
            let on = b.op(Op::BitwiseAnd, TypeId::U32, &[mask, bit]);
            let on = b.op(Op::INotEqual, TypeId::BOOL, &[on, zero_u]);
            let v = b.op(Op::Select, TypeId::F32, &[on, d, zero]);
            let idx = b.u32c(i);
            let p = b.op(Op::AccessChain, ptr, &[Operand::Global(clip), idx]);
            b.op_void(Op::Store, &[p, v]);
        }
    }
}

/// Clamps a float scalar or vector to [0, 1].
pub(crate) fn saturate(b: &mut FnBuilder<'_>, v: Operand) -> Operand {
    let n = b.width_of(v);
    let zero = b.splat(Scalar::F32, n, 0);
    let one = b.splat(Scalar::F32, n, 1f32.to_bits() as u64);
    let ty = crate::ir::TypeTable::vec(Scalar::F32, n);
    b.glsl(G::NClamp, ty, &[v, zero, one])
}

/// Runs `body` only where `cond` holds: a structured if without else, whose header names
/// its merge block as a join for the structurizer or, after it (`structured`), as the merge.
/// The code after it goes on in the merge block.
pub(crate) fn only_if(
    b: &mut FnBuilder<'_>,
    cond: Operand,
    structured: bool,
    body: impl FnOnce(&mut FnBuilder<'_>),
) {
    let then = b.new_block();
    let next: BlockId = b.new_block();
    let header = b.current();
    b.terminate(Terminator::CondBranch {
        cond,
        on_true: then,
        on_false: next,
    });
    if structured {
        b.f.block_mut(header).merge = Merge::Selection(next);
    } else {
        b.f.block_mut(header).join = Some(next);
    }
    b.begin(then);
    body(b);
    b.terminate(Terminator::Branch(next));
    b.begin(next);
}
