//! `dxbc translate`: DXBC → SPIR-V, one file or whole trees (`batch`), binary or as text; and
//! the options `reflect`, `cfg` and `bench` share (target environment, binding layout or policy).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use rspirv::binary::Disassemble;
use translator::binding::{Binding, BindingLayout, BindingPolicy};
use translator::{IcbMode, Options, RawFeedback, RovMode, TargetEnv};

use crate::batch::{self, Failure, OutputArgs, Produced, Spec, Usage};
use crate::cli_error::CliError;
use crate::input::{InputArgs, InputsArgs};

/// Vulkan target environment, as spirv-val names it.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Env {
    #[value(name = "vulkan1.0")]
    Vulkan10,
    #[value(name = "vulkan1.1")]
    Vulkan11,
    #[value(name = "vulkan1.2")]
    Vulkan12,
    #[value(name = "vulkan1.3")]
    Vulkan13,
}

impl From<Env> for TargetEnv {
    fn from(e: Env) -> Self {
        match e {
            Env::Vulkan10 => TargetEnv::Vulkan1_0,
            Env::Vulkan11 => TargetEnv::Vulkan1_1,
            Env::Vulkan12 => TargetEnv::Vulkan1_2,
            Env::Vulkan13 => TargetEnv::Vulkan1_3,
        }
    }
}

/// A built-in binding policy, by its `--binding-policy` name.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Policy {
    /// set = space, binding = class base + register (b 0, s 16, t 32, u 160, counters 224).
    #[value(name = "class-offsets")]
    ClassOffsets,
    /// set = space, one binding per declared range (b, s, t, u order, by first register).
    #[value(name = "per-range")]
    PerRange,
    /// vkd3d-shader's default: set 0, one binding per declaration in declaration order.
    #[value(name = "vkd3d")]
    Vkd3d,
}

/// How rasterizer-ordered UAVs are translated, by its `--rov` name.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Rov {
    /// Fragment shader interlock around the pixel shader (D3D's ordering).
    Interlock,
    /// Plain UAV access, unordered (devices without fragment shader interlock).
    Unordered,
}

impl From<Rov> for RovMode {
    fn from(r: Rov) -> Self {
        match r {
            Rov::Interlock => RovMode::Interlock,
            Rov::Unordered => RovMode::Unordered,
        }
    }
}

/// Residency feedback on raw/structured buffers, by its `--raw-feedback` name.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum RawFeedbackArg {
    /// Read such SRVs as R32_UINT uniform texel buffers (sparse fetches).
    #[value(name = "texel-buffer")]
    TexelBuffer,
    /// Refuse `ld_raw_s`/`ld_structured_s` with a status.
    Refuse,
}

impl From<RawFeedbackArg> for RawFeedback {
    fn from(r: RawFeedbackArg) -> Self {
        match r {
            RawFeedbackArg::TexelBuffer => RawFeedback::TexelBuffer,
            RawFeedbackArg::Refuse => RawFeedback::Refuse,
        }
    }
}

/// A kind of view made a texel buffer, by its `--texel-buffers` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TexelBufferArg {
    /// Raw and structured SRVs as uniform texel buffers.
    #[value(name = "raw-srv")]
    RawSrv,
    /// Raw and structured UAVs as storage texel buffers.
    #[value(name = "raw-uav")]
    RawUav,
    /// UAV counters as storage texel buffers.
    #[value(name = "uav-counter")]
    UavCounter,
    /// All three.
    All,
}

/// Which stages write PointSize, by its `--point-size` name.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PointSizeArg {
    None,
    Vertex,
    All,
}

/// A device feature, by its `--device-features` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FeatureArg {
    Float64,
    Int64,
    #[value(name = "wave-ops")]
    WaveOps,
    #[value(name = "zero-init-workgroup")]
    ZeroInitWorkgroup,
}

/// A 4-letter swizzle (`wxyz`, `rgba`) as the translator's components.
pub fn parse_swizzle(s: &str) -> Result<[translator::SwizzleComponent; 4], String> {
    use translator::SwizzleComponent as C;
    let c: Vec<C> = s
        .chars()
        .map(|c| match c {
            'x' | 'r' => Ok(C::X),
            'y' | 'g' => Ok(C::Y),
            'z' | 'b' => Ok(C::Z),
            'w' | 'a' => Ok(C::W),
            _ => Err(format!(
                "'{s}': a swizzle is four of x, y, z, w (or r, g, b, a)"
            )),
        })
        .collect::<Result<_, _>>()?;
    c.try_into()
        .map_err(|_| format!("'{s}': a swizzle has four components"))
}

impl From<Policy> for BindingPolicy {
    fn from(p: Policy) -> Self {
        match p {
            Policy::ClassOffsets => BindingPolicy::ClassOffsets,
            Policy::PerRange => BindingPolicy::PerRange,
            Policy::Vkd3d => BindingPolicy::Vkd3d,
        }
    }
}

/// Options shared by `translate`, `reflect`, `cfg` and `bench`.
#[derive(Debug, clap::Args)]
pub struct TranslateOptions {
    /// Vulkan target environment (fixes the SPIR-V version).
    #[arg(long, value_enum, default_value = "vulkan1.3")]
    pub target_env: Env,
    /// Emit OpName debug names.
    #[arg(long)]
    pub debug_names: bool,
    /// Binding layout (TOML, or JSON when the file starts with `{`): where each D3D register
    /// range goes in Vulkan (docs/bindings.md). A register it does not map is an error.
    #[arg(long, value_name = "FILE", conflicts_with = "binding_policy")]
    pub layout: Option<PathBuf>,
    /// Built-in binding policy, used when no --layout is given.
    #[arg(long, value_enum, value_name = "NAME", default_value = "class-offsets")]
    pub binding_policy: Policy,
    /// SpecId of the specialization constant holding the rasterizer's sample count
    /// (`sampleinfo`/`samplepos` on `rasterizer`); the reflection lists it when used.
    #[arg(long, value_name = "ID", default_value_t = 0)]
    pub sample_count_spec_id: u32,
    /// Ask for fp32 denormals to be flushed (DenormFlushToZero), as D3D requires; only for
    /// devices that report shaderDenormFlushToZeroFloat32.
    #[arg(long)]
    pub denorm_flush: bool,
    /// Carry float precision as SPV_KHR_float_controls2 fast-math defaults and decorations
    /// instead of NoContraction on every precise operation (smaller modules, same results);
    /// only for devices that report shaderFloatControls2.
    #[arg(long)]
    pub float_controls2: bool,
    /// Rasterizer-ordered UAVs (`_rov`): `interlock` (fragment shader interlock) or, for
    /// devices without it, `unordered`.
    #[arg(long, value_enum, value_name = "MODE", default_value = "interlock")]
    pub rov: Rov,
    /// `ld_raw_s`/`ld_structured_s` with a status: `texel-buffer` (the SRV becomes an
    /// R32_UINT uniform texel buffer) or `refuse`.
    #[arg(long, value_enum, value_name = "MODE", default_value = "texel-buffer")]
    pub raw_feedback: RawFeedbackArg,
    /// Make the immediate constant buffer a uniform buffer placed like constant buffer
    /// `b<REGISTER>` (of `--icb-space`), instead of a private array; the reflection carries
    /// its data.
    #[arg(long, value_name = "REGISTER")]
    pub icb_uniform_buffer: Option<u32>,
    /// Register space of `--icb-uniform-buffer`.
    #[arg(
        long,
        value_name = "SPACE",
        default_value_t = 0,
        requires = "icb_uniform_buffer"
    )]
    pub icb_space: u32,
    /// Compute minimum-precision operands (min16float, min10float, min16int, min16uint) on
    /// 16-bit types (needs shaderFloat16/shaderInt16) instead of 32-bit RelaxedPrecision.
    #[arg(long)]
    pub native_16bit: bool,
    /// Views declared as R32_UINT texel buffers instead of storage buffers (comma-separated:
    /// raw-srv, raw-uav, uav-counter, all).
    #[arg(long, value_enum, value_name = "KIND,...", value_delimiter = ',')]
    pub texel_buffers: Vec<TexelBufferArg>,
    /// Declare typed UAVs that are read with an R32 format (devices without
    /// shaderStorageImageReadWithoutFormat).
    #[arg(long)]
    pub typed_uav_read_r32: bool,
    /// The rasterizer's sample count as a constant instead of a specialization constant.
    #[arg(long, value_name = "N")]
    pub rasterizer_sample_count: Option<u32>,
    /// Pixel shaders: the swizzle of each render target's colour, render target 0 first
    /// (comma-separated, e.g. `wxyz,xyzw`).
    #[arg(long, value_name = "SWIZZLE,...", value_delimiter = ',', value_parser = parse_swizzle)]
    pub output_swizzles: Vec<[translator::SwizzleComponent; 4]>,
    /// Pixel shaders: dual-source blending (o0 and o1 to location 0, indices 0 and 1).
    #[arg(long)]
    pub dual_source_blending: bool,
    /// Which stages write PointSize = 1.0: none, vertex, all (vertex, domain, geometry).
    #[arg(long, value_enum, value_name = "STAGES", default_value = "none")]
    pub point_size: PointSizeArg,
    /// The device features present (comma-separated: float64, int64, wave-ops,
    /// zero-init-workgroup); programs needing one not listed are refused. Without it the
    /// translator assumes its defaults.
    #[arg(long, value_enum, value_name = "FEATURE,...", value_delimiter = ',', num_args = 0..)]
    pub device_features: Option<Vec<FeatureArg>>,
    /// Direct3D 9 programs: plain IEEE multiplication instead of D3D9's 0 × anything = 0
    /// (and log(0) = −∞ instead of −FLT_MAX).
    #[arg(long)]
    pub d3d9_ieee_multiply: bool,
    /// Direct3D 9 programs: each s# as one combined image-sampler descriptor instead of a
    /// sampled image (t#) and a sampler (s#).
    #[arg(long)]
    pub d3d9_combined_samplers: bool,
    /// Direct3D 9 vertex shaders for a software vertex-processing device: 8192 float, 2048
    /// integer and 2048 boolean constants.
    #[arg(long)]
    pub d3d9_software_vertex_processing: bool,
    /// Direct3D 9 programs past the runtime's register limits are translated instead of
    /// refused (constants past the range read from their buffer; ps_2_0/vs_2_0 may use the
    /// 2_x instructions and constants).
    #[arg(long)]
    pub d3d9_relaxed_limits: bool,
    /// Direct3D 9 programs: how one render-state item reaches the module, repeatable:
    /// `ITEM=spec[:ID]`, `ITEM=push:OFFSET` or `ITEM=baked:V[,V...]` (`alpha-func=spec`,
    /// `fog-colour=baked:1,0,0,1`, `clip-planes=push:16`; items and defaults in docs/d3d9.md).
    #[arg(long = "d3d9-state", value_name = "ITEM=HOW", value_parser = translator::d3d9_state::parse_choice)]
    pub d3d9_state: Vec<(
        translator::d3d9_state::StateItem,
        translator::d3d9_state::StateDelivery,
    )>,
    /// Direct3D 9 programs: the base added to the table's specialization constant IDs of the
    /// render-state items.
    #[arg(long, value_name = "ID", default_value_t = 0)]
    pub d3d9_state_spec_base: u32,
    /// Direct3D 9 programs: bake every render-state item to D3D9's initial state, so the
    /// module is the plain shader with no fixed-function state code; `--d3d9-state` choices
    /// still apply on top.
    #[arg(long)]
    pub d3d9_no_state: bool,
    /// A stream-output (transform feedback) declaration entry, repeatable, in declaration
    /// order: `[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]` (`SV_Position.xyzw`, `1:TEXCOORD1.yz@1`,
    /// `$SKIP.xy` for a gap; docs/cli.md). For vertex, domain and geometry shaders.
    #[arg(long = "so", value_name = "ENTRY", value_parser = crate::stream_output::parse_entry)]
    pub so: Vec<translator::StreamOutputEntry>,
    /// Stream-output buffer strides in bytes, slot 0 first (`16,32`; 0 or absent: packed).
    #[arg(long, value_name = "BYTES,...", value_parser = crate::stream_output::parse_strides, requires = "so")]
    pub so_strides: Option<[u32; 4]>,
    /// The stream the rasterizer draws when stream output is on (`0`-`3`, or `none`).
    #[arg(long, value_name = "N|none", value_parser = crate::stream_output::parse_rasterized, requires = "so")]
    pub rasterized_stream: Option<crate::stream_output::Rasterized>,
}

impl TranslateOptions {
    /// The translator's options; reads and validates the layout file, if any.
    pub fn options(&self) -> Result<Options, CliError> {
        let binding = match &self.layout {
            Some(path) => {
                let name = path.display().to_string();
                let text = std::fs::read_to_string(path).map_err(|e| CliError::input(&name, e))?;
                Binding::from(BindingLayout::parse(&text).map_err(|e| CliError::input(&name, e))?)
            }
            None => Binding::Policy(self.binding_policy.into()),
        };
        Ok(Options {
            target_env: self.target_env.into(),
            debug_names: self.debug_names,
            binding,
            denorm_flush_f32: self.denorm_flush,
            float_controls2: self.float_controls2,
            rasterizer_sample_count_spec_id: self.sample_count_spec_id,
            rov: self.rov.into(),
            raw_feedback: self.raw_feedback.into(),
            icb: match self.icb_uniform_buffer {
                Some(register) => IcbMode::UniformBuffer {
                    space: self.icb_space,
                    register,
                },
                None => IcbMode::PrivateArray,
            },
            min_precision: if self.native_16bit {
                translator::MinPrecisionMode::Native16
            } else {
                translator::MinPrecisionMode::Relaxed32
            },
            d3d9: translator::D3d9Options {
                ieee_multiply: self.d3d9_ieee_multiply,
                combined_samplers: self.d3d9_combined_samplers,
                software_vertex_processing: self.d3d9_software_vertex_processing,
                relaxed_limits: self.d3d9_relaxed_limits,
                state: {
                    let mut st = if self.d3d9_no_state {
                        translator::d3d9_state::StateOptions::none()
                    } else {
                        translator::d3d9_state::StateOptions::default()
                    };
                    st.spec_id_base = self.d3d9_state_spec_base;
                    for (item, how) in &self.d3d9_state {
                        st.set(*item, how.clone());
                    }
                    st.check().map_err(CliError)?;
                    st
                },
                ..Default::default()
            },
            stream_output: (!self.so.is_empty()).then(|| translator::StreamOutput {
                entries: self.so.clone(),
                strides: self.so_strides.unwrap_or_default(),
                rasterized_stream: self.rasterized_stream.map_or(Some(0), |r| r.0),
            }),
            texel_buffers: {
                let has = |k| {
                    self.texel_buffers.contains(&k)
                        || self.texel_buffers.contains(&TexelBufferArg::All)
                };
                translator::TexelBuffers {
                    raw_srv: has(TexelBufferArg::RawSrv),
                    raw_uav: has(TexelBufferArg::RawUav),
                    uav_counter: has(TexelBufferArg::UavCounter),
                }
            },
            typed_uav_read: if self.typed_uav_read_r32 {
                translator::TypedUavRead::R32
            } else {
                translator::TypedUavRead::WithoutFormat
            },
            rasterizer_sample_count: self.rasterizer_sample_count,
            output_swizzles: self.output_swizzles.clone(),
            dual_source_blending: self.dual_source_blending,
            point_size: match self.point_size {
                PointSizeArg::None => translator::PointSize::Unwritten,
                PointSizeArg::Vertex => translator::PointSize::Vertex,
                PointSizeArg::All => translator::PointSize::AllStages,
            },
            device_features: self
                .device_features
                .as_ref()
                .map(|f| translator::DeviceFeatures {
                    float64: f.contains(&FeatureArg::Float64),
                    int64: f.contains(&FeatureArg::Int64),
                    wave_ops: f.contains(&FeatureArg::WaveOps),
                    zero_initialize_workgroup_memory: f.contains(&FeatureArg::ZeroInitWorkgroup),
                }),
        })
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputsArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Write SPIR-V disassembly text (`.spvasm`) instead of the binary (`.spv`).
    #[arg(long)]
    pub text: bool,
    /// Write a JSON report of every input (status, error kind and message, output size,
    /// time) to FILE (`-`: standard output).
    #[arg(long = "json", visible_alias = "report", value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub opts: TranslateOptions,
}

/// Translates one input already read: the SPIR-V binary or its text.
fn produce(
    text: bool,
    opts: &Options,
    input: &InputArgs,
    data: &[u8],
) -> Result<Produced, Failure> {
    let warnings = checksum_warning(input, data).map_err(|e| Failure::new("checksum", e))?;
    let t =
        translator::translate(data, opts).map_err(|e| Failure::translator(&input.name(), &e))?;
    let bytes = if text {
        disassemble(&t.spirv)
            .map_err(|e| Failure::new("internal", e))?
            .into_bytes()
    } else {
        t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect()
    };
    Ok(Produced { bytes, warnings })
}

/// The checksum policy for an input that may not even parse (translation reports that).
pub fn checksum_warning(input: &InputArgs, data: &[u8]) -> Result<Vec<String>, CliError> {
    match translator::container::Container::parse(data) {
        Ok(c) => Ok(input.check_checksum(&c)?.into_iter().collect()),
        Err(_) => Ok(Vec::new()),
    }
}

/// SPIR-V disassembly of a module (rspirv).
pub fn disassemble(words: &[u32]) -> Result<String, CliError> {
    let module = rspirv::dr::load_words(words)
        .map_err(|e| CliError(format!("cannot reload own SPIR-V: {e}")))?;
    Ok(module.disassemble() + "\n")
}

pub fn run(args: &Args) -> Result<ExitCode, Usage> {
    if !args.text
        && args.out.out_dir.is_none()
        && batch::binary_to_terminal(args.out.output.as_deref(), std::io::stdout().is_terminal())
    {
        return Err(Usage(
            "refusing to write binary SPIR-V to a terminal: write it to a file with -o FILE, or print the disassembly with --text".into(),
        ));
    }
    let opts = match args.opts.options() {
        Ok(opts) => opts,
        Err(e) => return Ok(batch::fatal(e)),
    };
    let spec = Spec {
        command: "translate",
        verb: "translated",
        extension: if args.text { "spvasm" } else { "spv" },
        report: args.report.as_deref(),
    };
    batch::run(&args.input, &args.out, &spec, &|input, data| {
        produce(args.text, &opts, input, data)
    })
}
