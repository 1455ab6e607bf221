//! System values as SPIR-V built-ins: which built-in a system value or special register
//! (`vThreadID`, `oDepth`, …) becomes in each stage, its type and how D3D's value is made
//! from it ([`PartKind`]), and the capabilities, extensions, execution modes and Vulkan
//! features each one needs. Built-in variables are made once per key and shared.

use spirv::{BuiltIn, Decoration, ExecutionMode, StorageClass};

use super::interface::reflect_type;
use super::{IoFile, IoPart, PartKind, SpecialIo};
use crate::container::signature::{SignatureElement, SystemValue};
use crate::ir::{DecorationTarget, GlobalId, Scalar, Type, TypeId};
use crate::lower::{Lowerer, R};
use crate::reflect::{InterfacePlacement, InterfaceVar, ShaderStage};
use crate::sm4::{OperandType, SystemName};

/// The built-in a system value maps to for a stage's input or output, if any.
pub(super) fn builtin_for(
    sv: SystemValue,
    stage: ShaderStage,
    output: bool,
) -> Option<(BuiltIn, PartKind)> {
    use ShaderStage::*;
    Some(match (sv, stage, output) {
        (SystemValue::Position, Pixel, false) => (BuiltIn::FragCoord, PartKind::FragCoord),
        (SystemValue::Position, _, _) => (BuiltIn::Position, PartKind::BuiltIn),
        (SystemValue::VertexId, Vertex, false) => (BuiltIn::VertexIndex, PartKind::VertexId),
        (SystemValue::InstanceId, Vertex, false) => (BuiltIn::InstanceIndex, PartKind::InstanceId),
        (SystemValue::IsFrontFace, Pixel, false) => (BuiltIn::FrontFacing, PartKind::FrontFacing),
        (SystemValue::SampleIndex, Pixel, false) => (BuiltIn::SampleId, PartKind::BuiltIn),
        (SystemValue::PrimitiveId, Pixel, false) => (BuiltIn::PrimitiveId, PartKind::BuiltIn),
        (SystemValue::PrimitiveId, Geometry, true) => (BuiltIn::PrimitiveId, PartKind::BuiltIn),
        (SystemValue::RenderTargetArrayIndex, _, _) => (BuiltIn::Layer, PartKind::BuiltIn),
        (SystemValue::ViewportArrayIndex, _, _) => (BuiltIn::ViewportIndex, PartKind::BuiltIn),
        (SystemValue::Coverage, Pixel, true) => (BuiltIn::SampleMask, PartKind::SampleMask),
        (SystemValue::Depth, Pixel, true)
        | (SystemValue::DepthGreaterEqual, Pixel, true)
        | (SystemValue::DepthLessEqual, Pixel, true) => (BuiltIn::FragDepth, PartKind::BuiltIn),
        (SystemValue::StencilRef, Pixel, true) => (BuiltIn::FragStencilRefEXT, PartKind::BuiltIn),
        _ => return None,
    })
}

/// Whether a system value means anything on `file` of `stage`. The system-interpreted values
/// (position, clip and cull distances, render-target and viewport indices) are read by the
/// rasterizer from the last stage before it and by the next stage; tessellation factors live in
/// patch constants. Anywhere else D3D passes the data along as if it had no name (D3D11.3
/// §24.1–24.5): such an element is a plain location, not a built-in (`docs/rules.md`).
pub(super) fn interpreted_on(sv: SystemValue, stage: ShaderStage, file: IoFile) -> bool {
    use ShaderStage::*;
    use SystemValue as V;
    let output = file.is_output();
    match sv {
        V::Position | V::ClipDistance | V::CullDistance => {
            // Vertex shader inputs come from the input assembler, which interprets nothing.
            !file.is_patch() && (stage != Vertex || output)
        }
        V::RenderTargetArrayIndex | V::ViewportArrayIndex => {
            !file.is_patch()
                && if output {
                    matches!(stage, Vertex | Domain | Geometry)
                } else {
                    stage == Pixel
                }
        }
        V::FinalQuadEdgeTessFactor
        | V::FinalQuadInsideTessFactor
        | V::FinalTriEdgeTessFactor
        | V::FinalTriInsideTessFactor
        | V::FinalLineDetailTessFactor
        | V::FinalLineDensityTessFactor => file.is_patch(),
        _ => true,
    }
}

pub(super) fn system_value_of(n: SystemName) -> SystemValue {
    match n {
        SystemName::Position => SystemValue::Position,
        SystemName::ClipDistance => SystemValue::ClipDistance,
        SystemName::CullDistance => SystemValue::CullDistance,
        SystemName::RenderTargetArrayIndex => SystemValue::RenderTargetArrayIndex,
        SystemName::ViewportArrayIndex => SystemValue::ViewportArrayIndex,
        SystemName::VertexId => SystemValue::VertexId,
        SystemName::PrimitiveId => SystemValue::PrimitiveId,
        SystemName::InstanceId => SystemValue::InstanceId,
        SystemName::IsFrontFace => SystemValue::IsFrontFace,
        SystemName::SampleIndex => SystemValue::SampleIndex,
        // SM6-only values: no built-in takes them, so declaring one is refused by name
        // rather than read as a plain location.
        SystemName::Barycentrics => SystemValue::Barycentrics,
        SystemName::ShadingRate => SystemValue::ShadingRate,
        SystemName::CullPrimitive => SystemValue::CullPrimitive,
        _ => SystemValue::Undefined,
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// A built-in interface variable, created once per key.
    pub fn builtin_global(
        &mut self,
        key: &'static str,
        builtin: BuiltIn,
        pointee: TypeId,
        storage: StorageClass,
    ) -> GlobalId {
        if let Some(&g) = self.io.builtins.get(key) {
            return g;
        }
        let g = self.b.m.add_global(pointee, storage, None);
        self.b.m.decorate(
            DecorationTarget::Global(g),
            Decoration::BuiltIn,
            &[builtin as u32],
        );
        if self.stage == ShaderStage::Pixel && storage == StorageClass::Input {
            let integer = self
                .b
                .m
                .types
                .scalar(pointee)
                .is_some_and(|s| matches!(s, Scalar::I32 | Scalar::U32));
            if integer {
                self.b
                    .m
                    .decorate(DecorationTarget::Global(g), Decoration::Flat, &[]);
            }
        }
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("{key}"));
        self.io.builtins.insert(key, g);
        g
    }

    pub(super) fn declare_builtin_part(
        &mut self,
        e: &SignatureElement<'_>,
        builtin: BuiltIn,
        kind: PartKind,
        output: bool,
        array_len: u32,
    ) -> R<IoPart> {
        let storage = if output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        let mask = if e.mask == 0 { 1 } else { e.mask };
        let first = mask.trailing_zeros() as u8;
        let (scalar, count, pointee) = match builtin {
            BuiltIn::Position | BuiltIn::FragCoord => (Scalar::F32, 4, TypeId::VEC4),
            BuiltIn::FragDepth => (Scalar::F32, 1, TypeId::F32),
            BuiltIn::FrontFacing => (Scalar::U32, 1, TypeId::BOOL),
            BuiltIn::SampleMask => {
                let len = self.b.m.consts.u32(1);
                let arr = self.b.m.types.intern(Type::Array {
                    elem: TypeId::U32,
                    len,
                    stride: None,
                });
                (Scalar::U32, 1, arr)
            }
            BuiltIn::VertexIndex
            | BuiltIn::InstanceIndex
            | BuiltIn::SampleId
            | BuiltIn::PrimitiveId
            | BuiltIn::Layer
            | BuiltIn::ViewportIndex
            | BuiltIn::FragStencilRefEXT => (Scalar::I32, 1, TypeId::I32),
            _ => (Scalar::F32, 4, TypeId::VEC4),
        };
        let key: &'static str = match (builtin, output) {
            (BuiltIn::Position, true) => "Position",
            (BuiltIn::Position, false) => "PositionIn",
            (BuiltIn::FragCoord, _) => "FragCoord",
            (BuiltIn::FragDepth, _) => "FragDepth",
            (BuiltIn::FrontFacing, _) => "FrontFacing",
            (BuiltIn::SampleMask, true) => "SampleMaskOut",
            (BuiltIn::SampleMask, false) => "SampleMaskIn",
            (BuiltIn::VertexIndex, _) => "VertexIndex",
            (BuiltIn::InstanceIndex, _) => "InstanceIndex",
            (BuiltIn::SampleId, _) => "SampleId",
            (BuiltIn::PrimitiveId, true) => "PrimitiveIdOut",
            (BuiltIn::PrimitiveId, false) => "PrimitiveId",
            (BuiltIn::Layer, true) => "LayerOut",
            (BuiltIn::Layer, false) => "Layer",
            (BuiltIn::ViewportIndex, true) => "ViewportIndexOut",
            (BuiltIn::ViewportIndex, false) => "ViewportIndex",
            (BuiltIn::FragStencilRefEXT, _) => "FragStencilRef",
            _ => "BuiltIn",
        };
        let pointee = if array_len > 0 {
            let len = self.b.m.consts.u32(array_len);
            self.b.m.types.intern(Type::Array {
                elem: pointee,
                len,
                stride: None,
            })
        } else {
            pointee
        };
        let g = self.builtin_global(key, builtin, pointee, storage);
        match builtin {
            BuiltIn::SampleId => {
                self.b.m.capability(spirv::Capability::SampleRateShading);
                self.need_feature("sampleRateShading");
            }
            BuiltIn::PrimitiveId if self.stage == ShaderStage::Pixel => {
                self.b.m.capability(spirv::Capability::Geometry);
                self.need_feature("geometryShader");
            }
            BuiltIn::Layer | BuiltIn::ViewportIndex if self.stage == ShaderStage::Pixel => {
                self.b.m.capability(spirv::Capability::Geometry);
                if builtin == BuiltIn::ViewportIndex {
                    self.b.m.capability(spirv::Capability::MultiViewport);
                    self.need_feature("multiViewport");
                }
            }
            BuiltIn::Layer if self.stage == ShaderStage::Geometry => {}
            BuiltIn::ViewportIndex if self.stage == ShaderStage::Geometry => {
                self.b.m.capability(spirv::Capability::MultiViewport);
                self.need_feature("multiViewport");
            }
            // From a vertex or domain shader: SPIR-V 1.5 (Vulkan 1.2) has a capability per
            // built-in, each with its Vulkan 1.2 feature; before, only the extension's
            // capability exists (and Vulkan asks for VK_EXT_shader_viewport_index_layer).
            BuiltIn::Layer | BuiltIn::ViewportIndex
                if self.opts.target_env.spirv_version() >= (1, 5) =>
            {
                if builtin == BuiltIn::Layer {
                    self.b.m.capability(spirv::Capability::ShaderLayer);
                    self.need_feature("shaderOutputLayer");
                } else {
                    self.b.m.capability(spirv::Capability::ShaderViewportIndex);
                    self.need_feature("shaderOutputViewportIndex");
                    self.need_feature("multiViewport");
                }
            }
            BuiltIn::Layer | BuiltIn::ViewportIndex => {
                self.b
                    .m
                    .capability(spirv::Capability::ShaderViewportIndexLayerEXT);
                self.b.m.extension("SPV_EXT_shader_viewport_index_layer");
                self.need_feature(if builtin == BuiltIn::Layer {
                    "shaderOutputLayer"
                } else {
                    "shaderOutputViewportIndex"
                });
            }
            BuiltIn::FragDepth => {
                self.b.m.execution_mode(ExecutionMode::DepthReplacing, &[]);
                match e.system_value {
                    SystemValue::DepthGreaterEqual => {
                        self.b.m.execution_mode(ExecutionMode::DepthGreater, &[])
                    }
                    SystemValue::DepthLessEqual => {
                        self.b.m.execution_mode(ExecutionMode::DepthLess, &[])
                    }
                    _ => {}
                }
            }
            BuiltIn::FragStencilRefEXT => {
                self.b.m.capability(spirv::Capability::StencilExportEXT);
                self.b.m.extension("SPV_EXT_shader_stencil_export");
            }
            BuiltIn::VertexIndex | BuiltIn::InstanceIndex => {
                self.b.m.capability(spirv::Capability::DrawParameters);
                if self.opts.target_env.spirv_version() < (1, 5) {
                    self.b.m.extension("SPV_KHR_shader_draw_parameters");
                }
                self.need_feature("shaderDrawParameters");
            }
            BuiltIn::Position if output && array_len == 0 => {
                // Same position math in every shader that computes it (depth pre-passes).
                self.b
                    .m
                    .decorate(DecorationTarget::Global(g), Decoration::Invariant, &[]);
            }
            _ => {}
        }
        let var = InterfaceVar {
            semantic_name: e.semantic_name.to_string().into(),
            semantic_index: e.semantic_index,
            register: Some(e.register),
            mask: e.mask,
            component_type: reflect_type(scalar),
            placement: InterfacePlacement::BuiltIn {
                builtin: crate::reflect::names::builtin(builtin),
            },
        };
        self.reflect_io(output, var, g);
        Ok(IoPart {
            first: if count == 4 { 0 } else { first },
            count,
            scalar,
            global: g,
            kind,
            loaded: None,
            array_len,
        })
    }

    pub(super) fn declare_special(&mut self, ty: OperandType) -> R<()> {
        use OperandType as O;
        use ShaderStage as S;
        let allowed = match ty {
            O::OutputDepth
            | O::OutputDepthGreaterEqual
            | O::OutputDepthLessEqual
            | O::OutputCoverageMask
            | O::OutputStencilRef
            | O::InputCoverageMask
            | O::InnerCoverage => self.stage == S::Pixel,
            O::InputThreadId
            | O::InputThreadGroupId
            | O::InputThreadIdInGroup
            | O::InputThreadIdInGroupFlattened => self.stage == S::Compute,
            O::InputGsInstanceId => self.stage == S::Geometry,
            O::OutputControlPointId => self.stage == S::Hull,
            O::InputDomainPoint => self.stage == S::Domain,
            O::InputPrimitiveId => !matches!(self.stage, S::Vertex | S::Compute),
            _ => true,
        };
        if !allowed {
            return Err(self.invalid(format!("{} in a {} shader", ty.name(), self.stage.prefix())));
        }
        let (key, builtin, pointee, scalar, width, output): (
            &'static str,
            BuiltIn,
            TypeId,
            Scalar,
            u8,
            bool,
        ) = match ty {
            O::InputThreadId => (
                "GlobalInvocationId",
                BuiltIn::GlobalInvocationId,
                TypeId::UVEC3,
                Scalar::U32,
                3,
                false,
            ),
            O::InputThreadGroupId => (
                "WorkgroupId",
                BuiltIn::WorkgroupId,
                TypeId::UVEC3,
                Scalar::U32,
                3,
                false,
            ),
            O::InputThreadIdInGroup => (
                "LocalInvocationId",
                BuiltIn::LocalInvocationId,
                TypeId::UVEC3,
                Scalar::U32,
                3,
                false,
            ),
            O::InputThreadIdInGroupFlattened => (
                "LocalInvocationIndex",
                BuiltIn::LocalInvocationIndex,
                TypeId::U32,
                Scalar::U32,
                1,
                false,
            ),
            O::InputPrimitiveId => (
                "PrimitiveId",
                BuiltIn::PrimitiveId,
                TypeId::I32,
                Scalar::I32,
                1,
                false,
            ),
            O::InputCoverageMask => (
                "SampleMaskIn",
                BuiltIn::SampleMask,
                TypeId::VOID,
                Scalar::U32,
                1,
                false,
            ),
            O::InnerCoverage => (
                "FullyCoveredEXT",
                BuiltIn::FullyCoveredEXT,
                TypeId::BOOL,
                Scalar::U32,
                1,
                false,
            ),
            O::OutputDepth | O::OutputDepthGreaterEqual | O::OutputDepthLessEqual => (
                "FragDepth",
                BuiltIn::FragDepth,
                TypeId::F32,
                Scalar::F32,
                1,
                true,
            ),
            O::OutputCoverageMask => (
                "SampleMaskOut",
                BuiltIn::SampleMask,
                TypeId::VOID,
                Scalar::U32,
                1,
                true,
            ),
            O::InputGsInstanceId | O::OutputControlPointId => (
                "InvocationId",
                BuiltIn::InvocationId,
                TypeId::I32,
                Scalar::I32,
                1,
                false,
            ),
            O::InputDomainPoint => (
                "TessCoord",
                BuiltIn::TessCoord,
                TypeId::VEC3,
                Scalar::F32,
                3,
                false,
            ),
            O::OutputStencilRef => (
                "FragStencilRef",
                BuiltIn::FragStencilRefEXT,
                TypeId::I32,
                Scalar::I32,
                1,
                true,
            ),
            other => return Err(self.unsupported(format!("declaration of {}", other.name()))),
        };
        let storage = if output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        let (pointee, kind) = if builtin == BuiltIn::SampleMask {
            let len = self.b.m.consts.u32(1);
            (
                self.b.m.types.intern(Type::Array {
                    elem: TypeId::U32,
                    len,
                    stride: None,
                }),
                PartKind::SampleMask,
            )
        } else if builtin == BuiltIn::FullyCoveredEXT {
            (pointee, PartKind::FullyCovered)
        } else {
            (pointee, PartKind::BuiltIn)
        };
        let g = self.builtin_global(key, builtin, pointee, storage);
        // A register-less value's signature element (`SV_Depth`, `SV_Coverage`, ...) is
        // reflected like any other, so that the reflection lists every element: a caller
        // makes its depth attachment from it.
        let svs: &[SystemValue] = match ty {
            O::OutputDepth => &[SystemValue::Depth],
            O::OutputDepthGreaterEqual => &[SystemValue::DepthGreaterEqual],
            O::OutputDepthLessEqual => &[SystemValue::DepthLessEqual],
            O::OutputCoverageMask | O::InputCoverageMask => &[SystemValue::Coverage],
            O::OutputStencilRef => &[SystemValue::StencilRef],
            O::InnerCoverage => &[SystemValue::InnerCoverage],
            O::InputPrimitiveId => &[SystemValue::PrimitiveId],
            _ => &[],
        };
        let sig = if output {
            self.sigs.output
        } else {
            self.sigs.input
        };
        if let Some(e) = sig.and_then(|s| {
            s.elements
                .iter()
                .find(|e| e.has_no_register() && svs.contains(&e.system_value_by_name()))
        }) {
            let var = InterfaceVar {
                semantic_name: e.semantic_name.to_string().into(),
                semantic_index: e.semantic_index,
                register: None,
                mask: e.mask,
                component_type: reflect_type(scalar),
                placement: InterfacePlacement::BuiltIn {
                    builtin: format!("{builtin:?}").into(),
                },
            };
            self.reflect_io(output, var, g);
        }
        match ty {
            O::OutputDepth | O::OutputDepthGreaterEqual | O::OutputDepthLessEqual => {
                self.b.m.execution_mode(ExecutionMode::DepthReplacing, &[]);
                if ty == O::OutputDepthGreaterEqual {
                    self.b.m.execution_mode(ExecutionMode::DepthGreater, &[]);
                } else if ty == O::OutputDepthLessEqual {
                    self.b.m.execution_mode(ExecutionMode::DepthLess, &[]);
                }
            }
            O::OutputStencilRef => {
                self.b.m.capability(spirv::Capability::StencilExportEXT);
                self.b.m.extension("SPV_EXT_shader_stencil_export");
            }
            O::InputPrimitiveId if self.stage == ShaderStage::Pixel => {
                self.b.m.capability(spirv::Capability::Geometry);
                self.need_feature("geometryShader");
            }
            O::InputCoverageMask => {
                self.b.m.capability(spirv::Capability::SampleRateShading);
            }
            O::InnerCoverage => {
                // Conservative rasterization's "the pixel is fully covered" (D3D11.3
                // SV_InnerCoverage); the pipeline enables conservative rasterization.
                self.b
                    .m
                    .capability(spirv::Capability::FragmentFullyCoveredEXT);
                self.b.m.extension("SPV_EXT_fragment_fully_covered");
            }
            _ => {}
        }
        self.io.special.push(SpecialIo {
            ty,
            global: g,
            scalar,
            width,
            kind,
            loaded: None,
            var: None,
        });
        Ok(())
    }
}
