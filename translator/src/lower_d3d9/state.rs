//! D3D9 render state compiled into the module: reading a state item's words the way the
//! caller chose to deliver them (specialization constant, push constant or baked value,
//! `crate::d3d9_state`), listing each in the reflection, and the fixed-function stages that
//! use them — alpha test and fog after a pixel shader, point size and user clip planes after a
//! vertex shader. (Point sprites and flat shading are in `io`, projection, depth compare and
//! unbound samplers in `texture`/`ps1_tex`.) The formulas are documented in `docs/d3d9.md`.

use smallvec::SmallVec;
use spirv::{BuiltIn, Capability, Decoration, GlslStd450Op as G, Op, StorageClass};

use super::state_code::{self, PushBlock, StateCode};
use super::tail::{Tail, TailKind};
use super::{D9, R};
use crate::d3d9_state::{DeliveryRef, StateDelivery, StateItem};
use crate::ir::types::{Scalar, Type, TypeTable};
use crate::ir::{DecorationTarget, GlobalId, Operand, TypeId, ValueId};
use crate::lower::LowerError;
use crate::reflect::{D3d9StateEntry, InterfacePlacement, InterfaceVar};

#[derive(Debug, Default)]
pub(crate) struct StateLowering {
    /// The push block of the items delivered in push constants: the global and, per item,
    /// its member index (created at the first push read, with every pushed item).
    pub push: Option<PushBlock>,
    /// Items read so far with their resolved delivery (the reflection's list).
    pub read: Vec<D3d9StateEntry>,
    /// The `ClipDistance` output, once declared.
    clip: Option<GlobalId>,
}

impl<'p, 'm> D9<'p, 'm> {
    /// The caller's delivery of `item`, with table-derived spec IDs resolved.
    fn state_delivery(&self, item: StateItem) -> DeliveryRef<'p> {
        state_code::resolved_delivery(&self.state_table, item)
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
            if self.state.read.capacity() == 0 {
                // Room for what a program's state code reads (a vertex shader's six clip
                // planes, their enable mask and the point size's three items; fog's four...)
                // in one allocation: the list becomes the reflection's, so it cannot be kept.
                self.state.read.reserve(16);
            }
            self.state.read.push(D3d9StateEntry { item, delivery });
        }
    }

    /// A generator of state code into the function being lowered (the push block declared
    /// first when `item` is pushed).
    fn state_code(&mut self, item: StateItem) -> StateCode<'_, 'm> {
        if matches!(self.state_delivery(item), DeliveryRef::Push { .. }) {
            self.state_push_block();
        }
        StateCode {
            b: &mut self.b,
            table: &self.state_table,
            push: self.state.push.as_ref(),
            structured: false,
        }
    }

    /// The words of `item` (f32 or u32 operands by its word type), as delivered (never
    /// `Buffer`: the bump-environment buffer is read by `ps1_tex`).
    pub fn state_words(&mut self, item: StateItem) -> SmallVec<[Operand; 4]> {
        self.state_read(item);
        self.state_code(item).words(item)
    }

    /// The one word of a u32 flag item as a bool (`!= 0`).
    pub fn state_flag(&mut self, item: StateItem) -> Operand {
        self.state_read(item);
        self.state_code(item).flag(item)
    }

    /// Declares the push block, once: one `u32[words]` member per item the options push, at
    /// its offset.
    fn state_push_block(&mut self) {
        if self.state.push.is_some() {
            return;
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
        self.state.push = Some((g, members));
    }

    /// Declares what reading `items` needs (their reflection entries, the push block) in the
    /// order reading them would.
    fn state_declare(&mut self, items: &[StateItem]) {
        for &item in items {
            self.state_read(item);
            if matches!(self.state_delivery(item), DeliveryRef::Push { .. }) {
                self.state_push_block();
            }
        }
    }

    /// Whether the state code reading `items` can be made after the passes (`tail`): every
    /// item is a specialization or push constant, which no pass folds, and the code is at
    /// the program's end, outside flow control, in a block that returns.
    fn deferrable(&self, items: &[StateItem]) -> bool {
        self.flow.at_top_level()
            && items.iter().all(|&i| {
                matches!(
                    self.state_delivery(i),
                    DeliveryRef::Spec { .. } | DeliveryRef::Push { .. }
                )
            })
    }

    /// A placeholder for state code of `kind` made after the passes, with its operands
    /// (`first`: the first value made for it, see [`super::tail::Tail::first`]).
    fn defer(
        &mut self,
        kind: TailKind,
        first: ValueId,
        ty: TypeId,
        operands: &[Operand],
        globals: [Option<GlobalId>; 2],
    ) -> Operand {
        let index = self.tails.len() as u32;
        let mut args: crate::ir::Args = SmallVec::with_capacity(operands.len() + 24);
        args.push(Operand::Lit(index));
        args.extend_from_slice(operands);
        // The prebuilt code's operands: the module's types, constants and globals it names.
        let push = self.state.push.as_ref();
        let mut template = self
            .templates
            .get(kind, self.stage, &self.state_table, push);
        if let Some(t) = template {
            let g = [globals[0], globals[1], push.map(|p| p.0)];
            if self.templates.operands(t, self.b.m, g, &mut args).is_none() {
                args.truncate(1 + operands.len());
                template = None;
            }
        }
        let at = self.b.push(crate::ir::Inst::new(Op::Nop, ty, args));
        self.tails.push(Tail {
            kind,
            at,
            first,
            globals,
            template,
            spliced: false,
        });
        Operand::Value(at)
    }

    /// The next value the builder makes.
    fn next_value(&self) -> ValueId {
        ValueId(self.b.f.insts.len() as u32)
    }

    /// Runs `body` only where `cond` holds (a structured if without else) and demotes the
    /// invocation there (`texkill`, the alpha test).
    pub(super) fn demote_if(&mut self, cond: Operand) {
        let env = self.opts.target_env;
        let refl = &mut self.refl;
        state_code::only_if(&mut self.b, cond, false, |b| {
            crate::lower::demote(b, refl, env)
        });
    }

    /// Fixed-function fog (pixel shaders below 3.0) applied to the colour `c` (vec4).
    pub(super) fn apply_fog(&mut self, c: Operand) -> R<Operand> {
        if self.ver.major >= 3 || self.state_off(StateItem::FogMode) {
            return Ok(c);
        }
        const ITEMS: [StateItem; 4] = [
            StateItem::FogMode,
            StateItem::FogSource,
            StateItem::FogColour,
            StateItem::FogParams,
        ];
        self.state_declare(&ITEMS);
        let fog = self.fog_input();
        let frag_coord =
            self.builtin_input(0, BuiltIn::FragCoord, TypeId::VEC4, "state_frag_coord");
        if self.deferrable(&ITEMS) {
            let first = self.next_value();
            let parts = [0, 1, 2, 3].map(|k| self.b.extract(c, k));
            let ops = [c, parts[0], parts[1], parts[2], parts[3]];
            let globals = [Some(fog), Some(frag_coord)];
            return Ok(self.defer(TailKind::Fog, first, TypeId::VEC4, &ops, globals));
        }
        let mut code = StateCode {
            b: &mut self.b,
            table: &self.state_table,
            push: self.state.push.as_ref(),
            structured: false,
        };
        Ok(code.fog(c, |b, k| b.extract(c, k), fog, frag_coord))
    }

    /// The FOG varying (location of FOG0), a float input, declared once.
    fn fog_input(&mut self) -> GlobalId {
        let key = (0xFE, 0);
        if let Some(&g) = self.io.inputs.get(&key) {
            return g;
        }
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

    /// A built-in input of the pixel shader the state needs (FragCoord, PointCoord), declared
    /// once.
    fn builtin_input(&mut self, key: u16, bi: BuiltIn, ty: TypeId, name: &str) -> GlobalId {
        let key = (0xFD, key);
        if let Some(&g) = self.io.inputs.get(&key) {
            return g;
        }
        let g = self.b.m.add_global(ty, StorageClass::Input, None);
        let t = DecorationTarget::Global(g);
        self.b.m.decorate(t, Decoration::BuiltIn, &[bi as u32]);
        self.b.m.name(t, format_args!("{name}"));
        self.io.inputs.insert(key, g);
        g
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
        let g = self.builtin_input(1, BuiltIn::PointCoord, v2, "state_point_coord");
        let pc = self.b.op(Op::Load, v2, &[Operand::Global(g)]);
        let x = self.b.extract(pc, 0);
        let y = self.b.extract(pc, 1);
        let zero = self.b.f32c(0.0);
        let sprite = self.b.construct(&[x, y, zero, zero]);
        let on4 = self.bsplat4(on);
        self.b.op(Op::Select, TypeId::VEC4, &[on4, sprite, v])
    }

    /// Alpha test on the final colour `c` (after fog): the invocation is discarded unless
    /// c.a compares with the reference as the function says.
    pub(super) fn alpha_test(&mut self, c: Operand) -> R<()> {
        if self.state_off(StateItem::AlphaFunc) {
            return Ok(());
        }
        const ITEMS: [StateItem; 2] = [StateItem::AlphaFunc, StateItem::AlphaRef];
        self.state_declare(&ITEMS);
        if self.deferrable(&ITEMS) {
            crate::lower::declare_demote(self.b.m, self.refl, self.opts.target_env);
            let first = self.next_value();
            let a = self.b.extract(c, 3);
            self.defer(TailKind::AlphaTest, first, TypeId::VOID, &[a], [None; 2]);
            return Ok(());
        }
        let env = self.opts.target_env;
        let refl = &mut self.refl;
        let mut code = StateCode {
            b: &mut self.b,
            table: &self.state_table,
            push: self.state.push.as_ref(),
            structured: false,
        };
        code.alpha_test(|b| b.extract(c, 3), |b| crate::lower::demote(b, refl, env));
        Ok(())
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
        const ITEMS: [StateItem; 2] = [StateItem::ClipPlaneMask, StateItem::ClipPlanes];
        self.state_declare(&ITEMS);
        let g = self.clip_distance();
        if self.deferrable(&ITEMS) {
            let first = self.next_value();
            self.defer(
                TailKind::ClipPlanes,
                first,
                TypeId::VOID,
                &[pos],
                [Some(g), None],
            );
            return Ok(());
        }
        let mut code = StateCode {
            b: &mut self.b,
            table: &self.state_table,
            push: self.state.push.as_ref(),
            structured: false,
        };
        code.clip_planes(pos, g);
        Ok(())
    }

    /// The `ClipDistance[6]` output, declared once.
    fn clip_distance(&mut self) -> GlobalId {
        if let Some(g) = self.state.clip {
            return g;
        }
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
}
