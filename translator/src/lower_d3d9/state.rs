//! D3D9 render state compiled into the module: reading a state item's words the way the
//! caller chose to deliver them (specialization constant, push constant or baked value,
//! `crate::d3d9_state`), listing each in the reflection, and the fixed-function stages that
//! use them — alpha test and fog after a pixel shader, point size and user clip planes after a
//! vertex shader. (Point sprites and flat shading are in `io`, projection, depth compare and
//! unbound samplers in `texture`/`ps1_tex`.) The formulas are documented in `docs/d3d9.md`.

use spirv::{BuiltIn, Capability, Decoration, GlslStd450Op as G, Op, StorageClass};

use super::{D9, R};
use smallvec::SmallVec;

use crate::d3d9_state::{DeliveryRef, StateDelivery, StateItem, WordType};
use crate::ir::types::{Scalar, Type, TypeTable};
use crate::ir::{DecorationTarget, GlobalId, Operand, Terminator, TypeId};
use crate::lower::LowerError;
use crate::reflect::{D3d9StateEntry, InterfacePlacement, InterfaceVar};

#[derive(Debug, Default)]
pub(crate) struct StateLowering {
    /// The push block of the items delivered in push constants: the global and, per item,
    /// its member index (created at the first push read, with every pushed item).
    push: Option<(GlobalId, Vec<(StateItem, u32)>)>,
    /// Items read so far with their resolved delivery (the reflection's list).
    pub read: Vec<D3d9StateEntry>,
    /// The `ClipDistance` output, once declared.
    clip: Option<GlobalId>,
}

impl<'p, 'm> D9<'p, 'm> {
    /// The caller's delivery of `item`, with table-derived spec IDs resolved.
    fn state_delivery(&self, item: StateItem) -> DeliveryRef<'p> {
        match self.state_table.delivery(item) {
            DeliveryRef::Spec { first_id: None } => DeliveryRef::Spec {
                first_id: Some(self.state_table.spec_id_base() + item.spec_slot()),
            },
            d => d,
        }
    }

    /// Whether the caller's delivery of `item` is the bump-environment buffer.
    pub fn state_in_buffer(&self, item: StateItem) -> bool {
        self.state_table.delivery(item) == DeliveryRef::Buffer
    }

    /// The item's baked words, when it is baked.
    pub fn state_baked(&self, item: StateItem) -> Option<&'p [u32]> {
        match self.state_table.delivery(item) {
            DeliveryRef::Baked { words } => Some(words),
            _ => None,
        }
    }

    /// Whether the item is baked to D3D9's initial state (no code needed for it).
    pub fn state_off(&self, item: StateItem) -> bool {
        self.state_baked(item)
            .is_some_and(|w| w == item.default_words())
    }

    /// Checks the caller's state choices before lowering.
    pub(super) fn check_state(&self) -> R<()> {
        self.opts
            .d3d9
            .state
            .check()
            .map_err(|e| LowerError::invalid(0, e))
    }

    /// Records that the module reads `item` (the reflection's list).
    pub fn state_read(&mut self, item: StateItem) {
        if !self.state.read.iter().any(|e| e.item == item) {
            let delivery = self.state_delivery(item).to_owned();
            self.state.read.push(D3d9StateEntry { item, delivery });
        }
    }

    /// The words of `item` (f32 or u32 operands by its word type), as delivered (never
    /// `Buffer`: the bump-environment buffer is read by `ps1_tex`).
    pub fn state_words(&mut self, item: StateItem) -> SmallVec<[Operand; 4]> {
        let d = self.state_delivery(item);
        self.state_read(item);
        let ty = match item.word_type() {
            WordType::F32 => TypeId::F32,
            WordType::U32 => TypeId::U32,
        };
        let defaults = item.default_words();
        match d {
            DeliveryRef::Baked { words } => words
                .iter()
                .map(|&w| match item.word_type() {
                    WordType::F32 => self.b.f32c(f32::from_bits(w)),
                    WordType::U32 => self.b.u32c(w),
                })
                .collect(),
            DeliveryRef::Spec { first_id } => {
                let first = first_id.unwrap_or(0);
                (0..item.words())
                    .map(|k| {
                        let c =
                            self.b
                                .m
                                .consts
                                .spec(ty, first + k, u64::from(defaults[k as usize]));
                        Operand::Const(c)
                    })
                    .collect()
            }
            DeliveryRef::Push { .. } => {
                let (g, members) = self.state_push_block();
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
    pub fn state_flag(&mut self, item: StateItem) -> Operand {
        let w = self.state_words(item)[0];
        let zero = self.b.u32c(0);
        self.b.op(Op::INotEqual, TypeId::BOOL, &[w, zero])
    }

    /// The push block: one `u32[words]` member per item the options push, at its offset.
    fn state_push_block(&mut self) -> (GlobalId, Vec<(StateItem, u32)>) {
        if let Some(p) = &self.state.push {
            return p.clone();
        }
        let mut pushed: Vec<(u32, StateItem)> = self
            .opts
            .d3d9
            .state
            .items
            .iter()
            .filter_map(|(i, d)| match d {
                StateDelivery::Push { offset } => Some((*offset, *i)),
                _ => None,
            })
            .collect();
        pushed.sort();
        pushed.dedup_by_key(|p| p.1);
        let mut types = Vec::new();
        for &(_, item) in &pushed {
            let len = self.b.m.consts.u32(item.words());
            types.push(self.b.m.types.intern(Type::Array {
                elem: TypeId::U32,
                len,
                stride: Some(4),
            }));
        }
        let st = self.b.m.types.new_struct(types);
        self.b
            .m
            .decorate(DecorationTarget::Type(st), Decoration::Block, &[]);
        let mut members = Vec::new();
        for (i, &(offset, item)) in pushed.iter().enumerate() {
            self.b.m.decorate(
                DecorationTarget::Member(st, i as u32),
                Decoration::Offset,
                &[offset],
            );
            members.push((item, i as u32));
        }
        let g = self.b.m.add_global(st, StorageClass::PushConstant, None);
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("d3d9_state"));
        self.state.push = Some((g, members.clone()));
        (g, members)
    }

    /// Runs `body` only where `cond` holds (a structured if without else).
    pub(super) fn only_if(
        &mut self,
        cond: Operand,
        body: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<()> {
        let then = self.b.new_block();
        let next = self.b.new_block();
        let header = self.b.current();
        self.b.terminate(Terminator::CondBranch {
            cond,
            on_true: then,
            on_false: next,
        });
        self.b.f.block_mut(header).join = Some(next);
        self.b.begin(then);
        body(self)?;
        self.b.terminate(Terminator::Branch(next));
        self.b.begin(next);
        Ok(())
    }

    /// Fixed-function fog (pixel shaders below 3.0) applied to the colour `c` (vec4): the
    /// colour's rgb blends towards the fog colour by the factor f (1 = no fog), alpha kept.
    pub(super) fn apply_fog(&mut self, c: Operand) -> R<Operand> {
        if self.ver.major >= 3 || self.state_off(StateItem::FogMode) {
            return Ok(c);
        }
        let mode = self.state_words(StateItem::FogMode)[0];
        let source = self.state_words(StateItem::FogSource)[0];
        let col = self.state_words(StateItem::FogColour);
        let p = self.state_words(StateItem::FogParams);
        let (start, end, density) = (p[0], p[1], p[2]);
        // Vertex fog: the FOG varying is the factor.
        let vf = self.fog_input();
        // Table fog: from the fragment's z or w (FragCoord.w is 1/w).
        let fc = self.frag_coord();
        let z = self.b.extract(fc, 2);
        let rw = self.b.extract(fc, 3);
        let one = self.b.f32c(1.0);
        let w = self.b.op(Op::FDiv, TypeId::F32, &[one, rw]);
        let zero_u = self.b.u32c(0);
        let use_z = self.b.op(Op::IEqual, TypeId::BOOL, &[source, zero_u]);
        let d = self.b.op(Op::Select, TypeId::F32, &[use_z, z, w]);
        let e_minus_d = self.b.op(Op::FSub, TypeId::F32, &[end, d]);
        let e_minus_s = self.b.op(Op::FSub, TypeId::F32, &[end, start]);
        let linear = self.b.op(Op::FDiv, TypeId::F32, &[e_minus_d, e_minus_s]);
        let dd = self.b.op(Op::FMul, TypeId::F32, &[density, d]);
        let neg = self.b.op(Op::FNegate, TypeId::F32, &[dd]);
        let exp = self.b.glsl(G::Exp, TypeId::F32, &[neg]);
        let sq = self.b.op(Op::FMul, TypeId::F32, &[dd, dd]);
        let negsq = self.b.op(Op::FNegate, TypeId::F32, &[sq]);
        let exp2 = self.b.glsl(G::Exp, TypeId::F32, &[negsq]);
        let mut f = linear;
        for (k, v) in [(3u32, exp2), (2, exp), (1, vf)] {
            let kc = self.b.u32c(k);
            let is = self.b.op(Op::IEqual, TypeId::BOOL, &[mode, kc]);
            f = self.b.op(Op::Select, TypeId::F32, &[is, v, f]);
        }
        // Clamped to [0, 1], NaN → 1 (no fog).
        let nan = self.b.op(Op::IsNan, TypeId::BOOL, &[f]);
        let f = self.b.op(Op::Select, TypeId::F32, &[nan, one, f]);
        let f = self.saturate(f);
        let mut parts = Vec::new();
        for (k, &fogc) in col.iter().enumerate().take(3) {
            let x = self.b.extract(c, k as u8);
            let mixed = self.b.glsl(G::FMix, TypeId::F32, &[fogc, x, f]);
            parts.push(mixed);
        }
        parts.push(self.b.extract(c, 3));
        let fogged = self.b.construct(&parts);
        let off = self.b.op(Op::IEqual, TypeId::BOOL, &[mode, zero_u]);
        let off4 = self.bsplat4(off);
        Ok(self.b.op(Op::Select, TypeId::VEC4, &[off4, c, fogged]))
    }

    /// The FOG varying (location of FOG0), a float.
    fn fog_input(&mut self) -> Operand {
        let key = (0xFE, 0);
        let g = match self.io.inputs.get(&key) {
            Some(&g) => g,
            None => {
                let loc = self.varying_location(crate::d3dbc::Usage::Fog, 0);
                let g = self.b.m.add_global(TypeId::F32, StorageClass::Input, None);
                let t = DecorationTarget::Global(g);
                self.b.m.decorate(t, Decoration::Location, &[loc]);
                self.b.m.name(t, format_args!("FOG0"));
                self.refl.inputs.push(InterfaceVar {
                    semantic_name: "FOG".into(),
                    semantic_index: 0,
                    register: None,
                    mask: 1,
                    component_type: crate::reflect::ComponentType::Float,
                    placement: InterfacePlacement::Location {
                        location: loc,
                        component: 0,
                    },
                });
                self.refl_globals.inputs.push(g);
                self.io.inputs.insert(key, g);
                g
            }
        };
        self.b.op(Op::Load, TypeId::F32, &[Operand::Global(g)])
    }

    /// A built-in input of the pixel shader the state needs (FragCoord, PointCoord), shared.
    fn builtin_input(&mut self, key: u16, bi: BuiltIn, ty: TypeId, name: &str) -> Operand {
        let key = (0xFD, key);
        let g = match self.io.inputs.get(&key) {
            Some(&g) => g,
            None => {
                let g = self.b.m.add_global(ty, StorageClass::Input, None);
                let t = DecorationTarget::Global(g);
                self.b.m.decorate(t, Decoration::BuiltIn, &[bi as u32]);
                self.b.m.name(t, format_args!("{name}"));
                self.io.inputs.insert(key, g);
                g
            }
        };
        self.b.op(Op::Load, ty, &[Operand::Global(g)])
    }

    fn frag_coord(&mut self) -> Operand {
        self.builtin_input(0, BuiltIn::FragCoord, TypeId::VEC4, "state_frag_coord")
    }

    /// Point sprites: a TEXCOORD input `v` becomes (PointCoord.x, PointCoord.y, 0, 0) when the
    /// state says so.
    pub(super) fn point_sprite(&mut self, v: Operand) -> Operand {
        if self.stage != crate::reflect::ShaderStage::Pixel
            || self.state_off(StateItem::PointSprite)
        {
            return v;
        }
        let on = self.state_flag(StateItem::PointSprite);
        let v2 = TypeTable::vec(Scalar::F32, 2);
        let pc = self.builtin_input(1, BuiltIn::PointCoord, v2, "state_point_coord");
        let x = self.b.extract(pc, 0);
        let y = self.b.extract(pc, 1);
        let zero = self.b.f32c(0.0);
        let sprite = self.b.construct(&[x, y, zero, zero]);
        let on4 = self.bsplat4(on);
        self.b.op(Op::Select, TypeId::VEC4, &[on4, sprite, v])
    }

    /// Alpha test on the final colour `c` (after fog): the invocation is discarded unless
    /// c.a, unclamped (a float target keeps alpha past 1), compares with the reference as
    /// the function says; a NaN passes `not equal` and `always` only.
    pub(super) fn alpha_test(&mut self, c: Operand) -> R<()> {
        if self.state_off(StateItem::AlphaFunc) {
            return Ok(());
        }
        let func = self.state_words(StateItem::AlphaFunc)[0];
        let r = self.state_words(StateItem::AlphaRef)[0];
        let a = self.b.extract(c, 3);
        // D3DCMPFUNC − 1 is a mask: bit 0 less, bit 1 equal, bit 2 greater.
        let mut bits = self.b.u32c(0);
        for (k, op) in [
            (1u32, Op::FOrdLessThan),
            (2, Op::FOrdEqual),
            (4, Op::FOrdGreaterThan),
        ] {
            let t = self.b.op(op, TypeId::BOOL, &[a, r]);
            let kc = self.b.u32c(k);
            let zero = self.b.u32c(0);
            let v = self.b.op(Op::Select, TypeId::U32, &[t, kc, zero]);
            bits = self.b.op(Op::BitwiseOr, TypeId::U32, &[bits, v]);
        }
        let one = self.b.u32c(1);
        let mask = self.b.op(Op::ISub, TypeId::U32, &[func, one]);
        let hit = self.b.op(Op::BitwiseAnd, TypeId::U32, &[bits, mask]);
        let zero = self.b.u32c(0);
        let miss = self.b.op(Op::IEqual, TypeId::BOOL, &[hit, zero]);
        // A NaN alpha or reference compares unordered (no bit set): it passes only the
        // functions that hold for unordered values, not-equal (mask 5) and always (mask 7).
        let unordered = self.b.op(Op::IEqual, TypeId::BOOL, &[bits, zero]);
        let five = self.b.u32c(5);
        let ne = self.b.op(Op::BitwiseAnd, TypeId::U32, &[mask, five]);
        let ne = self.b.op(Op::IEqual, TypeId::BOOL, &[ne, five]);
        let nan_pass = self.b.op(Op::LogicalAnd, TypeId::BOOL, &[unordered, ne]);
        let pass = self.b.op(Op::LogicalNot, TypeId::BOOL, &[nan_pass]);
        let fail = self.b.op(Op::LogicalAnd, TypeId::BOOL, &[miss, pass]);
        self.only_if(fail, |l| {
            l.demote();
            Ok(())
        })
    }

    /// Whether the vertex shader writes `PointSize` from the state (besides `oPts`).
    pub(super) fn wants_point_size(&self) -> bool {
        !self.state_off(StateItem::PointSize)
    }

    /// The point size: `written` (oPts) or the state's size, clamped to [min, max].
    pub(super) fn point_size(&mut self, written: Option<Operand>) -> Operand {
        let p = self.state_words(StateItem::PointSize);
        let s = written.unwrap_or(p[0]);
        self.b.glsl(G::FClamp, TypeId::F32, &[s, p[1], p[2]])
    }

    /// User clip planes: ClipDistance[i] = dot(pos, plane i) for each enabled plane, else 0.
    pub(super) fn clip_planes(&mut self, pos: Operand) -> R<()> {
        if self.stage != crate::reflect::ShaderStage::Vertex
            || self.state_off(StateItem::ClipPlaneMask)
        {
            return Ok(());
        }
        let mask = self.state_words(StateItem::ClipPlaneMask)[0];
        let planes = self.state_words(StateItem::ClipPlanes);
        let g = match self.state.clip {
            Some(g) => g,
            None => {
                let six = self.b.m.consts.u32(6);
                let ty = self.b.m.types.intern(Type::Array {
                    elem: TypeId::F32,
                    len: six,
                    stride: None,
                });
                let g = self.b.m.add_global(ty, StorageClass::Output, None);
                let t = DecorationTarget::Global(g);
                self.b
                    .m
                    .decorate(t, Decoration::BuiltIn, &[BuiltIn::ClipDistance as u32]);
                self.b.m.name(t, format_args!("clip_distance"));
                self.b.m.capability(Capability::ClipDistance);
                self.need_feature("shaderClipDistance");
                self.refl.outputs.push(InterfaceVar {
                    semantic_name: "CLIPDISTANCE".into(),
                    semantic_index: 0,
                    register: None,
                    mask: 0,
                    component_type: crate::reflect::ComponentType::Float,
                    placement: InterfacePlacement::BuiltIn {
                        builtin: "ClipDistance".into(),
                    },
                });
                self.refl_globals.outputs.push(g);
                self.state.clip = Some(g);
                g
            }
        };
        let ptr = self.b.m.types.pointer(StorageClass::Output, TypeId::F32);
        let zero = self.b.f32c(0.0);
        let zero_u = self.b.u32c(0);
        for i in 0..6u32 {
            let plane = self
                .b
                .construct(&planes[4 * i as usize..4 * i as usize + 4]);
            let d = self.b.op(Op::Dot, TypeId::F32, &[pos, plane]);
            let bit = self.b.u32c(1 << i);
            let on = self.b.op(Op::BitwiseAnd, TypeId::U32, &[mask, bit]);
            let on = self.b.op(Op::INotEqual, TypeId::BOOL, &[on, zero_u]);
            let v = self.b.op(Op::Select, TypeId::F32, &[on, d, zero]);
            let idx = self.b.u32c(i);
            let p = self.b.op(Op::AccessChain, ptr, &[Operand::Global(g), idx]);
            self.b.op_void(Op::Store, &[p, v]);
        }
        Ok(())
    }
}
