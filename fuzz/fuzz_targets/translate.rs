//! Fuzz target: the whole translator on an arbitrary blob — container, decoder, lowering, every
//! pass (structurizer, SSA, simplification, CSE, DCE) and SPIR-V emission, for Vulkan 1.3 and
//! 1.1. Besides panics, hangs and memory blow-ups (which libFuzzer catches; run it with a small
//! `-timeout` to catch slow inputs too), it asserts that errors are one line and that a module
//! that comes out is well-formed words (the magic number, instruction word counts that tile the
//! module exactly) and valid: every distinct module is piped through `spirv-val` (from
//! spirv-tools, on PATH) for its target environment, and a module it rejects is a finding.
//! Without spirv-val the target says so once and checks the words only.

#![no_main]

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use translator::{Options, TargetEnv, translate};

/// Hashes of the modules validated so far (spirv-val is a process per module).
static SEEN: Mutex<Option<HashSet<u64>>> = Mutex::new(None);
static NO_SPIRV_VAL: std::sync::Once = std::sync::Once::new();

/// spirv-val's verdict on `words` for `env`: `Some(message)` when it rejects the module,
/// `None` when it accepts it or is not installed.
fn spirv_val(words: &[u32], env: TargetEnv) -> Option<String> {
    let child = Command::new("spirv-val")
        .args(["--target-env", env.spirv_val_name(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        NO_SPIRV_VAL.call_once(|| {
            eprintln!("spirv-val not found: emitted modules are not validated");
        });
        return None;
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("spirv-val runs");
    let _ = writer.join();
    (!out.status.success()).then(|| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

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
                let mut h = DefaultHasher::new();
                (env.spirv_val_name(), w).hash(&mut h);
                let new = SEEN
                    .lock()
                    .unwrap()
                    .get_or_insert_with(HashSet::new)
                    .insert(h.finish());
                if new && let Some(msg) = spirv_val(w, env) {
                    panic!("spirv-val rejects the module ({}): {msg}", env.spirv_val_name());
                }
            }
        }
    }
});
