//! Fuzz target: the Direct3D 9 decoder, disassembler and assembler (`translator::d3dbc`).
//!
//! On bytes: `decode` returns a program or a one-line error naming an offset within the
//! data; a program's constant tables parse or fail cleanly, and its disassembly assembles to
//! the identical bytes; `translate` returns a module or a one-line error (naming an offset
//! within the data when it names one), never a panic. On UTF-8 text that
//! starts with a D3D9 version line: the assembler returns a program or an error naming a line
//! inside the text, and a program's disassembly assembles to the same bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use translator::d3dbc;

fuzz_target!(|data: &[u8]| {
    match d3dbc::decode(data) {
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains('\n'), "multi-line error: {text}");
            assert!(e.offset <= data.len(), "offset outside the data: {text}");
        }
        Ok(p) => {
            for c in p.comments() {
                if let Some(Err(e)) = c.ctab() {
                    assert!(e.offset <= data.len(), "CTAB offset outside the data: {e}");
                }
            }
            let listing = p.to_string();
            let bytes = d3dbc::asm::assemble(&listing)
                .unwrap_or_else(|e| panic!("disassembly does not reassemble: {e}\n{listing}"));
            assert_eq!(bytes, data, "disassembly reassembles differently:\n{listing}");
            if let Err(err) = translator::translate(data, &Default::default()) {
                let text = err.to_string();
                assert!(!text.contains('\n'), "multi-line error: {text}");
                assert!(err.offset().is_none_or(|o| o <= data.len()), "offset outside the data: {text}");
            }
        }
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if !d3dbc::asm::is_d3d9_text(text) {
        return;
    }
    match d3dbc::asm::parse(text) {
        Err(e) => {
            let lines = text.split('\n').count() as u32;
            assert!(e.line >= 1 && e.line <= lines + 1 && e.column >= 1, "error outside the text: {e}");
        }
        Ok(p) => {
            let bytes = d3dbc::encode(&p).expect("a parsed program encodes");
            let listing = p.to_string();
            let again = d3dbc::asm::assemble(&listing)
                .unwrap_or_else(|e| panic!("disassembly does not reassemble: {e}\n{listing}"));
            assert_eq!(again, bytes, "disassembly reassembles differently:\n{listing}");
        }
    }
});
