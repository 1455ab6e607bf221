//! The parsed form of a `.shader_test` file: its sections in file order.
//!
//! A file is a sequence of `[section]` headers, each followed by lines until the next header.
//! Sections are kept in order because the format is stateful: resources, shaders and the
//! `[require]` state declared earlier stay in effect for the `[test]` blocks after them.

use super::format::Format;
use super::qualifier::{Qualifier, ShaderModel};

/// A whole test file.
#[derive(Debug, Clone, Default)]
pub struct TestFile {
    pub sections: Vec<Section>,
    /// Lines that could not be parsed: (line, message). Each is reported as a failed check.
    pub errors: Vec<(u32, String)>,
}

/// One section with the line of its header.
#[derive(Debug, Clone)]
pub struct Section {
    pub line: u32,
    pub kind: SectionKind,
}

#[derive(Debug, Clone)]
pub enum SectionKind {
    Require(Require),
    Shader(ShaderSection),
    Resource(ResourceDecl),
    Sampler(SamplerDecl),
    InputLayout(Vec<InputElement>),
    Test(Vec<TestLine>),
    /// A section that does not affect execution here (`[preproc]`, `[effect]`).
    Ignored(String),
    /// A section that would change how later tests run and is not implemented
    /// (`[descriptors]`): every later check is skipped with this reason.
    Unsupported(String),
    /// `[binding layout]` (a TOML or JSON layout) or `[binding policy NAME]`: where the
    /// translator places descriptors for the shaders translated after it.
    Binding(translator::binding::Binding),
    /// `[icb uniform-buffer bN [space S]]`: the translator option
    /// `IcbMode::UniformBuffer` for the shaders translated after it (ours only).
    Icb(translator::IcbMode),
    /// `[min-precision native16]` (or `relaxed32`): the translator option
    /// `MinPrecisionMode` for the shaders translated after it (ours only; another backend
    /// keeps its own precision, which D3D allows as well).
    MinPrecision(translator::MinPrecisionMode),
    /// `[binding layout FILE]`: a layout file, relative to the test file's directory.
    BindingLayoutFile(String),
    /// `[header]`: the shader models `test-shader-models` lists.
    Header(Vec<ShaderModel>),
    /// `[descriptors]`: which test resource each SRV/UAV register range is bound to (an
    /// explicit root signature); empty: the default, register N binds resource N.
    Descriptors(Vec<DescriptorMap>),
    /// `[stream output]` (ours): the stream-output declaration the last vertex-processing
    /// stage of later draws is translated with (docs/vk-runner.md).
    StreamOutput(translator::StreamOutput),
    /// `[translator options]` (ours): what D3D12 layers ask of the translator, for the
    /// shaders translated after it (docs/vk-runner.md).
    TranslatorOptions(LayerOptions),
}

/// The options a `[translator options]` section sets (each line `key = value`; keys not
/// given keep their defaults).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerOptions {
    /// `texel-buffers = raw-srv raw-uav uav-counter` (any of them).
    pub texel_buffers: translator::TexelBuffers,
    /// `typed-uav-read = r32`.
    pub typed_uav_read: translator::TypedUavRead,
    /// `rasterizer-sample-count = N`.
    pub rasterizer_sample_count: Option<u32>,
    /// `output-swizzles = wxyz xyzw ...` (render target 0 first).
    pub output_swizzles: Vec<[translator::SwizzleComponent; 4]>,
    /// `dual-source-blending = on`: the runner then blends render target 0 as
    /// `src0 × src1` (colour and alpha).
    pub dual_source_blending: bool,
    /// `point-size = none|vertex|all` (`None`: the runner's choice, `AllStages` on a device
    /// with `shaderTessellationAndGeometryPointSize`).
    pub point_size: Option<translator::PointSize>,
    /// `target-env = vulkan1.0|vulkan1.1|vulkan1.2|vulkan1.3` (default: the device's).
    pub target_env: Option<translator::TargetEnv>,
}

impl LayerOptions {
    /// The translator's options with these applied.
    pub fn apply(&self, o: &mut translator::Options) {
        o.texel_buffers = self.texel_buffers;
        o.typed_uav_read = self.typed_uav_read;
        o.rasterizer_sample_count = self.rasterizer_sample_count;
        o.output_swizzles = self.output_swizzles.clone();
        o.dual_source_blending = self.dual_source_blending;
        if let Some(p) = self.point_size {
            o.point_size = p;
        }
        if let Some(e) = self.target_env {
            o.target_env = e;
        }
    }

    /// Reads one `key = value` line.
    pub fn line(&mut self, line: &str) -> Result<(), String> {
        let (key, value) = line
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| format!("expected 'key = value': '{line}'"))?;
        let words: Vec<&str> = value.split_whitespace().collect();
        let bad = |what: &str| format!("{key}: {what}: '{value}'");
        match key {
            "texel-buffers" => {
                let mut t = translator::TexelBuffers::default();
                for w in &words {
                    match *w {
                        "raw-srv" => t.raw_srv = true,
                        "raw-uav" => t.raw_uav = true,
                        "uav-counter" => t.uav_counter = true,
                        "none" => {}
                        _ => return Err(bad("expected raw-srv, raw-uav, uav-counter or none")),
                    }
                }
                self.texel_buffers = t;
            }
            "typed-uav-read" => {
                self.typed_uav_read = match value {
                    "r32" => translator::TypedUavRead::R32,
                    "without-format" => translator::TypedUavRead::WithoutFormat,
                    _ => return Err(bad("expected r32 or without-format")),
                }
            }
            "rasterizer-sample-count" => {
                self.rasterizer_sample_count =
                    Some(value.parse().map_err(|_| bad("expected a number"))?)
            }
            "output-swizzles" => {
                use translator::SwizzleComponent as C;
                self.output_swizzles = words
                    .iter()
                    .map(|w| {
                        let c: Vec<C> = w
                            .chars()
                            .map(|c| match c {
                                'x' | 'r' => Ok(C::X),
                                'y' | 'g' => Ok(C::Y),
                                'z' | 'b' => Ok(C::Z),
                                'w' | 'a' => Ok(C::W),
                                _ => Err(bad("a swizzle is four of x, y, z, w")),
                            })
                            .collect::<Result<_, _>>()?;
                        c.try_into()
                            .map_err(|_| bad("a swizzle has four components"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "dual-source-blending" => {
                self.dual_source_blending = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad("expected on or off")),
                }
            }
            "point-size" => {
                self.point_size = Some(match value {
                    "none" => translator::PointSize::Unwritten,
                    "vertex" => translator::PointSize::Vertex,
                    "all" => translator::PointSize::AllStages,
                    _ => return Err(bad("expected none, vertex or all")),
                })
            }
            "target-env" => {
                use translator::TargetEnv as E;
                self.target_env = Some(match value {
                    "vulkan1.0" => E::Vulkan1_0,
                    "vulkan1.1" => E::Vulkan1_1,
                    "vulkan1.2" => E::Vulkan1_2,
                    "vulkan1.3" => E::Vulkan1_3,
                    _ => return Err(bad("expected vulkan1.0 to vulkan1.3")),
                })
            }
            _ => return Err(format!("unknown translator option '{key}'")),
        }
        Ok(())
    }
}

/// One `[descriptors]` line, `t[1:2], space 0, srv 5`: registers `lower..=upper` of the class in
/// `space` bind the test resources `target`, `target + 1`, ... of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorMap {
    /// [`ResourceKind::Srv`] (`t`) or [`ResourceKind::Uav`] (`u`).
    pub kind: ResourceKind,
    pub lower: u32,
    pub upper: u32,
    pub space: u32,
    pub target: u32,
}

impl DescriptorMap {
    /// The test resource slot bound to register `reg` of `kind` in `space`, when this line
    /// covers it.
    pub fn resolve(&self, kind: ResourceKind, space: u32, reg: u32) -> Option<u32> {
        (self.kind == kind && self.space == space && (self.lower..=self.upper).contains(&reg))
            .then(|| self.target.saturating_add(reg - self.lower))
    }
}

/// Shader stages a section can hold: the translator's one stage enum (pipeline order).
pub use translator::ShaderStage as Stage;

/// The `[require]` state.
#[derive(Debug, Clone, PartialEq)]
pub struct Require {
    pub min_model: ShaderModel,
    pub max_model: ShaderModel,
    /// Capabilities (`float64`, `geometry-shader`, `format r32-float uav-load`, ...).
    pub caps: Vec<String>,
    /// `options:` for the HLSL compiler (`row-major`, `backcompat`, ...).
    pub options: Vec<String>,
    /// Lines whose tag condition does not hold make the following tests skip (e.g. `vulkan`).
    pub tag_conditions: Vec<(String, Qualifier)>,
    /// `compile shader model X` lines: models the block is (also) to be tested at. They name
    /// passes to run (listing 2.0 or 3.0 runs the SM1–3 pass by default) and restrict nothing.
    pub compile_models: Vec<ShaderModel>,
}

impl Default for Require {
    fn default() -> Self {
        Require {
            min_model: ShaderModel::MIN,
            max_model: ShaderModel::MAX,
            caps: Vec::new(),
            options: Vec::new(),
            tag_conditions: Vec::new(),
            compile_models: Vec::new(),
        }
    }
}

/// What a shader section holds.
#[derive(Debug, Clone, PartialEq)]
pub enum ShaderSource {
    Hlsl(String),
    /// A DXBC container given as hex (`dxbc-tpf-hex`) or assembled from an `asm` section.
    DxbcHex(Vec<u8>),
    /// Something this runner cannot use (`d3dbc-hex`, `dxbc-dxil-hex`).
    Unsupported {
        format: String,
        reason: String,
    },
}

/// `[pixel shader ...]` and the other stages.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderSection {
    pub stage: Stage,
    pub source: ShaderSource,
    /// `fail(...)`: compilation is expected to fail for models where it holds.
    pub fail: Option<Qualifier>,
    /// `notimpl(...)`: the compiler is expected not to implement it.
    pub notimpl: Option<Qualifier>,
    /// `todo(...)`: compilation is known not to behave yet.
    pub todo: Option<Qualifier>,
    /// Entry point (`entry=NAME`), `main` by default.
    pub entry: String,
}

/// Kinds of test resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    Srv,
    Uav,
    Rtv,
    Dsv,
    VertexBuffer,
    /// `[so N]`: a stream-output (transform feedback) buffer, slot 0-3.
    StreamOutput,
}

impl ResourceKind {
    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::Srv => "srv",
            ResourceKind::Uav => "uav",
            ResourceKind::Rtv => "rtv",
            ResourceKind::Dsv => "dsv",
            ResourceKind::VertexBuffer => "vb",
            ResourceKind::StreamOutput => "so",
        }
    }
}

/// The `size (...)` of a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimensions {
    /// Not given (vertex buffers: taken from the data).
    Unspecified,
    Buffer {
        elements: u32,
    },
    RawBuffer {
        bytes: u32,
    },
    CounterBuffer {
        elements: u32,
    },
    Tex2d {
        width: u32,
        height: u32,
    },
    Tex2dMs {
        samples: u32,
        width: u32,
        height: u32,
    },
    Tex2dArray {
        width: u32,
        height: u32,
        layers: u32,
    },
    Tex3d {
        width: u32,
        height: u32,
        depth: u32,
    },
    Cube {
        size: u32,
    },
}

/// `[srv N]`, `[uav N]`, `[rtv N]`, `[dsv]`, `[vb N]` (and the older `[texture N]`,
/// `[vertex buffer N]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDecl {
    pub kind: ResourceKind,
    pub slot: u32,
    /// Register space (`[srv N space S]`; 0 by default).
    pub space: u32,
    pub format: Format,
    pub explicit_format: bool,
    /// Structured buffer stride (`stride N`).
    pub stride: Option<u32>,
    pub dims: Dimensions,
    pub levels: u32,
    /// Initial contents as 32-bit words.
    pub data: Vec<u32>,
}

/// Texture address modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Mirror,
    Clamp,
    Border,
    MirrorOnce,
}

/// A change of D3D9 fixed-function state a directive makes.
#[derive(Debug, Clone, PartialEq)]
pub enum StateChange {
    /// `alpha test FUNC REF`: the D3DCMPFUNC (1 never … 8 always) and the reference.
    AlphaTest { func: u32, reference: f32 },
    /// `shade mode flat|gouraud`.
    ShadeFlat(bool),
    /// `clip-plane N a b c d` / `clip-plane N disable`.
    ClipPlane { n: u32, plane: Option<[f32; 4]> },
    /// `point-size SIZE MIN MAX`.
    PointSize([f32; 3]),
    /// `point-sprite on|off`.
    PointSprite(bool),
    /// `fog MODE [ortho|non-ortho] PARAMS`: mode `disable`, `none`, `linear` (start, end),
    /// `exp`/`exp2` (density).
    Fog {
        mode: String,
        ortho: bool,
        params: Vec<f32>,
    },
    /// `fog-colour r g b a`.
    FogColour([f32; 4]),
    /// `bump N f32(m00, m01, m10, m11) lscale loffset`.
    Bump {
        stage: u32,
        m: [f32; 4],
        lscale: f32,
        loffset: f32,
    },
    /// `projected N enable|disable`.
    Projected { stage: u32, on: bool },
}

/// Comparison functions (samplers, depth test, alpha test), in D3DCMPFUNC order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFunc {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

/// Reduction of a filtering sampler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Standard,
    Comparison,
    Minimum,
    Maximum,
}

/// `[sampler N]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerDecl {
    pub slot: u32,
    /// Register space (`[sampler N space S]`; 0 by default).
    pub space: u32,
    /// min, mag, mip: `true` = linear.
    pub linear: [bool; 3],
    pub address: [AddressMode; 3],
    pub compare: Option<CompareFunc>,
    pub reduction: Reduction,
}

impl SamplerDecl {
    pub fn new(slot: u32) -> Self {
        SamplerDecl {
            slot,
            space: 0,
            linear: [false; 3],
            address: [AddressMode::Clamp; 3],
            compare: None,
            reduction: Reduction::Standard,
        }
    }
}

/// One `[input layout]` line: `SLOT FORMAT NAME [INDEX]`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputElement {
    pub slot: u32,
    pub format: Format,
    pub semantic: String,
    pub index: u32,
}

/// One line of a `[test]` block.
#[derive(Debug, Clone, PartialEq)]
pub struct TestLine {
    pub line: u32,
    pub todo: Option<Qualifier>,
    pub bug: Option<Qualifier>,
    /// `if(...)` conditions: the line runs only when all hold.
    pub conditions: Vec<Qualifier>,
    /// `winbug(...)`: skipped on Windows only; never skipped here.
    pub directive: Directive,
}

/// Primitive topologies of `draw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topology {
    TriangleList,
    TriangleStrip,
    PointList,
    LineList,
    LineStrip,
    PatchList(u32),
}

/// A resource named by a test line (`rtv 1`, `uav-0`, `dsv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceRef {
    pub kind: ResourceKind,
    pub slot: u32,
}

/// Which texels a probe looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// One texel (or buffer element): x, y, array layer.
    Point { x: u32, y: u32, layer: u32 },
    /// `left, top, right, bottom`, right/bottom exclusive.
    Rect {
        left: u32,
        top: u32,
        right: u32,
        bottom: u32,
    },
    /// The whole resource (older `probe all`).
    All,
}

/// Expected values of a probe.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    F32(Vec<f32>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
}

impl Expected {
    pub fn len(&self) -> usize {
        match self {
            Expected::F32(v) => v.len(),
            Expected::U32(v) => v.len(),
            Expected::I32(v) => v.len(),
            Expected::F64(v) => v.len(),
            Expected::U64(v) => v.len(),
            Expected::I64(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes one expected element occupies in memory (the probe's stride in buffers).
    pub fn byte_size(&self) -> u32 {
        let scalar = match self {
            Expected::F32(_) | Expected::U32(_) | Expected::I32(_) => 4,
            _ => 8,
        };
        scalar * self.len() as u32
    }
}

/// A `probe` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub target: ResourceRef,
    pub region: Region,
    pub expected: Expected,
    /// Allowed difference in units in the last place (floats).
    pub ulps: u32,
}

/// What a `[test]` line does.
#[derive(Debug, Clone, PartialEq)]
pub enum Directive {
    Dispatch([u32; 3]),
    DrawQuad,
    Draw {
        topology: Topology,
        vertices: u32,
        instances: u32,
        /// D3D's StartVertexLocation / StartInstanceLocation (`start vertex N`,
        /// `start instance N`; Vulkan's firstVertex / firstInstance).
        start_vertex: u32,
        start_instance: u32,
    },
    Probe(Probe),
    /// Writes 32-bit words into a constant buffer at a word offset (`uniform`, `write cbv-N`,
    /// `write cbv-N space S`).
    Uniform {
        cbuffer: u32,
        space: u32,
        offset: u32,
        words: Vec<u32>,
    },
    Clear {
        target: ResourceRef,
        value: [f32; 4],
    },
    /// Depth test function for later draws with a `[dsv]`.
    Depth(CompareFunc),
    /// Sample mask of later draws (`VkPipelineMultisampleStateCreateInfo::pSampleMask`).
    SampleMask(u32),
    /// `depth-bounds MIN MAX`: the depth bounds test of later draws (D3D12's
    /// `OMSetDepthBounds`; Vulkan's `depthBounds` feature).
    DepthBounds(f32, f32),
    /// `viewport N (x, y, width, height)`: viewport N of later draws (`SV_ViewportArrayIndex`
    /// selects among them).
    Viewport {
        index: u32,
        rect: [f32; 4],
    },
    /// `copy SRC DST`: copies a whole resource into another of the same shape
    /// (`CopyResource`); a check.
    Copy {
        src: ResourceRef,
        dst: ResourceRef,
    },
    /// State of the DXIL compiler (`denorm`): it has no meaning for the shaders this runner
    /// compiles.
    NoMeaning(String),
    /// D3D9 fixed-function state (`alpha test`, `shade mode`, `clip-plane`, `point-size`,
    /// `point-sprite`, `fog`, `fog-colour`, `bump`, `projected`), named by its directive
    /// word: no meaning for SM4–5 shaders; the SM1–3 pass compiles it into the modules
    /// (`default`: the line sets D3D9's initial state).
    FixedFunction {
        what: String,
        default: bool,
        change: Option<StateChange>,
    },
    /// Known to vkd3d but not implemented here; the reason is reported.
    Unsupported(String),
    /// A `[test]` line that does not parse, with the error. Like vkd3d's runner, which reads a
    /// test line only when it runs it, it is judged where its block runs: a failed `[parse]`
    /// check there, a skip where the block is skipped for its requirements.
    Malformed(String),
}

impl Directive {
    /// Whether the line asserts something (and so is reported as a check).
    pub fn is_check(&self) -> bool {
        matches!(
            self,
            Directive::Dispatch(_)
                | Directive::DrawQuad
                | Directive::Draw { .. }
                | Directive::Probe(_)
                | Directive::Copy { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::LayerOptions;
    use translator::SwizzleComponent as C;

    #[test]
    fn translator_options_lines() {
        let mut o = LayerOptions::default();
        for l in [
            "texel-buffers = raw-srv uav-counter",
            "typed-uav-read = r32",
            "rasterizer-sample-count = 4",
            "output-swizzles = wxyz rgba",
            "dual-source-blending = on",
            "point-size = all",
            "target-env = vulkan1.0",
        ] {
            o.line(l).unwrap();
        }
        assert!(o.texel_buffers.raw_srv && o.texel_buffers.uav_counter && !o.texel_buffers.raw_uav);
        assert_eq!(o.typed_uav_read, translator::TypedUavRead::R32);
        assert_eq!(o.rasterizer_sample_count, Some(4));
        assert_eq!(o.output_swizzles, [[C::W, C::X, C::Y, C::Z], C::IDENTITY]);
        assert!(o.dual_source_blending);
        assert_eq!(o.point_size, Some(translator::PointSize::AllStages));
        assert_eq!(o.target_env, Some(translator::TargetEnv::Vulkan1_0));
        let mut t = translator::Options::default();
        o.apply(&mut t);
        assert_eq!(t.target_env, translator::TargetEnv::Vulkan1_0);
        assert!(t.dual_source_blending);
        for (bad, needle) in [
            ("texel-buffers = raw", "expected raw-srv"),
            ("output-swizzles = wxy", "four components"),
            ("output-swizzles = wxyq", "four of x, y, z, w"),
            ("dual-source-blending = yes", "on or off"),
            ("rasterizer-sample-count = many", "a number"),
            ("no-such-option = 1", "unknown translator option"),
            ("point-size", "key = value"),
        ] {
            let e = LayerOptions::default().line(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }
}
