//! Reading the shader a subcommand works on, recognising what a file holds, and the checksum
//! policy.
//!
//! `cfg` takes [`InputArgs`] (one path or `-` for stdin); `info`, `disasm`, `translate` and
//! `reflect` take [`InputsArgs`] (files and directories, see `batch`). Both carry `--strict`,
//! which turns a checksum mismatch from a warning into an error. [`sniff`] recognises shaders by
//! their first bytes, never by their names, [`not_supported`] is the one place that says
//! which recognised formats the commands pass over, and [`assembly_version`] tells assembly
//! text (which `dxbc asm` turns into a shader) from other files that are not shaders, so that
//! the error or skip says what to do.

use std::io::Read;
use std::path::{Path, PathBuf};

use translator::container::{Container, ParsedContainer, format_checksum};

use crate::batch::Failure;
use crate::cli_error::CliError;

/// Inputs larger than this are refused rather than read into memory.
const MAX_INPUT: u64 = 256 << 20;

/// What a file holds, recognised by its first four bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A DXBC container (starts with `DXBC`).
    Dxbc,
    /// A bare Direct3D 9 token stream: version token `0xFFFE_MMmm` (vertex shader) or
    /// `0xFFFF_MMmm` (pixel shader), major version 1 to 3.
    D3d9,
    /// Anything else: not a shader.
    Other,
}

/// Recognises a file by its first bytes (fewer than four: [`Format::Other`]).
pub fn sniff(head: &[u8]) -> Format {
    match head {
        [b'D', b'X', b'B', b'C', ..] => Format::Dxbc,
        [_minor, 1..=3, 0xFE | 0xFF, 0xFF, ..] => Format::D3d9,
        _ => Format::Other,
    }
}

/// Why `command` passes over a shader of a recognised format, when it does: batch runs count
/// such a file as skipped with this reason, a single input is an error saying it. The one place
/// to change when a command cannot read a format: today every command reads both DXBC
/// containers and Direct3D 9 token streams (`translate` and `reflect` through
/// `translator/src/lower_d3d9/`).
pub fn not_supported(format: Format, command: &str) -> Option<&'static str> {
    let _ = command;
    match format {
        Format::D3d9 | Format::Dxbc | Format::Other => None,
    }
}

/// How many bytes of a file that is not a shader are read to see whether it is assembly text.
const TEXT_HEAD: u64 = 4096;

/// The shader model a file of assembly text starts with (`ps_5_0`, `vs_1_1`, `ps.1.4`), after
/// blank and comment lines (`//`, `;`, as `dxbc disasm` and Microsoft's assembler write them);
/// `None` when `head` (a file's first bytes) is not such text.
pub fn assembly_version(head: &[u8]) -> Option<String> {
    let head = &head[..head.len().min(TEXT_HEAD as usize)];
    let text = String::from_utf8_lossy(head);
    let line = text
        .lines()
        .map(|l| {
            let end = [l.find("//"), l.find(';')]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(l.len());
            l[..end].trim()
        })
        .find(|l| !l.is_empty())?;
    let word = line.split_whitespace().next()?.to_ascii_lowercase();
    let b = word.as_bytes();
    let stage = matches!(
        &b[..2.min(b.len())],
        b"vs" | b"ps" | b"gs" | b"hs" | b"ds" | b"cs"
    );
    let minor = b.get(5..).unwrap_or_default();
    let shape = b.len() >= 6
        && matches!(b[2], b'_' | b'.')
        && (b'1'..=b'5').contains(&b[3])
        && matches!(b[4], b'_' | b'.')
        && (minor.iter().all(u8::is_ascii_digit) || minor == b"x" || minor == b"sw");
    (stage && shape).then_some(word)
}

/// The error for a single input that is assembly text rather than a shader: what it looks like
/// and the command that assembles it.
pub fn assembly_hint(name: &str, data: &[u8]) -> Option<CliError> {
    if sniff(data) != Format::Other {
        return None;
    }
    let version = assembly_version(data)?;
    // `dxbc asm` writes a bare token stream for Direct3D 9 text, a container otherwise.
    let head = &data[..data.len().min(TEXT_HEAD as usize)];
    let d3d9 = translator::d3dbc::asm::is_d3d9_text(&String::from_utf8_lossy(head));
    let out = Path::new(name).with_extension(if d3d9 { "d3dbc" } else { "dxbc" });
    Some(CliError::input(
        name,
        format!(
            "looks like assembly text ({version}), not a shader binary: assemble it first with `dxbc asm {name} -o {}`",
            out.display()
        ),
    ))
}

/// Why a batch run passes over a file it found, from its format and first bytes (`head`):
/// not a shader (assembly text said apart), or a recognised format the command does not read.
pub fn skip_reason(format: Format, head: &[u8], command: &str) -> Option<&'static str> {
    match format {
        Format::Other if assembly_version(head).is_some() => Some(ASSEMBLY_TEXT),
        Format::Other => Some(NOT_A_SHADER),
        _ => not_supported(format, command),
    }
}

/// The reason a file that is not a shader is skipped.
pub const NOT_A_SHADER: &str = "not a shader";
/// The reason a file of assembly text is skipped.
pub const ASSEMBLY_TEXT: &str = "assembly text (dxbc asm assembles it)";

/// Reads a file found by a batch run: its first bytes, and the rest only when they are those of
/// a shader (a directory walk meets textures and archives too); of a file that is not a shader,
/// enough to tell assembly text.
pub fn read_recognised(path: &Path, command: &str) -> std::io::Result<(Format, Vec<u8>)> {
    let mut file = std::fs::File::open(path)?;
    let mut data = Vec::new();
    (&mut file).take(4).read_to_end(&mut data)?;
    let format = sniff(&data);
    if format == Format::Other {
        (&mut file).take(TEXT_HEAD - 4).read_to_end(&mut data)?;
        return Ok((format, data));
    }
    if not_supported(format, command).is_some() {
        return Ok((format, data));
    }
    file.take(MAX_INPUT + 1 - data.len() as u64)
        .read_to_end(&mut data)?;
    if data.len() as u64 > MAX_INPUT {
        return Err(std::io::Error::other(format!(
            "input is larger than {} MiB",
            MAX_INPUT >> 20
        )));
    }
    Ok((format, data))
}

/// The inputs of a command that takes many: files, directories (walked recursively) or `-`.
#[derive(Debug, clap::Args)]
pub struct InputsArgs {
    /// Shader files, or directories to walk recursively (shaders are recognised by content);
    /// `-` reads standard input.
    #[arg(value_name = "INPUT", required = true)]
    pub files: Vec<PathBuf>,
    /// Treat a checksum mismatch as an error instead of a warning.
    #[arg(long)]
    pub strict: bool,
}

/// The input shader and how strictly to check it.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// DXBC file to read; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Treat a checksum mismatch as an error instead of a warning.
    #[arg(long)]
    pub strict: bool,
}

impl InputArgs {
    /// The name to use in messages.
    pub fn name(&self) -> String {
        if self.is_stdin() {
            "<stdin>".to_string()
        } else {
            self.file.display().to_string()
        }
    }

    fn is_stdin(&self) -> bool {
        self.file.as_os_str() == "-"
    }

    /// Reads the whole input.
    pub fn read(&self) -> Result<Vec<u8>, CliError> {
        let mut data = Vec::new();
        let result = if self.is_stdin() {
            std::io::stdin()
                .lock()
                .take(MAX_INPUT + 1)
                .read_to_end(&mut data)
        } else {
            std::fs::File::open(&self.file)
                .and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut data))
        };
        result.map_err(|e| CliError::input(&self.name(), e))?;
        if data.len() as u64 > MAX_INPUT {
            return Err(CliError::input(
                &self.name(),
                format!("input is larger than {} MiB", MAX_INPUT >> 20),
            ));
        }
        Ok(data)
    }

    /// Applies the checksum policy: `Err` under `--strict`, otherwise a warning to print.
    pub fn check_checksum(&self, container: &Container<'_>) -> Result<Option<String>, CliError> {
        let computed = container.computed_checksum();
        if computed == container.checksum {
            return Ok(None);
        }
        let message = format!(
            "checksum mismatch: header has {}, contents hash to {}",
            format_checksum(&container.checksum),
            format_checksum(&computed)
        );
        if self.strict {
            Err(CliError::input(&self.name(), message))
        } else {
            Ok(Some(format!("{}: {message}", self.name())))
        }
    }
}

/// Parses a DXBC container and checks its checksum: the container, and the checksum warning
/// (an error under `--strict`) — the common start of `info` and `disasm`.
pub fn parse_checked<'a>(
    input: &InputArgs,
    data: &'a [u8],
) -> Result<(ParsedContainer<'a>, Option<String>), Failure> {
    let name = input.name();
    let parsed = ParsedContainer::parse(data).map_err(|e| {
        Failure::new(
            "container",
            CliError::input(&name, format!("container: {e}")),
        )
    })?;
    let warning = input
        .check_checksum(&parsed.container)
        .map_err(|e| Failure::new("checksum", e))?;
    Ok((parsed, warning))
}

#[cfg(test)]
mod tests {
    use super::{Format, assembly_hint, assembly_version, not_supported, sniff};

    #[test]
    fn tells_assembly_text() {
        for (text, version) in [
            ("ps_5_0\ndcl_output o0.xyzw\n", "ps_5_0"),
            (
                "// Generated by dxbc disasm\n//\n\n  VS_4_1 // comment\nret\n",
                "vs_4_1",
            ),
            ("; D3D9\nps.1.4\ntexld r0, t0\n", "ps.1.4"),
            ("vs_3_sw\n", "vs_3_sw"),
            ("ps_2_x\n", "ps_2_x"),
            ("cs_5_1\n", "cs_5_1"),
        ] {
            assert_eq!(
                assembly_version(text.as_bytes()).as_deref(),
                Some(version),
                "{text}"
            );
        }
        for text in [
            "",
            "hello world\n",
            "ps_5\n",
            "xs_5_0\n",
            "ps_9_0\n",
            "[require]\nshader model >= 4.0\n",
            "float4 main() : SV_Target { return 0; }\n",
            "ps_5_0x\n",
        ] {
            assert_eq!(assembly_version(text.as_bytes()), None, "{text}");
        }
        let hint = assembly_hint("a/b.asm", b"ps_5_0\nret\n").unwrap().0;
        assert!(hint.contains("dxbc asm a/b.asm -o a/b.dxbc"), "{hint}");
        let hint = assembly_hint("t.asm", b"ps_1_4\n").unwrap().0;
        assert!(hint.contains("-o t.d3dbc"), "{hint}");
        // A shader binary, or text that is not assembly, gets no hint.
        assert!(assembly_hint("x", b"DXBC ps_5_0").is_none());
        assert!(assembly_hint("x", b"notes").is_none());
    }

    #[test]
    fn recognises_by_first_bytes() {
        assert_eq!(sniff(b"DXBC\x01\x02"), Format::Dxbc);
        // vs_2_0, ps_1_1, ps_3_0 and vs_3_sw version tokens.
        for token in [0xFFFE_0200u32, 0xFFFF_0101, 0xFFFF_0300, 0xFFFE_03FF] {
            assert_eq!(sniff(&token.to_le_bytes()), Format::D3d9, "{token:#x}");
        }
        // Major version 0 or 4, a UTF-16 byte-order mark, too short, text.
        for head in [
            &0xFFFE_0000u32.to_le_bytes()[..],
            &0xFFFF_0400u32.to_le_bytes(),
            b"\xFF\xFEa\x00",
            b"DXB",
            b"",
            b"text",
        ] {
            assert_eq!(sniff(head), Format::Other, "{head:?}");
        }
        assert_eq!(not_supported(Format::D3d9, "translate"), None);
        assert_eq!(not_supported(Format::D3d9, "reflect"), None);
        assert_eq!(not_supported(Format::D3d9, "disasm"), None);
        assert_eq!(not_supported(Format::Dxbc, "translate"), None);
    }
}
