//! `dxbc translate`: DXBC → SPIR-V, one file or many, binary or as text; and the options `reflect`, `cfg`
//! and `bench` share (target environment, binding layout or policy).

use std::path::{Path, PathBuf};

use rspirv::binary::Disassemble;
use translator::binding::{Binding, BindingLayout, BindingPolicy};
use translator::{Options, TargetEnv};

use crate::Output;
use crate::cli_error::CliError;
use crate::input::InputArgs;

/// Vulkan target environment, as spirv-val names it.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Env {
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
            rasterizer_sample_count_spec_id: self.sample_count_spec_id,
        })
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// DXBC files to translate (`-` reads standard input).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Output file (one input only); standard output when absent.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Directory for many outputs, each named after its input with `.spv` (or `.spvasm`).
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub out_dir: Option<PathBuf>,
    /// Write SPIR-V disassembly text instead of the binary.
    #[arg(long)]
    pub text: bool,
    /// Treat a checksum mismatch as an error instead of a warning.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub opts: TranslateOptions,
}

/// Translates one input; returns the SPIR-V words.
fn translate_one(
    file: &Path,
    strict: bool,
    opts: &Options,
    warnings: &mut Vec<String>,
) -> Result<Vec<u32>, CliError> {
    let input = InputArgs {
        file: file.to_path_buf(),
        strict,
    };
    let data = input.read()?;
    warnings.extend(checksum_warning(&input, &data)?);
    let t = translator::translate(&data, opts).map_err(|e| CliError::input(&input.name(), e))?;
    Ok(t.spirv)
}

/// The checksum policy for an input that may not even parse (translation reports that).
pub fn checksum_warning(input: &InputArgs, data: &[u8]) -> Result<Vec<String>, CliError> {
    match translator::container::Container::parse(data) {
        Ok(c) => Ok(input.check_checksum(&c)?.into_iter().collect()),
        Err(_) => Ok(Vec::new()),
    }
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// SPIR-V disassembly of a module (rspirv).
pub fn disassemble(words: &[u32]) -> Result<String, CliError> {
    let module = rspirv::dr::load_words(words)
        .map_err(|e| CliError(format!("cannot reload own SPIR-V: {e}")))?;
    Ok(module.disassemble() + "\n")
}

pub fn run(args: &Args) -> Result<(Output, Vec<u8>), CliError> {
    let opts = args.opts.options()?;
    let mut warnings = Vec::new();
    if args.files.len() > 1 && args.out_dir.is_none() {
        return Err(CliError("several inputs need --out-dir".into()));
    }
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| CliError::input(&dir.display().to_string(), e))?;
        for f in &args.files {
            let words = translate_one(f, args.strict, &opts, &mut warnings)?;
            let stem = f
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "stdin".into());
            let (name, bytes) = if args.text {
                (format!("{stem}.spvasm"), disassemble(&words)?.into_bytes())
            } else {
                (format!("{stem}.spv"), words_to_bytes(&words))
            };
            let out = dir.join(name);
            std::fs::write(&out, bytes)
                .map_err(|e| CliError::input(&out.display().to_string(), e))?;
        }
        return Ok((
            Output {
                stdout: String::new(),
                warnings,
            },
            Vec::new(),
        ));
    }
    let words = translate_one(&args.files[0], args.strict, &opts, &mut warnings)?;
    let bytes = if args.text {
        disassemble(&words)?.into_bytes()
    } else {
        words_to_bytes(&words)
    };
    match &args.output {
        Some(out) => {
            std::fs::write(out, &bytes)
                .map_err(|e| CliError::input(&out.display().to_string(), e))?;
            Ok((
                Output {
                    stdout: String::new(),
                    warnings,
                },
                Vec::new(),
            ))
        }
        None => Ok((
            Output {
                stdout: String::new(),
                warnings,
            },
            bytes,
        )),
    }
}
