//! What a caller chooses about a translation: the target environment and the options every
//! stage reads. A leaf module (it imports no stage), so that lowering, the passes and the
//! emitter can take their options from here without depending on the orchestrator
//! (`translate.rs`), and a second front end (D3D9) reads the same options.

use serde::{Deserialize, Serialize};

/// Vulkan target environment; it fixes the SPIR-V version emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TargetEnv {
    /// Vulkan 1.0, SPIR-V 1.0 (what SPIR-V 1.1–1.3 made core is declared through its
    /// extensions: `SPV_KHR_storage_buffer_storage_class`, `SPV_KHR_shader_draw_parameters`).
    Vulkan1_0,
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
            TargetEnv::Vulkan1_0 => (1, 0),
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }

    /// The name spirv-val uses for `--target-env`.
    pub fn spirv_val_name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_0 => "vulkan1.0",
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
    /// Carry the float precision rules in `SPV_KHR_float_controls2` form: an
    /// `FPFastMathDefault` execution mode per float type on the entry point (no fast-math
    /// flags where every operation is precise, D3D's default; contraction and reassociation
    /// where the program allows refactoring, and for Direct3D 9), and an `FPFastMathMode`
    /// decoration only on an operation that differs from it, instead of `NoContraction` on
    /// every precise operation: smaller modules, the same results (`docs/semantics.md`,
    /// "Float precision"). Set it only when the device reports `shaderFloatControls2`
    /// (`VK_KHR_shader_float_controls2`, core in Vulkan 1.4); the reflection lists the
    /// extension, capability and feature.
    pub float_controls2: bool,
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
    /// How minimum-precision operands (`min16float`, `min10float`, `min16int`, `min16uint`)
    /// are computed (default [`MinPrecisionMode::Relaxed32`]; see `docs/semantics.md`).
    pub min_precision: MinPrecisionMode,
    /// Direct3D 9 (SM1–3) programs only.
    pub d3d9: D3d9Options,
    /// Transform feedback: D3D's stream-output declaration, for a vertex, domain or geometry
    /// shader (`None`: no stream output).
    pub stream_output: Option<StreamOutput>,
    /// Which raw and structured buffers and UAV counters are declared as R32_UINT texel
    /// buffers instead of storage buffers (default: none; see `docs/resources.md`). The
    /// binding request ([`crate::binding::RangeRequest::descriptor_type`]) and the reflection
    /// carry the descriptor type chosen.
    pub texel_buffers: TexelBuffers,
    /// The format of typed UAVs the program reads (`ld_uav_typed`), for devices without
    /// `shaderStorageImageReadWithoutFormat` (default [`TypedUavRead::WithoutFormat`]).
    pub typed_uav_read: TypedUavRead,
    /// The rasterizer's sample count as a constant of the module, for `sampleinfo`/`samplepos`
    /// on `rasterizer` (`None`, the default: the specialization constant
    /// `rasterizer_sample_count_spec_id`). The caller translates once per sample count.
    pub rasterizer_sample_count: Option<u32>,
    /// Pixel shaders: per render target (`SV_Target#`, D3D9's `oC#`: element `#`), the
    /// swizzle applied to the colour before it is written: component `c` of the output is
    /// component `swizzle[c]` of what the program wrote. Render targets past the list, and
    /// identity swizzles, are written as they are. For render-target formats a device stores
    /// in another component order (vkd3d-shader's `output_swizzles`).
    pub output_swizzles: Vec<[SwizzleComponent; 4]>,
    /// Pixel shaders: dual-source blending. `o0` is written to `Location 0, Index 0` and `o1`
    /// to `Location 0, Index 1` (the blend's second source); writes to `o2`–`o7` are
    /// dropped, as D3D leaves them undefined (`docs/bindings.md`).
    pub dual_source_blending: bool,
    /// Which stages write `PointSize` (default: none; see [`PointSize`]).
    pub point_size: PointSize,
    /// What the device offers, where translation depends on it (`None`, the default: what the
    /// translator assumes without being told; see [`DeviceFeatures`]).
    pub device_features: Option<DeviceFeatures>,
}

/// Raw and structured buffers and UAV counters as texel buffers (one R32_UINT texel per
/// dword), as D3D12 layers on devices without robust storage buffers bind them (vkd3d). Each
/// true field changes the descriptor type of its kind of view; false keeps storage buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TexelBuffers {
    /// Raw and structured SRVs: uniform texel buffers read with `OpImageFetch`.
    pub raw_srv: bool,
    /// Raw and structured UAVs: storage texel buffers (`R32ui`) accessed with
    /// `OpImageRead`/`OpImageWrite`, atomics through `OpImageTexelPointer`.
    pub raw_uav: bool,
    /// UAV counters: storage texel buffers (`R32ui`) whose texel 0 is the counter.
    pub uav_counter: bool,
}

impl TexelBuffers {
    /// Every kind as a texel buffer (vkd3d's choice).
    pub const ALL: TexelBuffers = TexelBuffers {
        raw_srv: true,
        raw_uav: true,
        uav_counter: true,
    };

    /// Whether any kind is a texel buffer.
    pub fn any(self) -> bool {
        self.raw_srv || self.raw_uav || self.uav_counter
    }
}

/// The format typed UAVs that the program reads are declared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TypedUavRead {
    /// `Unknown` (the view's own format), which needs `shaderStorageImageReadWithoutFormat`.
    #[default]
    WithoutFormat,
    /// `R32f`/`R32ui`/`R32i` by the declared return type: D3D's guaranteed typed-UAV-load
    /// formats (the single-component 32-bit ones), for devices without reading without a
    /// format. Reads of views of other formats are then undefined, as they are in D3D on
    /// hardware without additional typed UAV load formats.
    R32,
}

/// One component of a swizzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SwizzleComponent {
    #[default]
    X,
    Y,
    Z,
    W,
}

impl SwizzleComponent {
    /// The identity swizzle `xyzw`.
    pub const IDENTITY: [SwizzleComponent; 4] = [
        SwizzleComponent::X,
        SwizzleComponent::Y,
        SwizzleComponent::Z,
        SwizzleComponent::W,
    ];

    /// The component with index `i` (0 = x … 3 = w); `None` past 3.
    pub fn from_index(i: u32) -> Option<Self> {
        [Self::X, Self::Y, Self::Z, Self::W]
            .get(i as usize)
            .copied()
    }

    /// Its index (0 = x … 3 = w).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which stages write the `PointSize` built-in (1.0: Direct3D 10 and later draw points one
/// pixel wide). Vulkan leaves the size of points undefined when the last pre-rasterization
/// stage does not write it (unless `maintenance5`); writing it from a domain or geometry
/// shader needs `shaderTessellationAndGeometryPointSize`, without which the size there is 1.0
/// anyway. Direct3D 9 programs have their own point size (`docs/d3d9.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PointSize {
    /// No stage writes it.
    #[default]
    Unwritten,
    /// Vertex shaders write 1.0.
    Vertex,
    /// Vertex, domain and geometry shaders write 1.0 (capabilities `TessellationPointSize`,
    /// `GeometryPointSize`; the reflection lists `shaderTessellationAndGeometryPointSize`).
    AllStages,
}

/// What the device offers (vkd3d-shader's compile feature flags). A program that needs a
/// feature the device lacks is refused with an error naming it; features the translator can
/// do without change the translation instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DeviceFeatures {
    /// `shaderFloat64`: without it, programs with double-precision instructions are refused.
    pub float64: bool,
    /// `shaderInt64`: without it, a module that would need 64-bit integers is refused (no
    /// SM4–5 or D3D9 instruction needs them today).
    pub int64: bool,
    /// Subgroup operations (vkd3d's wave ops): no SM4–5 or D3D9 instruction needs them, so
    /// this has no effect.
    pub wave_ops: bool,
    /// `shaderZeroInitializeWorkgroupMemory` (Vulkan 1.3, or
    /// VK_KHR_zero_initialize_workgroup_memory): thread-group shared memory is zero-initialised
    /// when true, left uninitialised (as D3D defines it) when false. Without
    /// `device_features`, it is zero-initialised on Vulkan 1.3 only.
    pub zero_initialize_workgroup_memory: bool,
}

impl DeviceFeatures {
    /// Every feature present.
    pub const ALL: DeviceFeatures = DeviceFeatures {
        float64: true,
        int64: true,
        wave_ops: true,
        zero_initialize_workgroup_memory: true,
    };
}

impl Options {
    /// The swizzle applied to render target `rt`'s colour (pixel shaders), `None` when it is
    /// written as it is (no swizzle given, or the identity).
    pub fn output_swizzle(&self, rt: u32) -> Option<[SwizzleComponent; 4]> {
        self.output_swizzles
            .get(rt as usize)
            .copied()
            .filter(|s| *s != SwizzleComponent::IDENTITY)
    }

    /// Where render target `rt`'s colour goes (pixel shaders): its `Location` and, with
    /// dual-source blending, its `Index`; `None` when it is dropped (`o2`–`o7` with
    /// dual-source blending).
    pub fn render_target_location(&self, rt: u32) -> Option<(u32, Option<u32>)> {
        match (self.dual_source_blending, rt) {
            (false, _) => Some((rt, None)),
            (true, 0 | 1) => Some((0, Some(rt))),
            (true, _) => None,
        }
    }
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

/// How minimum-precision operands are computed. D3D lets a device compute them at any
/// precision at least the one asked for, so both modes are correct D3D.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MinPrecisionMode {
    /// 32-bit arithmetic, decorated `RelaxedPrecision` so that a driver may use less. Runs on
    /// every device.
    #[default]
    Relaxed32,
    /// The arithmetic of an instruction whose destination has a minimum precision runs on
    /// 16-bit types (`Float16`/`Int16`), its values converted at the instruction's edges:
    /// registers, inputs, outputs, buffers, constant buffers and resources stay 32-bit, so no
    /// 16-bit storage capability is needed. The reflection lists the device features
    /// `shaderFloat16` (Vulkan 1.2, or `VK_KHR_shader_float16_int8` on 1.1) and
    /// `shaderInt16` when the module uses them. Set it only for devices that have them.
    Native16,
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
    /// The device does software vertex processing (`D3DCREATE_SOFTWARE_VERTEXPROCESSING`, or a
    /// mixed device with `SetSoftwareVertexProcessing(TRUE)`): vertex shaders of every version
    /// have the software limits, 8192 float, 2048 integer and 2048 boolean constants, and
    /// their constant buffers are sized so (`docs/d3d9.md`). Pixel shaders are unchanged.
    pub software_vertex_processing: bool,
    /// Translate programs that break the D3D9 runtime's register limits instead of refusing
    /// them, as several D3D9 layers do: a constant past the version's range is read from its
    /// buffer like any other (the set grows to hold it), and a ps_2_0/vs_2_0 program may use
    /// the 2_x instructions and constants (`defb`, `defi`, `if`, `rep`…). Other rules stay.
    pub relaxed_limits: bool,
    /// Each boolean constant `b#` in a 16-byte row of its own (its x component), as
    /// vkd3d-shader lays the boolean set out, instead of four to a row as the D3D9 runtime
    /// uploads them (`docs/d3d9.md`).
    pub bool_constant_rows: bool,
    /// How each piece of render state the translator compiles in (alpha test, fog, point
    /// size and sprites, clip planes, flat shading, per-sampler state) is delivered
    /// (`crate::d3d9_state`, `docs/d3d9.md`).
    pub state: crate::d3d9_state::StateOptions,
}

/// Varying (`usage`, `index`) lives at `location` in both stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VaryingLocation {
    pub usage: crate::d3dbc::Usage,
    pub index: u8,
    pub location: u32,
}

/// D3D's stream-output declaration (`D3D11_SO_DECLARATION_ENTRY`s, the buffer strides and the
/// rasterized stream of `CreateGeometryShaderWithStreamOutput`, `D3D12_STREAM_OUTPUT_DESC`):
/// which outputs of a vertex, domain or geometry shader go to which transform-feedback buffer.
/// The module gets `Xfb` and `XfbBuffer`/`XfbStride`/`Offset` decorations; the reflection
/// lists the layout ([`crate::reflect::XfbLayout`]). See `docs/stream-output.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamOutput {
    /// The entries in declaration order: each slot's entries are packed in this order.
    pub entries: Vec<StreamOutputEntry>,
    /// Bytes per vertex of each output slot (buffer) 0–3; 0 packs the slot's entries tightly.
    #[serde(default)]
    pub strides: [u32; 4],
    /// The stream the rasterizer draws (a geometry shader's, 0–3; else 0); `None`: nothing is
    /// rasterized (`D3D11_SO_NO_RASTERIZED_STREAM`).
    #[serde(default = "stream_zero")]
    pub rasterized_stream: Option<u32>,
}

fn stream_zero() -> Option<u32> {
    Some(0)
}

impl Default for StreamOutput {
    fn default() -> Self {
        StreamOutput {
            entries: Vec::new(),
            strides: [0; 4],
            rasterized_stream: Some(0),
        }
    }
}

/// One `D3D11_SO_DECLARATION_ENTRY`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamOutputEntry {
    /// The geometry shader stream (0 for vertex and domain shaders).
    #[serde(default)]
    pub stream: u32,
    /// The output's semantic name (case-insensitive); `None` (D3D's NULL) or `$SKIP`: a gap
    /// of `component_count` components the buffer skips (left unwritten).
    pub semantic_name: Option<String>,
    #[serde(default)]
    pub semantic_index: u32,
    /// The first component of the output written, counted from the output's own first
    /// component (0 = its x).
    #[serde(default)]
    pub start_component: u8,
    /// How many components are written (1–4).
    pub component_count: u8,
    /// The buffer (0–3).
    #[serde(default)]
    pub output_slot: u32,
}

impl StreamOutputEntry {
    /// Whether the entry is a gap (no semantic, or `$SKIP`).
    pub fn is_gap(&self) -> bool {
        self.semantic_name
            .as_deref()
            .is_none_or(|n| n.eq_ignore_ascii_case("$SKIP"))
    }
}

/// Parses `[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]`: `SV_Position.xyzw`, `TEXCOORD1.yz@1`,
/// `1:COLOR.xyzw@2`; `$SKIP.xy` (or `_.xy`) is a gap of two components. MASK names consecutive
/// components of the output counted from its own first one (`x` = its first), as D3D's start
/// component and count do.
impl std::str::FromStr for StreamOutputEntry {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        let bad = |why: &str| {
            format!(
                "stream-output entry '{spec}': {why} (expected [STREAM:]SEMANTIC[INDEX].MASK[@SLOT], e.g. 0:TEXCOORD1.xy@1)"
            )
        };
        let (stream, rest) = match spec.split_once(':') {
            Some((s, r)) => (s.parse::<u32>().map_err(|_| bad("bad stream"))?, r),
            None => (0, spec),
        };
        let (rest, slot) = match rest.rsplit_once('@') {
            Some((r, s)) => (r, s.parse::<u32>().map_err(|_| bad("bad output slot"))?),
            None => (rest, 0),
        };
        let Some((name, mask)) = rest.rsplit_once('.') else {
            return Err(bad("no component mask"));
        };
        let comps: Vec<u8> = mask
            .chars()
            .map(|c| match c {
                'x' | 'r' => Ok(0),
                'y' | 'g' => Ok(1),
                'z' | 'b' => Ok(2),
                'w' | 'a' => Ok(3),
                _ => Err(bad("the mask takes x, y, z, w")),
            })
            .collect::<Result<_, _>>()?;
        let start = *comps.first().ok_or_else(|| bad("empty component mask"))?;
        if comps.iter().enumerate().any(|(i, &c)| c != start + i as u8) {
            return Err(bad("the mask must name consecutive components in order"));
        }
        if name.is_empty() {
            return Err(bad("no semantic"));
        }
        let gap = name == "_" || name.eq_ignore_ascii_case("$SKIP");
        let (semantic_name, semantic_index) = if gap {
            (None, 0)
        } else {
            let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let (n, i) = name.split_at(name.len() - digits);
            if n.is_empty() {
                return Err(bad("no semantic name"));
            }
            let index = if i.is_empty() {
                0
            } else {
                i.parse::<u32>().map_err(|_| bad("bad semantic index"))?
            };
            (Some(n.to_string()), index)
        };
        Ok(StreamOutputEntry {
            stream,
            semantic_name,
            semantic_index,
            start_component: if gap { 0 } else { start },
            component_count: comps.len() as u8,
            output_slot: slot,
        })
    }
}
