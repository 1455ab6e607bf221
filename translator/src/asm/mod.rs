//! The DXBC assembler: assembly text in the disassembler's syntax → SM4.0–5.1 program →
//! DXBC container.
//!
//! Why: the compiler that emits DXBC does not run on Linux, other HLSL compilers cannot emit
//! many instruction patterns (SM5.1 descriptor ranges among them), and translators break on
//! bytecode the usual compiler never emits. With an assembler a test writes exactly the
//! bytecode it means.
//!
//! The input is the syntax `Display for sm4::Program` prints (`docs/disassembly.md`: the
//! fxc syntax of the DirectX docs plus `{…}` annotations for encoding details), so
//! `disassemble → assemble` reproduces a program chunk byte for byte. Signatures come from
//! `.input`/`.output`/`.patch` directives or, when there are none, from the signature
//! tables of an fxc-style comment header. `docs/assembler.md` documents the syntax.
//!
//! Steps, one module each: `lexer` (tokens with line and column), `mnemonic` (base name and
//! suffixes), `operand`, `decl` (declaration bodies), `program` (the line loop and the
//! encode/decode check), [`signature`] (directives, comment tables, signature chunks),
//! `container` (chunks and checksum). Every error is an [`AsmError`] naming the line and
//! column and what was expected; no input panics, and nesting is bounded.
//!
//! ```
//! let dxbc = translator::asm::assemble(
//!     "ps_5_0\n.output SV_Target 0 o0.xyzw float\ndcl_output o0.xyzw\n\
//!      mov o0.xyzw, l(1.0, 0.5, 0.25, 1.0)\nret\n",
//! )
//! .unwrap();
//! assert_eq!(&dxbc[..4], b"DXBC");
//! ```

mod container;
mod cursor;
mod decl;
mod error;
mod lexer;
mod literal;
mod mnemonic;
mod operand;
mod program;
pub mod signature;

#[cfg(test)]
mod tests;

use crate::container::SignatureKind;
use crate::sm4::{Program, ProgramType};

pub use error::AsmError;
pub use signature::{Element, SignatureDesc, Signatures, directives};

/// An assembled text: the program, its encoded chunk data and the signatures.
#[derive(Debug, Clone)]
pub struct Assembly {
    /// The program; instruction offsets count from the start of the chunk data.
    pub program: Program,
    /// The SHDR/SHEX chunk data.
    pub chunk: Vec<u8>,
    pub signatures: Signatures,
    /// The program chunk's tag from `.tag program …`; by default SHDR for SM4, SHEX for SM5.
    pub program_tag: Option<[u8; 4]>,
}

/// Parses and encodes a text (program and signatures), without writing a container.
pub fn parse(text: &str) -> Result<Assembly, AsmError> {
    let mut parsed = program::parse(text)?;
    if !parsed.directives {
        signature::comment_tables(
            text,
            parsed.program.version.program_type,
            &mut parsed.signatures,
        )?;
    }
    let chunk = program::validate(&mut parsed)?;
    Ok(Assembly {
        program: parsed.program,
        chunk,
        signatures: parsed.signatures,
        program_tag: parsed.program_tag,
    })
}

/// Assembles a text into the program alone.
pub fn assemble_program(text: &str) -> Result<Program, AsmError> {
    parse(text).map(|a| a.program)
}

/// Assembles a text into a DXBC container (signature chunks, then SHDR for SM4 or SHEX for
/// SM5, checksum filled in).
pub fn assemble(text: &str) -> Result<Vec<u8>, AsmError> {
    parse(text)?.to_container()
}

impl Assembly {
    /// The DXBC container: ISGN and OSGN (empty when no elements are given; their `…1`/`OSG5`
    /// forms where needed), PCSG for hull and domain shaders (or when patch constants are
    /// given), then the program chunk.
    pub fn to_container(&self) -> Result<Vec<u8>, AsmError> {
        let v = self.program.version;
        let stage = v.program_type;
        let mut chunks = Vec::with_capacity(4);
        for kind in [
            SignatureKind::Input,
            SignatureKind::Output,
            SignatureKind::PatchConstant,
        ] {
            let sig = self.signatures.get(kind);
            if kind == SignatureKind::PatchConstant
                && sig.elements.is_empty()
                && sig.tag.is_none()
                && !matches!(stage, ProgramType::Hull | ProgramType::Domain)
            {
                continue;
            }
            let tag = sig
                .tag
                .unwrap_or_else(|| signature::default_tag(kind, &sig.elements, stage, v.major));
            let data = signature::chunk_data(&tag, &sig.elements)
                .map_err(|m| AsmError::new(sig.tag_line.max(1), 1, m))?;
            chunks.push((tag, data));
        }
        let tag = self
            .program_tag
            .unwrap_or(if v.major >= 5 { *b"SHEX" } else { *b"SHDR" });
        chunks.push((tag, self.chunk.clone()));
        Ok(container::write(&chunks))
    }
}
