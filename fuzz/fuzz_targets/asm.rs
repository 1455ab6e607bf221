//! Fuzz target: the assembler on arbitrary text — lexer, mnemonic and operand parsing,
//! declarations, signature directives and comment tables, the encode/decode check and the
//! container writer. Besides panics, hangs and memory blow-ups (which libFuzzer catches), it
//! asserts that errors name a line inside the text, and that a text that assembles gives a
//! container that parses and a program whose disassembly assembles to the same chunk.

#![no_main]

use libfuzzer_sys::fuzz_target;
use translator::asm;
use translator::container::ParsedContainer;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match asm::parse(text) {
        Err(e) => {
            let lines = text.split('\n').count() as u32;
            assert!(
                e.line >= 1 && e.line <= lines + 1 && e.column >= 1,
                "error outside the text: {e}"
            );
        }
        Ok(a) => {
            if let Ok(blob) = a.to_container() {
                ParsedContainer::parse(&blob).expect("assembled container parses");
            }
            let listing = a.program.to_string();
            let again = asm::parse(&listing)
                .unwrap_or_else(|e| panic!("disassembly does not reassemble: {e}\n{listing}"));
            assert_eq!(again.chunk, a.chunk, "disassembly reassembles differently");
        }
    }
});
