//! The assembler against the corpus: assembling our disassembly of every `.dxbc` under
//! `../shared/corpus/dxbc` and `../shared/bench/dxbc` reproduces its SHDR/SHEX chunk byte for
//! byte, both from the bare listing and from the full `dxbc disasm` text (comment header
//! included); the signatures read back from the comment header's tables match the original
//! chunks in every field the tables show, and the signatures printed as directives rebuild
//! the original signature chunks exactly.
//!
//! Skips (recording why: `integration_tests::skip`) when `../shared` is absent.

use std::path::PathBuf;

use integration_tests::{dxbc_files, shared_dir_or_skip, skip};
use translator::asm;
use translator::container::header::{CommentFooter, CommentHeader};
use translator::container::{Container, ParsedContainer, SignatureKind};
use translator::sm4;

fn corpus() -> Option<Vec<PathBuf>> {
    let shared = shared_dir_or_skip()?;
    let mut files = dxbc_files(&shared.join("corpus/dxbc"));
    files.extend(dxbc_files(&shared.join("bench/dxbc")));
    if files.is_empty() {
        skip::skip(
            skip::CORPUS,
            "no .dxbc files under ../shared/corpus/dxbc or ../shared/bench/dxbc",
        );
        return None;
    }
    Some(files)
}

/// One file: every check, or the first failure.
fn check_file(data: &[u8]) -> Result<usize, String> {
    let parsed = ParsedContainer::parse(data).map_err(|e| format!("container: {e}"))?;
    let Some(chunk) = parsed.program else {
        return Err("no program chunk".into());
    };
    let program = sm4::decode(chunk.data, chunk.offset).map_err(|e| format!("decode: {e}"))?;
    let listing = program.to_string();

    // 1. The bare listing assembles to the same chunk, and disassembles to the same text.
    let assembly = asm::parse(&listing).map_err(|e| format!("assemble listing: {e}"))?;
    if assembly.chunk != chunk.data {
        return Err("assembled chunk differs from the original".into());
    }
    if assembly.program.to_string() != listing {
        return Err("disasm(asm(listing)) differs from the listing".into());
    }

    // 2. The full `dxbc disasm` text (comment header and footer) assembles to a container
    //    with the same program chunk and the signatures the header tables show.
    let full = format!(
        "{}{listing}{}",
        CommentHeader(&parsed),
        CommentFooter(&parsed)
    );
    let blob = asm::assemble(&full).map_err(|e| format!("assemble full text: {e}"))?;
    let rebuilt = ParsedContainer::parse(&blob).map_err(|e| format!("rebuilt container: {e}"))?;
    if !rebuilt.checksum_matches() {
        return Err("rebuilt container checksum does not verify".into());
    }
    let Some(new_chunk) = rebuilt.program else {
        return Err("rebuilt container has no program".into());
    };
    if new_chunk.data != chunk.data {
        return Err("program chunk of the rebuilt container differs".into());
    }
    // The header prints the table only for signatures present in the container.
    for kind in [
        SignatureKind::Input,
        SignatureKind::Output,
        SignatureKind::PatchConstant,
    ] {
        let (Some(old), Some(new)) = (parsed.signature(kind), rebuilt.signature(kind)) else {
            continue;
        };
        if old.elements.len() != new.elements.len() {
            return Err(format!("{kind:?} signature: element count differs"));
        }
        for (a, b) in old.elements.iter().zip(&new.elements) {
            let shown = |e: &translator::container::SignatureElement<'_>| {
                (
                    e.semantic_name.to_string(),
                    e.semantic_index,
                    e.register,
                    e.mask & 0xf,
                    e.stream,
                    e.system_value_by_name(),
                )
            };
            if shown(a) != shown(b) {
                return Err(format!(
                    "{kind:?} signature element differs: {:?} vs {:?}",
                    shown(a),
                    shown(b)
                ));
            }
        }
    }

    // 3. Signatures as directives rebuild the signature chunks exactly.
    let with_directives = {
        let (first, rest) = listing.split_once('\n').unwrap_or((&listing, ""));
        format!("{first}\n{}{rest}", asm::directives(&parsed))
    };
    let blob = asm::assemble(&with_directives).map_err(|e| format!("assemble directives: {e}"))?;
    let rebuilt = Container::parse(&blob).map_err(|e| format!("container: {e}"))?;
    if rebuilt.shader_chunk().map(|c| c.tag) != Some(chunk.tag) {
        return Err("directives: the program chunk tag differs".into());
    }
    for c in &parsed.container.chunks {
        if translator::container::signature::signature_kind(&c.tag).is_none() {
            continue;
        }
        let Some(new) = rebuilt.chunks.iter().find(|n| n.tag == c.tag) else {
            return Err(format!("directives: no {} chunk", c.tag_str()));
        };
        let (old, new) = (
            translator::container::Signature::parse(c).unwrap(),
            translator::container::Signature::parse(new).unwrap(),
        );
        if old != new {
            return Err(format!(
                "directives: {} differs:\n{old:?}\n{new:?}",
                c.tag_str()
            ));
        }
    }
    Ok(program.instructions.len())
}

#[test]
fn corpus_disassembly_assembles_to_the_same_bytes() {
    let Some(files) = corpus() else {
        return;
    };
    let mut failures = Vec::new();
    let mut instructions = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        match check_file(&data) {
            Ok(n) => instructions += n,
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} files, {instructions} instructions assembled; {} failures",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
