//! Fuzz target: everything that reads an untrusted DXBC blob — the container header and chunk
//! table, checksum, every chunk parser, the typed view and its fxc-style header, `sm4::decode`
//! and the disassembly `Display`. Besides panics, hangs and memory blow-ups (which libFuzzer
//! catches), it asserts that container errors name an offset inside the blob.

#![no_main]

use libfuzzer_sys::fuzz_target;
use translator::container::header::{CommentFooter, CommentHeader};
use translator::container::{
    Container, ContainerError, FeatureFlags, Interfaces, ParsedContainer, ResourceDefinitions,
    ShaderVersion, Signature, Statistics,
};
use translator::sm4;

fn check(e: &ContainerError, len: usize) {
    assert!(
        e.offset <= len,
        "container error outside the {len}-byte blob: {e}"
    );
}

fuzz_target!(|data: &[u8]| {
    match Container::parse(data) {
        Err(e) => check(&e, data.len()),
        Ok(c) => {
            let _ = c.verify_checksum();
            for chunk in &c.chunks {
                let result = match &chunk.tag {
                    b"ISGN" | b"OSGN" | b"PCSG" | b"OSG5" | b"ISG1" | b"OSG1" | b"PSG1" => {
                        Signature::parse(chunk).map(|_| ())
                    }
                    b"RDEF" => ResourceDefinitions::parse(chunk).map(|_| ()),
                    b"STAT" => Statistics::parse(chunk).map(|_| ()),
                    b"SFI0" => FeatureFlags::parse(chunk).map(|_| ()),
                    b"IFCE" => Interfaces::parse(chunk).map(|_| ()),
                    b"SHDR" | b"SHEX" => {
                        if let Ok(program) = sm4::decode(chunk.data, chunk.offset) {
                            std::hint::black_box(program.to_string());
                        }
                        ShaderVersion::from_program_chunk(chunk).map(|_| ())
                    }
                    _ => Ok(()),
                };
                if let Err(e) = result {
                    check(&e, data.len());
                }
            }
        }
    }
    match ParsedContainer::parse(data) {
        Ok(p) => {
            std::hint::black_box(format!("{}{}", CommentHeader(&p), CommentFooter(&p)));
        }
        Err(e) => check(&e, data.len()),
    }
});
