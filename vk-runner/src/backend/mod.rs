//! Backends turn DXBC into SPIR-V plus a [`translator::Reflection`]: ours (the `translator`
//! crate) or vkd3d's (`vkd3d-compiler`), for bringing the harness up and cross-checking.

pub mod check;
pub mod spirv_info;
pub mod vkd3d;
pub mod vkd3d_asm;
pub mod vkd3d_d3dbc;
pub mod vkd3d_reflect;

use translator::{Options, TargetEnv, Translation};

/// Which translator runs.
pub enum Backend {
    Ours { options: Options },
    Vkd3d(vkd3d::Vkd3dBackend),
}

impl Backend {
    /// Whether the backend's SPIR-V honours rasterizer-ordered views (D3D's `_rov` UAVs) with
    /// fragment shader interlock: vkd3d-shader does, and ours does with its default
    /// [`translator::RovMode::Interlock`]; blocks that `[require] rov` skip otherwise rather
    /// than run unordered.
    pub fn supports_rov(&self) -> bool {
        match self {
            Backend::Ours { options } => options.rov == translator::RovMode::Interlock,
            Backend::Vkd3d(_) => true,
        }
    }

    /// Our translator; `denorm_flush_f32` when the device can flush fp32 denormals (D3D's rule);
    /// `tess_geom_point_size` when the device has `shaderTessellationAndGeometryPointSize`
    /// enabled, which obliges domain and geometry shaders that output points to write their
    /// size (`PointSize::AllStages`, as vkd3d does on such devices); `float_controls2` for
    /// precision in `SPV_KHR_float_controls2` form ([`Options::float_controls2`]: its modules
    /// need `shaderFloatControls2`).
    pub fn ours(
        target_env: TargetEnv,
        denorm_flush_f32: bool,
        tess_geom_point_size: bool,
        float_controls2: bool,
    ) -> Self {
        let options = Options {
            target_env,
            debug_names: false,
            denorm_flush_f32,
            point_size: if tess_geom_point_size {
                translator::PointSize::AllStages
            } else {
                translator::PointSize::Unwritten
            },
            float_controls2,
            ..Default::default()
        };
        Backend::Ours { options }
    }

    /// Whether this is our translator (which compiles D3D9 fixed-function state in).
    pub fn is_ours(&self) -> bool {
        matches!(self, Backend::Ours { .. })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Backend::Ours { .. } => "ours",
            Backend::Vkd3d(_) => "vkd3d",
        }
    }

    /// Translates one DXBC container and checks its reflection against its SPIR-V. The error
    /// is a one-line description.
    /// `binding` replaces the options' binding policy, `icb` their ICB placement and
    /// `stream_output` their stream-output declaration, `min_precision` their minimum-precision
    /// mode (ours only; another backend keeps its own precision, which D3D allows too),
    /// `layer` the options of a `[translator options]` section (ours only).
    #[allow(clippy::too_many_arguments)]
    pub fn translate(
        &self,
        dxbc: &[u8],
        binding: &translator::binding::Binding,
        icb: translator::IcbMode,
        min_precision: translator::MinPrecisionMode,
        stream_output: Option<&translator::StreamOutput>,
        d3d9_state: Option<&translator::d3d9_state::StateOptions>,
        layer: &crate::parse::LayerOptions,
    ) -> Result<Translation, String> {
        match self {
            Backend::Ours { options } => {
                let mut options = Options {
                    binding: binding.clone(),
                    icb,
                    min_precision,
                    stream_output: stream_output.cloned(),
                    ..options.clone()
                };
                layer.apply(&mut options);
                if let Some(s) = d3d9_state {
                    options.d3d9.state = s.clone();
                }
                let t = translator::translate(dxbc, &options).map_err(|e| e.to_string())?;
                check::check(&t)
                    .map_err(|e| format!("reflection does not match the SPIR-V: {e}"))?;
                Ok(t)
            }
            Backend::Vkd3d(b) => {
                let t = b.translate(dxbc)?;
                // Built from the same module, so this only guards the SPIR-V reader itself.
                check::check(&t).map_err(|e| format!("internal: derived reflection: {e}"))?;
                Ok(t)
            }
        }
    }
}
