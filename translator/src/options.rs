//! What a caller chooses about a translation: the target environment and the options every
//! stage reads. A leaf module (it imports no stage), so that lowering, the passes and the
//! emitter can take their options from here without depending on the orchestrator
//! (`translate.rs`), and a second front end (D3D9) reads the same options.

/// Vulkan target environment; it fixes the SPIR-V version emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TargetEnv {
    /// Vulkan 1.1, SPIR-V 1.3.
    Vulkan1_1,
    /// Vulkan 1.2, SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3, SPIR-V 1.6.
    #[default]
    Vulkan1_3,
}

impl TargetEnv {
    /// SPIR-V version as (major, minor).
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }

    /// The name spirv-val uses for `--target-env`.
    pub fn spirv_val_name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }
}

/// How to translate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub target_env: TargetEnv,
    /// Emit OpName/OpMemberName debug names.
    pub debug_names: bool,
    /// Where D3D registers go in Vulkan descriptor sets, bindings and push constants: a
    /// built-in policy (default `ClassOffsets`) or a caller's layout.
    pub binding: crate::binding::Binding,
    /// Ask for 32-bit float denormals to be flushed to zero, as D3D requires of fp32 math
    /// (`DenormFlushToZero` execution mode). Set it only when the device reports
    /// `shaderDenormFlushToZeroFloat32` (VkPhysicalDeviceFloatControlsProperties); without it
    /// the driver's default applies.
    pub denorm_flush_f32: bool,
    /// The SpecId of the specialization constant that holds the rasterizer's sample count,
    /// which `sampleinfo`/`samplepos` on `rasterizer` (HLSL `GetRenderTargetSampleCount`,
    /// `GetRenderTargetSamplePosition`) read. Default 0. The reflection lists it
    /// ([`crate::reflect::SpecConstant`]) when the module uses it; the pipeline sets it to
    /// `VkPipelineMultisampleStateCreateInfo::rasterizationSamples` (it defaults to 1).
    pub rasterizer_sample_count_spec_id: u32,
    /// How the accesses of a pixel shader to rasterizer-ordered UAVs (`_rov`) are ordered
    /// (default [`RovMode::Interlock`]; see `docs/resources.md`).
    pub rov: RovMode,
    /// How `ld_raw_s`/`ld_structured_s` with a status operand (residency feedback on raw and
    /// structured buffers) are translated (default [`RawFeedback::TexelBuffer`]; see
    /// `docs/resources.md`).
    pub raw_feedback: RawFeedback,
    /// Where the immediate constant buffer (`icb`, `dcl_immediateConstantBuffer`) lives
    /// (default [`IcbMode::PrivateArray`]; see `docs/resources.md`).
    pub icb: IcbMode,
    /// Direct3D 9 (SM1–3) programs only.
    pub d3d9: D3d9Options,
}

/// Where the immediate constant buffer lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IcbMode {
    /// A private array initialised with the data, inside the module.
    #[default]
    PrivateArray,
    /// A uniform buffer the caller uploads, placed by the binding layout like constant
    /// buffer `b{register}` of `space` (which the program must not declare itself; D3D11
    /// programs use b0–b13, so b14 is free). Large ICBs read with dynamic indices run far
    /// slower as private arrays on some drivers. The reflection lists the descriptor with
    /// the shape `immediate_constant_buffer`, holding the words to upload.
    UniformBuffer { space: u32, register: u32 },
}

/// Residency feedback on raw and structured buffers, which storage buffers cannot report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RawFeedback {
    /// A raw or structured SRV that a program reads with feedback is declared as a uniform
    /// texel buffer instead of a storage buffer, read through R32_UINT texel fetches (sparse
    /// fetches where feedback is asked), as the peers do. The reflection states it: the
    /// descriptor's type is `uniform_texel_buffer` with a raw/structured shape, and the caller
    /// binds an R32_UINT buffer view of the buffer.
    #[default]
    TexelBuffer,
    /// Refuse such programs (unsupported), keeping every raw/structured SRV a storage buffer.
    Refuse,
}

/// How rasterizer-ordered views (D3D's `_rov` UAVs, HLSL `RasterizerOrdered*`) are translated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RovMode {
    /// D3D's ordering: the pixel shader runs as one fragment shader interlock critical section
    /// (SPV_EXT_fragment_shader_interlock), so invocations that overlap in a pixel (in a
    /// sample when the shader runs per sample) run their UAV accesses in primitive order. The
    /// reflection lists the device feature `fragmentShaderPixelInterlock` (or
    /// `fragmentShaderSampleInterlock`).
    #[default]
    Interlock,
    /// For devices without fragment shader interlock: the views are accessed like plain
    /// UAVs, so overlapping pixels' accesses are not ordered (what D3D guarantees is lost;
    /// results may differ from D3D's where primitives overlap).
    Unordered,
}

/// What a caller chooses about Direct3D 9 programs (documented in `docs/d3d9.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct D3d9Options {
    /// Plain IEEE multiplication in `mul`, `mad`, `dp*`, `m*x*`, `lrp`, `nrm`, `pow`, `lit`,
    /// `dst` instead of D3D9's rule that 0 × anything (infinity and NaN included) is 0, and
    /// plain `log` (−∞ for 0) instead of −FLT_MAX.
    pub ieee_multiply: bool,
    /// Each `s#` as a combined image + sampler descriptor (register class `s`) instead of a
    /// sampled image (`t#`) and a sampler (`s#`).
    pub combined_samplers: bool,
    /// The caller's locations for varyings by semantic; pairs not listed take the default
    /// table (`docs/d3d9.md`).
    pub varying_locations: Vec<VaryingLocation>,
}

/// Varying (`usage`, `index`) lives at `location` in both stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VaryingLocation {
    pub usage: crate::d3dbc::Usage,
    pub index: u8,
    pub location: u32,
}
