//! Tessellator state shared by hull and domain shaders: control point counts, domain,
//! partitioning, output primitive and the maximum tessellation factor, as execution modes;
//! and the D3D processing of the tessellation factors a hull shader writes.
//!
//! Every mode goes on the tessellation control shader (Vulkan accepts them on either stage);
//! the domain shader states its domain too, the one tessellator fact it declares. D3D's pow2
//! partitioning is integer partitioning for the tessellator (the functional spec, §11.7.7.1:
//! rounding to a power of two is the HLSL code's job), so it becomes `SpacingEqual` unchanged.
//! Factors are clamped as D3D's tessellator does (Vulkan only clamps to its own maximum): an
//! edge factor ≤ 0 or NaN culls the patch (stored as 0), others are clamped to [1, 64]
//! (integer, pow2), [1, 63] (fractional odd) or [2, 64] (fractional even), and to
//! `dcl_hs_max_tessfactor` (which D3D leaves to HLSL-generated code, undefined when exceeded);
//! an inside factor that is NaN becomes the lower bound. Isoline density is always an integer
//! factor in [1, 64].

use spirv::{Capability, ExecutionMode, GlslStd450Op as Glsl, Op};

use super::{Lowerer, R};
use crate::ir::{Operand, TypeId};
use crate::reflect::ShaderStage;
use crate::sm4::{Declaration, TessDomain, TessOutputPrimitive, TessPartitioning};

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Records a tessellator declaration; false when `decl` is not one.
    pub(super) fn tess_declaration(&mut self, decl: &Declaration) -> R<bool> {
        let hull = self.stage == ShaderStage::Hull;
        let tess = hull || self.stage == ShaderStage::Domain;
        match decl {
            Declaration::InputControlPointCount(n) if tess => {
                // A domain shader reads the hull shader's output control points, of which
                // there may be none.
                if (*n == 0 && hull) || *n > 32 {
                    return Err(self.invalid(format!("{n} input control points")));
                }
                self.stage_info.input_control_points = Some(*n as u32);
            }
            Declaration::OutputControlPointCount(n) if hull => {
                if *n > 32 {
                    return Err(self.invalid(format!("{n} output control points (at most 32)")));
                }
                self.stage_info.output_control_points = Some(*n as u32);
            }
            Declaration::TessDomain(d) if tess => {
                if *d == TessDomain::Undefined {
                    return Err(self.invalid("undefined tessellator domain"));
                }
                self.stage_info.domain = Some(*d);
            }
            Declaration::TessPartitioning(p) if hull => {
                if *p == TessPartitioning::Undefined {
                    return Err(self.invalid("undefined tessellator partitioning"));
                }
                self.stage_info.partitioning = Some(*p);
            }
            Declaration::TessOutputPrimitive(p) if hull => {
                if *p == TessOutputPrimitive::Undefined {
                    return Err(self.invalid("undefined tessellator output primitive"));
                }
                self.stage_info.output_primitive = Some(*p);
            }
            Declaration::HsMaxTessFactor(f) if hull => {
                if !(*f >= 1.0 && *f <= 64.0) {
                    return Err(self.invalid(format!("dcl_hs_max_tessfactor {f} (1 to 64)")));
                }
                self.stage_info.max_tess_factor = Some(*f);
            }
            Declaration::HsForkPhaseInstanceCount(_) | Declaration::HsJoinPhaseInstanceCount(_)
                if hull =>
            {
                // Read by the hull shader's phase scan.
            }
            Declaration::InputControlPointCount(_)
            | Declaration::OutputControlPointCount(_)
            | Declaration::TessDomain(_)
            | Declaration::TessPartitioning(_)
            | Declaration::TessOutputPrimitive(_)
            | Declaration::HsMaxTessFactor(_)
            | Declaration::HsForkPhaseInstanceCount(_)
            | Declaration::HsJoinPhaseInstanceCount(_) => {
                return Err(self.invalid(format!(
                    "tessellation declaration in a {} shader",
                    self.stage.prefix()
                )));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The execution modes, capability and feature of a hull or domain shader.
    pub(super) fn tess_modes(&mut self) -> R<()> {
        let info = &self.stage_info;
        let domain = match info.domain {
            Some(TessDomain::Isoline) => ExecutionMode::Isolines,
            Some(TessDomain::Tri) => ExecutionMode::Triangles,
            Some(TessDomain::Quad) => ExecutionMode::Quads,
            _ => return Err(self.invalid("tessellation shader without dcl_tessellator_domain")),
        };
        let mut modes: Vec<(ExecutionMode, u32)> = vec![(domain, 0)];
        if self.stage == ShaderStage::Hull {
            let vertices = info.output_control_points.unwrap_or(0).max(1);
            modes.push((ExecutionMode::OutputVertices, vertices));
            let spacing = match info.partitioning {
                Some(TessPartitioning::FractionalOdd) => ExecutionMode::SpacingFractionalOdd,
                Some(TessPartitioning::FractionalEven) => ExecutionMode::SpacingFractionalEven,
                Some(TessPartitioning::Integer | TessPartitioning::Pow2) => {
                    ExecutionMode::SpacingEqual
                }
                _ => return Err(self.invalid("hull shader without dcl_tessellator_partitioning")),
            };
            modes.push((spacing, 0));
            match info.output_primitive {
                Some(TessOutputPrimitive::Point) => modes.push((ExecutionMode::PointMode, 0)),
                Some(TessOutputPrimitive::TriangleCw) => {
                    modes.push((ExecutionMode::VertexOrderCw, 0))
                }
                Some(TessOutputPrimitive::TriangleCcw) => {
                    modes.push((ExecutionMode::VertexOrderCcw, 0))
                }
                Some(TessOutputPrimitive::Line) => {}
                _ => {
                    return Err(
                        self.invalid("hull shader without dcl_tessellator_output_primitive")
                    );
                }
            }
        }
        for (mode, arg) in modes {
            let args: &[u32] = if mode == ExecutionMode::OutputVertices {
                &[arg]
            } else {
                &[]
            };
            self.b.m.execution_mode(mode, args);
        }
        self.b.m.capability(Capability::Tessellation);
        self.need_feature("tessellationShader");
        Ok(())
    }

    /// The value a hull shader stores to a tessellation factor (`f32`), processed as D3D's
    /// tessellator would (see the module documentation).
    pub(super) fn tess_factor_value(&mut self, outer: bool, v: Operand) -> Operand {
        let info = &self.stage_info;
        let partitioning = info.partitioning.unwrap_or(TessPartitioning::Integer);
        let density = outer && info.domain == Some(TessDomain::Isoline);
        let (lo, mut hi) = match partitioning {
            TessPartitioning::FractionalOdd if !density => (1.0f32, 63.0f32),
            TessPartitioning::FractionalEven if !density => (2.0, 64.0),
            _ => (1.0, 64.0),
        };
        if let Some(max) = info.max_tess_factor {
            hi = hi.min(max).max(lo);
        }
        let lo_c = self.b.f32c(lo);
        let hi_c = self.b.f32c(hi);
        let x = self.b.glsl(Glsl::NClamp, TypeId::F32, &[v, lo_c, hi_c]);
        if !outer {
            return x;
        }
        // FOrdGreaterThan is false for NaN: NaN and non-positive edges cull the patch.
        let zero = self.b.f32c(0.0);
        let keep = self.b.op(Op::FOrdGreaterThan, TypeId::BOOL, &[v, zero]);
        self.b.op(Op::Select, TypeId::F32, &[keep, x, zero])
    }
}
