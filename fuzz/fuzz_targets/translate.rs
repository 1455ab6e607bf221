//! Fuzz target: the whole translator on an arbitrary blob — container, decoder, lowering, every
//! pass (structurizer, SSA, simplification, CSE, DCE) and SPIR-V emission, for Vulkan 1.3 and
//! 1.1. Besides panics, hangs and memory blow-ups (which libFuzzer catches; run it with a small
//! `-timeout` to catch slow inputs too), it asserts that errors are one line and that a module
//! that comes out is well-formed words: the magic number, and instruction word counts that
//! tile the module exactly.

#![no_main]

use libfuzzer_sys::fuzz_target;
use translator::{Options, TargetEnv, translate};

fuzz_target!(|data: &[u8]| {
    for env in [TargetEnv::Vulkan1_3, TargetEnv::Vulkan1_1] {
        let opts = Options {
            target_env: env,
            ..Default::default()
        };
        match translate(data, &opts) {
            Err(e) => {
                let msg = e.to_string();
                assert!(!msg.contains('\n'), "multi-line error: {msg}");
            }
            Ok(t) => {
                let w = &t.spirv;
                assert!(w.len() >= 5 && w[0] == 0x0723_0203, "bad SPIR-V header");
                let mut i = 5;
                while i < w.len() {
                    let n = (w[i] >> 16) as usize;
                    assert!(n > 0 && i + n <= w.len(), "bad word count at word {i}");
                    i += n;
                }
            }
        }
    }
});
