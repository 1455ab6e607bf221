//! Samplers and sampling: each `s#` (each texture stage in ps_1_x) as a sampled image and a
//! sampler (or one combined descriptor, by option), `texld`/`texldp`/`texldb`/`texldd`/
//! `texldl`, and `texkill`.
//!
//! A sampler's image dimension comes from its `dcl_2d/cube/volume`; ps_1_x declares nothing
//! and a `dcl` may say "unknown" (or 1D, which D3D9 drivers treat as 2D): those sample a 2D
//! image, and the reflection says the type was unknown. A vertex shader samples at LOD 0
//! unless `texldl` gives one. A sampler the caller says holds a depth texture (state item
//! `depth-compare-N`) samples with a depth comparison (D3D9 shadow sampling), or chooses
//! between both samples by the item's run-time value.

use rustc_hash::FxHashMap as HashMap;
use spirv::{Decoration, Dim, ImageFormat, ImageOperands, Op, StorageClass};

use super::{D9, R};
use crate::binding::{Placement, RangeRequest};
use crate::d3d9_state::StateItem;
use crate::d3dbc::{Controls, Instruction, Opcode, RegisterType as RT, TextureType};
use crate::ir::{DecorationTarget, GlobalId, ImageType, Operand, Scalar, Type, TypeId};
use crate::reflect::{
    D3d9Sampler, D3dOrigin, Descriptor, DescriptorType, RegisterClass, ResourceDim, ResourceShape,
    ReturnType, ShaderStage,
};

#[derive(Debug, Clone, Copy)]
pub(crate) struct SamplerSlot {
    pub dim: Dim,
    pub image_ty: TypeId,
    /// The image (split) or the combined image + sampler, with its array element.
    pub image: (GlobalId, u32),
    /// The sampler when split, with its array element.
    pub sampler: Option<(GlobalId, u32)>,
    /// Whether sampling compares depth (state item `depth-compare-N`).
    pub compare: Compare,
}

/// How a sampler's samples compare depth (D3D9 shadow sampling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compare {
    /// Never (the item baked 0, or a volume sampler).
    Off,
    /// Always (the item baked non-zero): only the `Dref` sample exists.
    On,
    /// By the item's run-time value (specialization or push constant): both samples exist,
    /// in the two arms of a selection.
    Dynamic,
}

#[derive(Debug, Default)]
pub(crate) struct TexState {
    pub samplers: HashMap<u16, SamplerSlot>,
}

/// How a sample instruction picks its level of detail.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lod {
    /// Implicit (derivatives; LOD 0 in a vertex shader).
    Implicit,
    /// Implicit plus a bias.
    Bias(Operand),
    /// Explicit.
    Level(Operand),
    /// Explicit gradients (vec4 operands; the dimension's components are used).
    Grad(Operand, Operand),
}

fn dim_of(t: Option<TextureType>) -> Dim {
    match t {
        Some(TextureType::Cube) => Dim::DimCube,
        Some(TextureType::Volume) => Dim::Dim3D,
        _ => Dim::Dim2D,
    }
}

fn coord_count(d: Dim) -> u8 {
    if d == Dim::Dim2D { 2 } else { 3 }
}

impl<'p, 'm> D9<'p, 'm> {
    /// The binding requests of the samplers: per `s#` an image (`t#`) then a sampler (`s#`),
    /// or one combined descriptor (`s#`).
    /// Appends the descriptor ranges of `samplers` to `out`.
    pub(super) fn sampler_requests(&self, samplers: &[u16], out: &mut impl Extend<RangeRequest>) {
        for &s in samplers {
            let r = |class, descriptor_type| RangeRequest {
                class,
                space: 0,
                lower: s.into(),
                upper: Some(s.into()),
                counter: false,
                descriptor_type,
            };
            if self.opts.d3d9.combined_samplers {
                out.extend([r(RegisterClass::S, DescriptorType::CombinedImageSampler)]);
            } else {
                out.extend([
                    r(RegisterClass::T, DescriptorType::SampledImage),
                    r(RegisterClass::S, DescriptorType::Sampler),
                ]);
            }
        }
    }

    fn descriptor_global(
        &mut self,
        ty: TypeId,
        place: Placement,
        req: &RangeRequest,
        shape: ResourceShape,
    ) -> R<(GlobalId, u32)> {
        let Placement::Descriptor {
            set,
            binding,
            array_offset,
            dynamic_offset,
            mutable,
        } = place
        else {
            return Err(self.unsupported("a sampler placed in push constants"));
        };
        if dynamic_offset.is_some() {
            return Err(self.unsupported(format!(
                "a dynamic descriptor offset for {}{} (Direct3D 9 programs take static placements only)",
                req.class.letter(),
                req.lower
            )));
        }
        let pointee = if array_offset == 0 {
            ty
        } else {
            let len = self.b.m.consts.u32(array_offset + 1);
            self.b.m.types.intern(Type::Array {
                elem: ty,
                len,
                stride: None,
            })
        };
        let g = self
            .b
            .m
            .add_global(pointee, StorageClass::UniformConstant, None);
        let t = DecorationTarget::Global(g);
        self.b.m.decorate(t, Decoration::DescriptorSet, &[set]);
        self.b.m.decorate(t, Decoration::Binding, &[binding]);
        self.b
            .m
            .name(t, format_args!("{}{}", req.class.letter(), req.lower));
        self.refl.descriptors.push(Descriptor {
            set,
            binding,
            descriptor_type: req.descriptor_type,
            count: Some(array_offset + 1),
            array_offset,
            origin: D3dOrigin {
                class: req.class,
                space: 0,
                lower: req.lower,
                upper: req.upper,
                range_id: req.lower,
                uav_counter: false,
            },
            shape,
            writable: false,
            dynamic_offset: None,
            mutable,
        });
        self.refl_globals.descriptors.push(g);
        Ok((g, array_offset))
    }

    /// Declares the samplers where `places` put them (parallel to `reqs`).
    pub(super) fn declare_samplers(
        &mut self,
        samplers: &[u16],
        reqs: &[RangeRequest],
        places: &[Placement],
    ) -> R<()> {
        let per = if self.opts.d3d9.combined_samplers {
            1
        } else {
            2
        };
        for (i, &s) in samplers.iter().enumerate() {
            let declared = self.decl.sampler_types.get(&s).copied();
            let dim = dim_of(
                declared
                    .filter(|t| !matches!(t, TextureType::Unknown))
                    .or(self.state_sampler_type(s))
                    .or(self.decl.implied_types.get(&s).copied()),
            );
            let compare = self.compare_mode(s, dim)?;
            let image_ty = self.b.m.types.intern(Type::Image(ImageType {
                sampled_type: Scalar::F32,
                dim,
                // SPIR-V's Depth: 1 a depth image, 2 either (both samples use it); whether a
                // sample compares is its opcode's choice, not the type's.
                depth: match compare {
                    Compare::Off => 0,
                    Compare::On => 1,
                    Compare::Dynamic => 2,
                },
                arrayed: false,
                ms: false,
                sampled: 1,
                format: ImageFormat::Unknown,
            }));
            let rdim = match dim {
                Dim::DimCube => ResourceDim::TextureCube,
                Dim::Dim3D => ResourceDim::Texture3D,
                _ => ResourceDim::Texture2D,
            };
            let image_shape = ResourceShape::Image {
                dim: rdim,
                return_type: ReturnType::Float,
                multisampled: false,
            };
            let slot = if per == 1 {
                let ty = self.b.m.types.intern(Type::SampledImage(image_ty));
                let g = self.descriptor_global(ty, places[i], &reqs[i], image_shape)?;
                SamplerSlot {
                    dim,
                    image_ty,
                    image: g,
                    sampler: None,
                    compare,
                }
            } else {
                let img =
                    self.descriptor_global(image_ty, places[2 * i], &reqs[2 * i], image_shape)?;
                let st = self.b.m.types.intern(Type::Sampler);
                let smp = self.descriptor_global(
                    st,
                    places[2 * i + 1],
                    &reqs[2 * i + 1],
                    ResourceShape::Sampler {
                        comparison: compare == Compare::On,
                    },
                )?;
                SamplerSlot {
                    dim,
                    image_ty,
                    image: img,
                    sampler: Some(smp),
                    compare,
                }
            };
            self.tex.samplers.insert(s, slot);
        }
        Ok(())
    }

    pub(super) fn sampler_reflection(&self) -> Vec<D3d9Sampler> {
        self.decl
            .samplers
            .iter()
            .map(|&s| {
                let declared = self.decl.sampler_types.get(&s).copied();
                D3d9Sampler {
                    register: s.into(),
                    declared: declared.unwrap_or(TextureType::Unknown).name().into(),
                    dim: match dim_of(declared.or(self.decl.implied_types.get(&s).copied())) {
                        Dim::DimCube => ResourceDim::TextureCube,
                        Dim::Dim3D => ResourceDim::Texture3D,
                        _ => ResourceDim::Texture2D,
                    },
                }
            })
            .collect()
    }

    /// Loads descriptor `g` (element `off` when it is an array).
    fn load_descriptor(&mut self, (g, off): (GlobalId, u32), ty: TypeId) -> Operand {
        if off != 0 {
            let ptr = self.b.m.types.pointer(StorageClass::UniformConstant, ty);
            let i = self.b.u32c(off);
            let p = self.b.op(Op::AccessChain, ptr, &[Operand::Global(g), i]);
            return self.b.op(Op::Load, ty, &[p]);
        }
        self.b.op(Op::Load, ty, &[Operand::Global(g)])
    }

    /// Samples sampler `s` at `coord` (vec4; the dimension's components are used, divided by
    /// w first when `project`). Returns a vec4.
    pub fn sample(&mut self, s: u16, coord: Operand, lod: Lod, project: bool) -> R<Operand> {
        let slot = *self
            .tex
            .samplers
            .get(&s)
            .ok_or_else(|| self.invalid(format!("sampler s{s} was not found by the scan")))?;
        let n = coord_count(slot.dim);
        let mut coord = coord;
        if project {
            let w = self.b.extract(coord, 3);
            let w = self.splat4(w);
            coord = self.b.op(Op::FDiv, TypeId::VEC4, &[coord, w]);
        }
        let sel: Vec<u8> = (0..n).collect();
        let c = self.b.swizzle(coord, &sel);
        let lod = match lod {
            Lod::Implicit if self.stage != ShaderStage::Pixel => Lod::Level(self.b.f32c(0.0)),
            Lod::Bias(_) if self.stage != ShaderStage::Pixel => {
                return Err(self.invalid("texldb outside a pixel shader"));
            }
            l => l,
        };
        // The compared depth: z (2D) or w (cube) of the coordinate, after the projection
        // divide, clamped to [0, 1] as a UNORM depth format clamps it.
        let r = match slot.compare {
            Compare::Off => self.sample_op(&slot, c, lod, &sel, None),
            Compare::On => {
                let dref = self.b.extract(coord, n);
                let dref = self.saturate(dref);
                self.sample_op(&slot, c, lod, &sel, Some(dref))
            }
            Compare::Dynamic => {
                let item = StateItem::DepthCompare(u8::try_from(s).unwrap_or(0));
                let on = self.state_flag(item);
                let dref = self.b.extract(coord, n);
                let dref = self.saturate(dref);
                let vars: Vec<_> = (0..4).map(|_| self.b.f.new_var(TypeId::F32)).collect();
                let mut frame = self.b.open_if(on);
                for dref in [Some(dref), None] {
                    if dref.is_none() {
                        self.b.begin_else(&mut frame);
                    }
                    let v = self.sample_op(&slot, c, lod, &sel, dref);
                    for (k, &var) in vars.iter().enumerate() {
                        self.b.store_var_component(var, v, k as u8);
                    }
                }
                self.b.close_if(frame);
                let parts: Vec<Operand> = vars.iter().map(|&v| self.b.load_var(v)).collect();
                self.b.construct(&parts)
            }
        };
        Ok(self.unbound_sampler(s, r))
    }

    /// One sample of `slot` at `c` (the dimension's components): a colour (vec4), or with
    /// `dref` a depth comparison, whose result D3D9 replicates to all four components. The
    /// sampled image is made here, in the block of its use (SPIR-V requires it).
    fn sample_op(
        &mut self,
        slot: &SamplerSlot,
        c: Operand,
        lod: Lod,
        sel: &[u8],
        dref: Option<Operand>,
    ) -> Operand {
        let si_ty = self.b.m.types.intern(Type::SampledImage(slot.image_ty));
        let si = match slot.sampler {
            Some(smp) => {
                let img = self.load_descriptor(slot.image, slot.image_ty);
                let sty = self.b.m.types.intern(Type::Sampler);
                let smp = self.load_descriptor(smp, sty);
                self.b.op(Op::SampledImage, si_ty, &[img, smp])
            }
            None => self.load_descriptor(slot.image, si_ty),
        };
        let (implicit, explicit, ty) = match dref {
            Some(_) => (
                Op::ImageSampleDrefImplicitLod,
                Op::ImageSampleDrefExplicitLod,
                TypeId::F32,
            ),
            None => (
                Op::ImageSampleImplicitLod,
                Op::ImageSampleExplicitLod,
                TypeId::VEC4,
            ),
        };
        let mut args = vec![si, c];
        args.extend(dref);
        let op = match lod {
            Lod::Implicit => implicit,
            Lod::Bias(b) => {
                args.extend([Operand::Lit(ImageOperands::BIAS.bits()), b]);
                implicit
            }
            Lod::Level(l) => {
                args.extend([Operand::Lit(ImageOperands::LOD.bits()), l]);
                explicit
            }
            Lod::Grad(dx, dy) => {
                let dx = self.b.swizzle(dx, sel);
                let dy = self.b.swizzle(dy, sel);
                args.extend([Operand::Lit(ImageOperands::GRAD.bits()), dx, dy]);
                explicit
            }
        };
        let r = self.b.op(op, ty, &args);
        if dref.is_some() { self.splat4(r) } else { r }
    }

    /// How sampler `s` of dimension `dim` compares depth (state item `depth-compare-s`): not
    /// at all when the item is baked 0; always when baked non-zero; by the value otherwise.
    /// A volume never compares (D3D9 has no volume depth textures, Vulkan no `Dref` on 3D
    /// images): baked non-zero is refused, a run-time value reads nothing.
    fn compare_mode(&mut self, s: u16, dim: Dim) -> R<Compare> {
        let Some(item) = u8::try_from(s)
            .ok()
            .filter(|&n| n < crate::d3d9_state::STATE_SAMPLERS)
            .map(StateItem::DepthCompare)
        else {
            return Ok(Compare::Off);
        };
        if self.state_off(item) {
            return Ok(Compare::Off);
        }
        let baked = self.state_baked(item);
        if dim == Dim::Dim3D {
            return match baked {
                Some(_) => Err(self.invalid(format!(
                    "D3D9 state {item}: sampler s{s} samples a volume, which cannot compare depth"
                ))),
                None => Ok(Compare::Off),
            };
        }
        self.state_read(item);
        Ok(match baked {
            Some(_) => Compare::On,
            None => Compare::Dynamic,
        })
    }

    /// The caller's texture type for sampler `s` (state item `sampler-type-s`, baked), when
    /// it gives one.
    fn state_sampler_type(&mut self, s: u16) -> Option<TextureType> {
        let item = StateItem::SamplerType(u8::try_from(s).ok().filter(|&n| n < 16)?);
        let w = self.state_baked(item)?;
        if w == item.default_words() {
            return None;
        }
        self.state_words(item);
        match w.first() {
            Some(2) => Some(TextureType::Cube),
            Some(3) => Some(TextureType::Volume),
            _ => Some(TextureType::Tex2d),
        }
    }

    /// An unbound sampler (state item `unbound-s`) returns (0, 0, 0, 1).
    fn unbound_sampler(&mut self, s: u16, r: Operand) -> Operand {
        let Some(n) = u8::try_from(s).ok().filter(|&n| n < 16) else {
            return r;
        };
        let item = StateItem::Unbound(n);
        if self.state_off(item) {
            return r;
        }
        let on = self.state_flag(item);
        let zero = self.b.f32c(0.0);
        let one = self.b.f32c(1.0);
        let null = self.b.construct(&[zero, zero, zero, one]);
        let on4 = self.bsplat4(on);
        self.b.op(Op::Select, TypeId::VEC4, &[on4, null, r])
    }

    /// `coord` divided by its w where D3DTTFF_PROJECTED is set on stage `s` (state item
    /// `projected-s`; ps_1_1–1_3 `tex`).
    pub fn project_by_state(&mut self, s: u16, coord: Operand) -> Operand {
        let Some(n) = u8::try_from(s).ok().filter(|&n| n < 16) else {
            return coord;
        };
        let item = StateItem::Projected(n);
        if self.state_off(item) {
            return coord;
        }
        let on = self.state_flag(item);
        let w = self.b.extract(coord, 3);
        let w = self.splat4(w);
        let div = self.b.op(Op::FDiv, TypeId::VEC4, &[coord, w]);
        let on4 = self.bsplat4(on);
        self.b.op(Op::Select, TypeId::VEC4, &[on4, div, coord])
    }

    /// `texld*` (2.0+, ps_1_4) and `texkill`; ps_1_0–1_3 `tex` goes to `ps1_tex`.
    pub(super) fn texture_op(&mut self, inst: &Instruction) -> R<()> {
        if inst.opcode == Opcode::TexKill {
            return self.texkill(inst);
        }
        if self.ps1() {
            return self.ps1_tex(inst);
        }
        let coord = self.read_src(inst, 0)?;
        let s = self.src(inst, 1)?;
        if s.reg.ty != RT::Sampler {
            return Err(self.invalid("texture sampling without an s# operand"));
        }
        let lod = match (inst.opcode, inst.controls) {
            (Opcode::TexLdl, _) => Lod::Level(self.b.extract(coord, 3)),
            (Opcode::TexLdd, _) => {
                let dx = self.read_src(inst, 2)?;
                let dy = self.read_src(inst, 3)?;
                Lod::Grad(dx, dy)
            }
            (_, Controls::Bias) => Lod::Bias(self.b.extract(coord, 3)),
            _ => Lod::Implicit,
        };
        let project = inst.opcode == Opcode::Tex && inst.controls == Controls::Project;
        let v = self.sample(s.reg.num, coord, lod, project)?;
        // The sampler operand's swizzle selects from the result (ps_2_x, 3.0).
        let v = self.b.swizzle(v, &s.swizzle.0);
        self.write(inst, v)
    }

    /// `texkill`: discard (demote to helper, so derivatives stay defined) when any of x, y, z
    /// (ps_1_x) or of the written components (2.0+) is negative.
    fn texkill(&mut self, inst: &Instruction) -> R<()> {
        let dst = inst
            .dst
            .ok_or_else(|| self.invalid("texkill without an operand"))?;
        if self.stage != ShaderStage::Pixel {
            return Err(self.invalid("texkill outside a pixel shader"));
        }
        let v = self.fetch(dst.reg, dst.relative.as_ref())?;
        let mask = if self.ps1() { 0x7 } else { dst.mask };
        let zero = self.b.f32c(0.0);
        let mut any = None;
        for c in 0..4u8 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let x = self.b.extract(v, c);
            let lt = self.b.op(Op::FOrdLessThan, TypeId::BOOL, &[x, zero]);
            any = Some(match any {
                None => lt,
                Some(a) => self.b.op(Op::LogicalOr, TypeId::BOOL, &[a, lt]),
            });
        }
        let Some(cond) = any else {
            return Ok(());
        };
        self.demote_if(cond);
        Ok(())
    }
}
