//! `dxbc translate`: DXBC → SPIR-V, one file or many, binary or as text; and `dxbc reflect`.

use std::path::PathBuf;

use rspirv::binary::Disassemble;
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

/// Options shared by `translate`, `reflect` and `cfg`.
#[derive(Debug, clap::Args)]
pub struct TranslateOptions {
    /// Vulkan target environment (fixes the SPIR-V version).
    #[arg(long, value_enum, default_value = "vulkan1.3")]
    pub target_env: Env,
    /// Emit OpName debug names.
    #[arg(long)]
    pub debug_names: bool,
}

impl TranslateOptions {
    pub fn options(&self) -> Options {
        Options { target_env: self.target_env.into(), debug_names: self.debug_names, ..Default::default() }
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
fn translate_one(file: &PathBuf, strict: bool, opts: &Options, warnings: &mut Vec<String>) -> Result<Vec<u32>, CliError> {
    let input = InputArgs { file: file.clone(), strict };
    let data = input.read()?;
    warnings.extend(checksum_warning(&input, &data)?);
    let t = translator::translate(&data, opts).map_err(|e| CliError::input(&input.name(), e))?;
    Ok(t.spirv)
}

/// The checksum policy for an input that may not even parse (translation reports that).
fn checksum_warning(input: &InputArgs, data: &[u8]) -> Result<Vec<String>, CliError> {
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
    let module = rspirv::dr::load_words(words).map_err(|e| CliError(format!("cannot reload own SPIR-V: {e}")))?;
    Ok(module.disassemble() + "\n")
}

pub fn run(args: &Args) -> Result<(Output, Vec<u8>), CliError> {
    let opts = args.opts.options();
    let mut warnings = Vec::new();
    if args.files.len() > 1 && args.out_dir.is_none() {
        return Err(CliError("several inputs need --out-dir".into()));
    }
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| CliError::input(&dir.display().to_string(), e))?;
        for f in &args.files {
            let words = translate_one(f, args.strict, &opts, &mut warnings)?;
            let stem = f.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "stdin".into());
            let (name, bytes) = if args.text {
                (format!("{stem}.spvasm"), disassemble(&words)?.into_bytes())
            } else {
                (format!("{stem}.spv"), words_to_bytes(&words))
            };
            let out = dir.join(name);
            std::fs::write(&out, bytes).map_err(|e| CliError::input(&out.display().to_string(), e))?;
        }
        return Ok((Output { stdout: String::new(), warnings }, Vec::new()));
    }
    let words = translate_one(&args.files[0], args.strict, &opts, &mut warnings)?;
    let bytes = if args.text { disassemble(&words)?.into_bytes() } else { words_to_bytes(&words) };
    match &args.output {
        Some(out) => {
            std::fs::write(out, &bytes).map_err(|e| CliError::input(&out.display().to_string(), e))?;
            Ok((Output { stdout: String::new(), warnings }, Vec::new()))
        }
        None => Ok((Output { stdout: String::new(), warnings }, bytes)),
    }
}

#[derive(Debug, clap::Args)]
pub struct ReflectArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub opts: TranslateOptions,
}

/// `dxbc reflect`: the reflection of a translation, as JSON.
pub fn reflect(args: &ReflectArgs) -> Result<Output, CliError> {
    let data = args.input.read()?;
    let warnings = checksum_warning(&args.input, &data)?;
    let t = translator::translate(&data, &args.opts.options()).map_err(|e| CliError::input(&args.input.name(), e))?;
    let mut stdout = serde_json::to_string_pretty(&t.reflection).map_err(|e| CliError(e.to_string()))?;
    stdout.push('\n');
    Ok(Output { stdout, warnings })
}
