//! Stage inputs and outputs of D3D9 programs: which Vulkan location or built-in each register
//! and semantic gets, the values of outputs the program never writes, and the stores at every
//! return.
//!
//! D3D9 links a vertex and a pixel shader by semantic (usage, index), and the shaders are
//! translated independently, so the location of a varying must be a function of its semantic
//! alone: [`default_location`] is that function (documented in `docs/d3d9.md`), and
//! `Options::d3d9.varying_locations` lets the caller give its own. Vertex inputs take the
//! location of their `v#` register (vertex declarations bind streams by register). Before
//! vs_3_0/ps_3_0 the registers themselves name the semantic: `oT#`/`t#` TEXCOORD#, `oD#`/`v#`
//! (ps) COLOR#, `oFog` FOG0.

use crate::rules::d3d9::D3d9Rule;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use spirv::{BuiltIn, Decoration, Op, StorageClass};

use super::{D9, R};
use crate::d3dbc::{Register, RegisterType as RT, Usage};
use crate::ir::{DecorationTarget, GlobalId, Operand, TypeId};
use crate::reflect::{ComponentType, InterfacePlacement, InterfaceVar, Name, ShaderStage};

/// Where a varying of semantic (`usage`, `index`) goes when the caller gives no map:
/// TEXCOORD0–7 → 0–7, COLOR0–1 → 8–9, FOG0 → 10, NORMAL0 → 11, TANGENT0 → 12, BINORMAL0 → 13,
/// BLENDWEIGHT0 → 14, BLENDINDICES0 → 15, and every other pair 16 + 16 × usage + index.
pub fn default_location(usage: Usage, index: u8) -> u32 {
    let index = u32::from(index);
    match (usage, index) {
        (Usage::TexCoord, 0..=7) => index,
        (Usage::Color, 0..=1) => 8 + index,
        (Usage::Fog, 0) => 10,
        (Usage::Normal, 0) => 11,
        (Usage::Tangent, 0) => 12,
        (Usage::Binormal, 0) => 13,
        (Usage::BlendWeight, 0) => 14,
        (Usage::BlendIndices, 0) => 15,
        (u, i) => 16 + 16 * u as u32 + i,
    }
}

/// The semantic name of a usage as D3D writes it (`TEXCOORD`).
pub fn usage_name(u: Usage) -> Name {
    Name::Borrowed(u.semantic())
}

/// How an output register is stored at a return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutKind {
    /// The four components, clamped to [0, 1] when `saturate`.
    Vec4 { saturate: bool },
    /// Component x only (oFog, oDepth), clamped to [0, 1] when `saturate`.
    Scalar { saturate: bool },
    /// `PointSize`: oPts when the program writes it, else the state's size, clamped to the
    /// state's [min, max].
    PointSize,
    /// `Position`, which the user clip planes also read.
    Position,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct OutSlot {
    /// The register whose variables hold the value.
    pub reg: (RT, u16),
    pub global: GlobalId,
    pub kind: OutKind,
}

#[derive(Debug, Default)]
pub(crate) struct IoState {
    /// Input globals (vec4 f32) by key: the semantic for varyings, the register for vertex
    /// inputs and built-ins.
    pub inputs: HashMap<(u8, u16), GlobalId>,
    pub outputs: Vec<OutSlot>,
    /// Output registers by semantic (vs_3_0 `dcl` of `o#`).
    pub declared_outputs: Vec<(RT, u16)>,
}

/// The key under which the builder keeps a texture coordinate input after the point-sprite
/// state code (its load is row 0).
const SPRITE_VIEW: Operand = Operand::Lit(u32::MAX);

impl IoState {
    /// Empty, with the allocations kept (for the next program).
    pub fn clear(&mut self) {
        self.inputs.clear();
        self.outputs.clear();
        self.declared_outputs.clear();
    }
}

impl<'p, 'm> D9<'p, 'm> {
    /// The location of varying (`usage`, `index`): the caller's map, else the default.
    pub fn varying_location(&self, usage: Usage, index: u8) -> u32 {
        self.opts
            .d3d9
            .varying_locations
            .iter()
            .find(|v| v.usage == usage && v.index == index)
            .map_or_else(|| default_location(usage, index), |v| v.location)
    }

    /// An interface variable at `location` (or built-in), recorded in the reflection.
    #[allow(clippy::too_many_arguments)]
    fn interface_global(
        &mut self,
        output: bool,
        ty: TypeId,
        name: Name,
        index: u32,
        register: Option<u32>,
        mask: u8,
        place: Result<u32, BuiltIn>,
        centroid: bool,
    ) -> GlobalId {
        let storage = if output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        let g = self.b.m.add_global(ty, storage, None);
        let t = DecorationTarget::Global(g);
        let placement = match place {
            Ok(loc) => {
                self.b.m.decorate(t, Decoration::Location, &[loc]);
                InterfacePlacement::Location {
                    location: loc,
                    component: 0,
                }
            }
            Err(bi) => {
                self.b.m.decorate(t, Decoration::BuiltIn, &[bi as u32]);
                InterfacePlacement::BuiltIn {
                    builtin: crate::reflect::names::builtin(bi),
                }
            }
        };
        if centroid && !output && self.stage == ShaderStage::Pixel {
            self.b.m.decorate(t, Decoration::Centroid, &[]);
        }
        self.b.m.name(t, format_args!("{name}{index}"));
        let var = InterfaceVar {
            semantic_name: name,
            semantic_index: index,
            register,
            mask,
            component_type: ComponentType::Float,
            placement,
        };
        if output {
            self.refl.outputs.push(var);
            self.refl_globals.outputs.push(g);
        } else {
            self.refl.inputs.push(var);
            self.refl_globals.inputs.push(g);
        }
        g
    }

    /// The vec4 value of a varying input of semantic (`usage`, `index`).
    fn varying_input(
        &mut self,
        usage: Usage,
        index: u8,
        reg: Register,
        mask: u8,
        centroid: bool,
    ) -> Operand {
        let key = (usage as u8 + 1, u16::from(index));
        let g = match self.io.inputs.get(&key) {
            Some(&g) => g,
            None => {
                let loc = self.varying_location(usage, index);
                let g = self.interface_global(
                    false,
                    TypeId::VEC4,
                    usage_name(usage),
                    index.into(),
                    Some(reg.num.into()),
                    mask,
                    Ok(loc),
                    centroid,
                );
                if usage == Usage::Color && self.stage == ShaderStage::Pixel {
                    self.flat_shading(g);
                }
                self.io.inputs.insert(key, g);
                g
            }
        };
        if usage != Usage::TexCoord {
            return self.load_input(g, TypeId::VEC4);
        }
        // The coordinate as point sprites leave it, made once per block like the load.
        if let Some(v) = self.b.cached_row(g, SPRITE_VIEW) {
            return v;
        }
        let v = self.load_input(g, TypeId::VEC4);
        let v = self.point_sprite(v);
        self.b.remember_row(g, SPRITE_VIEW, v);
        v
    }

    /// D3DRS_SHADEMODE flat (baked only): a colour input gets `Flat`.
    fn flat_shading(&mut self, g: GlobalId) {
        use crate::d3d9_state::StateItem;
        let flat = self.state_words(StateItem::FlatShading);
        if self
            .state_baked(StateItem::FlatShading)
            .is_some_and(|w| w.first().is_some_and(|&x| x != 0))
        {
            self.b
                .m
                .decorate(DecorationTarget::Global(g), Decoration::Flat, &[]);
        }
        let _ = flat;
    }

    fn load_input(&mut self, g: GlobalId, ty: TypeId) -> Operand {
        self.b.read_only_row(g, Operand::Lit(0), |b| {
            b.op(Op::Load, ty, &[Operand::Global(g)])
        })
    }

    /// The semantic a `dcl` gives register `reg`, if any (all of them, for a register that
    /// holds several).
    fn semantics_of(&self, reg: Register) -> SmallVec<[super::decls::Semantic; 2]> {
        self.decl
            .semantics
            .iter()
            .filter(|s| s.reg.ty == reg.ty && s.reg.num == reg.num)
            .copied()
            .collect()
    }

    /// The vec4 value of texture coordinate input `n` (ps_1_x `t#`, ps_2_x `t#`).
    pub fn texcoord_input(&mut self, n: u16) -> Operand {
        let reg = Register {
            ty: RT::AddrOrTexture,
            num: n,
        };
        let (mask, centroid) = self
            .semantics_of(reg)
            .first()
            .map_or((0xF, false), |s| (s.mask, s.centroid));
        self.varying_input(Usage::TexCoord, n.min(15) as u8, reg, mask, centroid)
    }

    /// The vec4 value of input register `v#` (or of a ps_3_0 input holding several
    /// semantics: each semantic's components where its `dcl` mask puts them).
    pub fn input_register(&mut self, num: u16) -> R<Operand> {
        let reg = Register { ty: RT::Input, num };
        let sems = self.semantics_of(reg);
        match self.stage {
            ShaderStage::Vertex => {
                let key = (0, num);
                let g = match self.io.inputs.get(&key) {
                    Some(&g) => g,
                    None => {
                        // D3D8 vertex shaders declare nothing: the register is the location.
                        let (name, index, mask) = sems
                            .first()
                            .map_or((Name::Borrowed("UNDECLARED"), u32::from(num), 0xF), |s| {
                                (usage_name(s.usage), s.index.into(), s.mask)
                            });
                        let g = self.interface_global(
                            false,
                            TypeId::VEC4,
                            name,
                            index,
                            Some(num.into()),
                            mask,
                            Ok(num.into()),
                            false,
                        );
                        self.io.inputs.insert(key, g);
                        g
                    }
                };
                Ok(self.load_input(g, TypeId::VEC4))
            }
            _ if self.ver.major < 3 => {
                // ps_1_x/2_x: v0, v1 are the diffuse and specular colours.
                let (mask, centroid) = sems.first().map_or((0xF, false), |s| (s.mask, s.centroid));
                Ok(self.varying_input(Usage::Color, num.min(15) as u8, reg, mask, centroid))
            }
            _ => {
                if sems.is_empty() {
                    return Err(self
                        .invalid(format!("input v{num} is read but not declared"))
                        .with_rule(D3d9Rule::InputDeclared.name()));
                }
                if sems.len() == 1 {
                    let s = sems[0];
                    return Ok(self.varying_input(s.usage, s.index, reg, s.mask, s.centroid));
                }
                let mut parts = [None; 4];
                for s in &sems {
                    let v = self.varying_input(s.usage, s.index, reg, s.mask, s.centroid);
                    for (c, part) in parts.iter_mut().enumerate() {
                        if s.mask & (1 << c) != 0 && part.is_none() {
                            *part = Some(self.b.extract(v, c as u8));
                        }
                    }
                }
                let zero = self.b.f32c(0.0);
                let parts = parts.map(|p| p.unwrap_or(zero));
                Ok(self.b.construct(&parts))
            }
        }
    }

    /// `vPos` (0) or `vFace` (1) as a vec4.
    pub fn misc_input(&mut self, num: u16) -> R<Operand> {
        if self.stage != ShaderStage::Pixel {
            return Err(self.invalid("vPos/vFace outside a pixel shader"));
        }
        let key = (0xFF, num);
        match num {
            0 => {
                let g = match self.io.inputs.get(&key) {
                    Some(&g) => g,
                    None => {
                        let g = self.interface_global(
                            false,
                            TypeId::VEC4,
                            "VPOS".into(),
                            0,
                            None,
                            0x3,
                            Err(BuiltIn::FragCoord),
                            false,
                        );
                        self.io.inputs.insert(key, g);
                        g
                    }
                };
                // D3D9 pixel centres are integers: vPos is FragCoord − 0.5.
                let fc = self.load_input(g, TypeId::VEC4);
                let half = self.b.f32c(0.5);
                let zero = self.b.f32c(0.0);
                let off = self.b.construct(&[half, half, zero, zero]);
                Ok(self.b.op(Op::FSub, TypeId::VEC4, &[fc, off]))
            }
            1 => {
                let g = match self.io.inputs.get(&key) {
                    Some(&g) => g,
                    None => {
                        let g = self.interface_global(
                            false,
                            TypeId::BOOL,
                            "VFACE".into(),
                            0,
                            None,
                            0x1,
                            Err(BuiltIn::FrontFacing),
                            false,
                        );
                        self.io.inputs.insert(key, g);
                        g
                    }
                };
                let front = self.load_input(g, TypeId::BOOL);
                let one = self.b.f32c(1.0);
                let minus = self.b.f32c(-1.0);
                let f = self.b.op(Op::Select, TypeId::F32, &[front, one, minus]);
                Ok(self.b.construct(&[f, f, f, f]))
            }
            _ => Err(self.invalid(format!("misc register {num} (only vPos and vFace exist)"))),
        }
    }

    /// Declares the outputs: from register use before 3.0, from `dcl` in vs_3_0.
    pub(super) fn declare_outputs(&mut self) -> R<()> {
        let written: SmallVec<[(RT, u16); 16]> = self.decl.written.iter().copied().collect();
        let vs = self.stage == ShaderStage::Vertex;
        if vs && self.ver.major >= 3 {
            let sems: Vec<_> = self
                .decl
                .semantics
                .iter()
                .filter(|s| s.reg.ty == RT::Output)
                .copied()
                .collect();
            for s in &sems {
                let reg = (RT::Output, s.reg.num);
                let (place, kind, ty) = match (s.usage, s.index) {
                    (Usage::Position, 0) => {
                        (Err(BuiltIn::Position), OutKind::Position, TypeId::VEC4)
                    }
                    (Usage::PSize, 0) => (Err(BuiltIn::PointSize), OutKind::PointSize, TypeId::F32),
                    (u, i) => (
                        Ok(self.varying_location(u, i)),
                        OutKind::Vec4 { saturate: false },
                        TypeId::VEC4,
                    ),
                };
                if self.refl.outputs.iter().any(|o| {
                    o.semantic_name == usage_name(s.usage) && o.semantic_index == u32::from(s.index)
                }) {
                    self.offset = 0;
                    return Err(self.invalid(format!(
                        "output semantic {}{} declared twice",
                        usage_name(s.usage),
                        s.index
                    )));
                }
                let g = self.interface_global(
                    true,
                    ty,
                    usage_name(s.usage),
                    s.index.into(),
                    Some(s.reg.num.into()),
                    s.mask,
                    place,
                    false,
                );
                self.io.outputs.push(OutSlot {
                    reg,
                    global: g,
                    kind,
                });
                self.io.declared_outputs.push(reg);
            }
            if !sems.iter().any(|s| s.usage == Usage::PSize && s.index == 0) {
                self.state_point_size_output(RT::Output, u16::MAX);
            }
            if let Some(&(_, n)) = written
                .iter()
                .find(|r| r.0 == RT::Output && !self.io.declared_outputs.contains(r))
            {
                return Err(crate::lower::LowerError::invalid(
                    self.first_write_offset(RT::Output, n),
                    format!("output o{n} is written but not declared"),
                )
                .with_rule(D3d9Rule::OutputDeclared.name()));
            }
            return Ok(());
        }
        for &(ty, num) in &written {
            let slot = match (vs, ty) {
                (true, RT::RastOut) => match num {
                    0 => Some((
                        "POSITION",
                        0,
                        Err(BuiltIn::Position),
                        OutKind::Position,
                        TypeId::VEC4,
                    )),
                    1 => Some((
                        "FOG",
                        0,
                        Ok(self.varying_location(Usage::Fog, 0)),
                        OutKind::Scalar { saturate: true },
                        TypeId::F32,
                    )),
                    2 => Some((
                        "PSIZE",
                        0,
                        Err(BuiltIn::PointSize),
                        OutKind::PointSize,
                        TypeId::F32,
                    )),
                    _ => None,
                },
                // vs < 3.0 colours are clamped to [0, 1].
                (true, RT::AttrOut) => Some((
                    "COLOR",
                    num.into(),
                    Ok(self.varying_location(Usage::Color, num.min(15) as u8)),
                    OutKind::Vec4 { saturate: true },
                    TypeId::VEC4,
                )),
                (true, RT::Output) => Some((
                    "TEXCOORD",
                    num.into(),
                    Ok(self.varying_location(Usage::TexCoord, num.min(15) as u8)),
                    OutKind::Vec4 { saturate: false },
                    TypeId::VEC4,
                )),
                (false, RT::ColorOut) => Some((
                    "COLOR",
                    num.into(),
                    Ok(u32::from(num)),
                    OutKind::Vec4 { saturate: false },
                    TypeId::VEC4,
                )),
                (false, RT::DepthOut) => Some((
                    "DEPTH",
                    0,
                    Err(BuiltIn::FragDepth),
                    OutKind::Scalar { saturate: true },
                    TypeId::F32,
                )),
                _ => None,
            };
            let Some((name, index, mut place, kind, gty)) = slot else {
                continue;
            };
            // Render targets: dual-source blending's locations and indices.
            let mut blend_index = None;
            if !vs && ty == RT::ColorOut {
                let Some((loc, i)) = self.opts.render_target_location(num.into()) else {
                    // Dual-source blending writes oC0 and oC1 only.
                    continue;
                };
                (place, blend_index) = (Ok(loc), i);
            }
            if place == Err(BuiltIn::FragDepth) {
                self.b
                    .m
                    .execution_mode(spirv::ExecutionMode::DepthReplacing, &[]);
            }
            let g = self.interface_global(
                true,
                gty,
                Name::Borrowed(name),
                index,
                Some(num.into()),
                if gty == TypeId::F32 { 1 } else { 0xF },
                place,
                false,
            );
            if let Some(i) = blend_index {
                let t = DecorationTarget::Global(g);
                self.b.m.decorate(t, Decoration::Index, &[i]);
                if i == 1 {
                    self.refl.need_feature("dualSrcBlend");
                }
            }
            self.io.outputs.push(OutSlot {
                reg: (ty, num),
                global: g,
                kind,
            });
        }
        if vs {
            use crate::d3d9_state::StateItem;
            // The state may need FOG (vertex fog of the pixel shader) and PointSize although
            // the program writes neither: they take their defaults (FOG 1) or the state.
            if !written.contains(&(RT::RastOut, 1)) && !self.state_off(StateItem::FogMode) {
                let g = self.interface_global(
                    true,
                    TypeId::F32,
                    "FOG".into(),
                    0,
                    Some(1),
                    1,
                    Ok(self.varying_location(Usage::Fog, 0)),
                    false,
                );
                self.io.outputs.push(OutSlot {
                    reg: (RT::RastOut, 1),
                    global: g,
                    kind: OutKind::Scalar { saturate: true },
                });
            }
            if !written.contains(&(RT::RastOut, 2)) {
                self.state_point_size_output(RT::RastOut, 2);
            }
        }
        if self.ps1() {
            // ps_1_x: the colour is r0 when the program ends, saturated to [0, 1] (D3D9's
            // ps_1_x colour output range; docs/d3d9.md "Semantics").
            let place = self.opts.render_target_location(0).map_or(0, |l| l.0);
            let g = self.interface_global(
                true,
                TypeId::VEC4,
                "COLOR".into(),
                0,
                Some(0),
                0xF,
                Ok(place),
                false,
            );
            if self.opts.dual_source_blending {
                let t = DecorationTarget::Global(g);
                self.b.m.decorate(t, Decoration::Index, &[0]);
            }
            self.io.outputs.push(OutSlot {
                reg: (RT::Temp, 0),
                global: g,
                kind: OutKind::Vec4 { saturate: true },
            });
        }
        Ok(())
    }

    /// A `PointSize` output the program does not write, when the state asks for one.
    fn state_point_size_output(&mut self, ty: RT, num: u16) {
        if !self.wants_point_size() {
            return;
        }
        let g = self.interface_global(
            true,
            TypeId::F32,
            "PSIZE".into(),
            0,
            None,
            1,
            Err(BuiltIn::PointSize),
            false,
        );
        self.io.outputs.push(OutSlot {
            reg: (ty, num),
            global: g,
            kind: OutKind::PointSize,
        });
    }

    fn first_write_offset(&self, ty: RT, num: u16) -> usize {
        self.insts
            .iter()
            .find(|i| i.dst.is_some_and(|d| d.reg.ty == ty && d.reg.num == num))
            .map_or(0, |i| i.offset)
    }

    /// The value an output register holds before the program writes it: COLOR0 (1, 1, 1, 1),
    /// other colours (0, 0, 0, 1), FOG 1, everything else 0.
    pub fn output_default(&self, reg: (RT, u16)) -> [f32; 4] {
        let vs = self.stage == ShaderStage::Vertex;
        let sem = if vs && self.ver.major >= 3 {
            self.decl
                .semantics
                .iter()
                .find(|s| s.reg.ty == reg.0 && s.reg.num == reg.1)
                .map(|s| (s.usage, s.index))
        } else if vs {
            match reg.0 {
                RT::AttrOut => Some((Usage::Color, reg.1 as u8)),
                RT::RastOut if reg.1 == 1 => Some((Usage::Fog, 0)),
                _ => None,
            }
        } else {
            None
        };
        match sem {
            Some((Usage::Color, 0)) => [1.0; 4],
            Some((Usage::Color, _)) => [0.0, 0.0, 0.0, 1.0],
            Some((Usage::Fog, _)) => [1.0, 0.0, 0.0, 0.0],
            _ => [0.0; 4],
        }
    }

    /// Stores every output register to its global (at a return).
    pub fn store_outputs(&mut self) -> R<()> {
        let outs: SmallVec<[OutSlot; 8]> = self.io.outputs.iter().copied().collect();
        let colour0 = if self.ps1() {
            (RT::Temp, 0)
        } else {
            (RT::ColorOut, 0)
        };
        let mut alpha = None;
        let mut position = None;
        for o in outs {
            let key = o.reg;
            if o.kind == OutKind::PointSize {
                let written = if self.decl.written.contains(&key) {
                    let v = self.register_vec4(key)?;
                    Some(self.b.extract(v, 0))
                } else {
                    None
                };
                let x = self.point_size(written);
                self.b.op_void(Op::Store, &[Operand::Global(o.global), x]);
                continue;
            }
            let v = self.register_vec4(key)?;
            match o.kind {
                OutKind::Vec4 { saturate } => {
                    let mut v = if saturate { self.saturate(v) } else { v };
                    if self.stage == ShaderStage::Pixel && key == colour0 {
                        v = self.apply_fog(v)?;
                        alpha = Some(v);
                    }
                    // A render target's swizzle (the alpha test reads the colour unswizzled).
                    let rt = match key {
                        (RT::ColorOut, n) => Some(u32::from(n)),
                        (RT::Temp, 0) if self.ps1() => Some(0),
                        _ => None,
                    };
                    if self.stage == ShaderStage::Pixel
                        && let Some(s) = rt.and_then(|rt| self.opts.output_swizzle(rt))
                    {
                        let lanes = s.map(|c| Operand::Lit(c.index() as u32));
                        v = self.b.op(
                            Op::VectorShuffle,
                            TypeId::VEC4,
                            &[v, v, lanes[0], lanes[1], lanes[2], lanes[3]],
                        );
                    }
                    self.b.op_void(Op::Store, &[Operand::Global(o.global), v]);
                }
                OutKind::Position => {
                    position = Some(v);
                    self.b.op_void(Op::Store, &[Operand::Global(o.global), v]);
                }
                OutKind::PointSize => {}
                OutKind::Scalar { saturate } => {
                    let mut x = self.b.extract(v, 0);
                    // vs < 3.0 that writes no oFog: the fog factor is the specular colour's
                    // alpha, where fixed-function vertex fog puts it.
                    if key == (RT::RastOut, 1)
                        && self.stage == ShaderStage::Vertex
                        && !self.decl.written.contains(&key)
                        && self.decl.written.contains(&(RT::AttrOut, 1))
                    {
                        let spec = self.register_vec4((RT::AttrOut, 1))?;
                        x = self.b.extract(spec, 3);
                    }
                    let x = if saturate { self.saturate(x) } else { x };
                    self.b.op_void(Op::Store, &[Operand::Global(o.global), x]);
                }
            }
        }
        if let Some(pos) = position {
            self.clip_planes(pos)?;
        }
        if let Some(c) = alpha {
            self.alpha_test(c)?;
        }
        Ok(())
    }
}
