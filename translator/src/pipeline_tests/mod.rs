//! Tests that run the whole pipeline (container → lowering → passes → SPIR-V) on small
//! programs to pin what one stage does. They live here, beside the orchestrator, rather than in
//! the stage they test, so that no stage depends on `translate.rs`; tests of one stage alone
//! build its input directly (IR built with `ir::builder` for the passes).

mod alu;
mod cfg;
mod classes;
mod copies;
mod flow;
mod icb_buffer;
mod layer;
mod loop_vectors;
mod patch_sysval;
mod precision;
mod query;
mod raw_feedback;
mod reuse;
mod rov;
mod row_stores;
mod signature;
mod structurize;
mod sysval;

/// Runs `spirv-val` (Vulkan 1.3 rules) on a module and panics with its message when it
/// refuses it. Without `spirv-val` on the machine it says so and checks nothing more.
pub(crate) fn validate(words: &[u32]) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "translator-unit-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Err(_) => eprintln!("SKIPPED: spirv-val is not installed; the module is not validated"),
        Ok(o) => assert!(
            o.status.success(),
            "spirv-val: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    }
}
