//! Malformed input never crashes the translator: corpus and bench blobs are mutated
//! deterministically (truncations, bit flips, random words, edits of the program's length and
//! opcode/operand tokens) and each is translated under `catch_unwind`. Every case must return
//! Ok or an error, and finish; a watchdog fails the test on a hang.
//!
//! Mutated programs are fed to `translate` with the container checksum left stale (the
//! translator does not require a valid checksum), so the decoder and every lowering path see
//! the corruption.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use integration_tests::mutate::{Rng, inputs, mutate};
use integration_tests::shared_dir;

#[test]
fn mutated_programs_never_panic_or_hang() {
    let inputs = inputs();
    assert!(!inputs.is_empty());
    let cases_per_input = (30_000 / inputs.len()).max(50);
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if start.elapsed() > Duration::from_secs(600) {
                    eprintln!("translate_mutations: no progress for 10 minutes (hang?)");
                    std::process::exit(1);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let opts = translator::Options::default();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut total, mut ok, mut errors) = (0usize, 0usize, 0usize);
    let mut panics: Vec<String> = Vec::new();
    let prev_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (name, blob) in &inputs {
        for case in 0..cases_per_input {
            let m = mutate(&mut rng, blob);
            total += 1;
            match std::panic::catch_unwind(|| translator::translate(&m, &opts)) {
                Ok(Ok(_)) => ok += 1,
                Ok(Err(e)) => {
                    errors += 1;
                    let msg = e.to_string();
                    assert!(
                        !msg.contains('\n'),
                        "multi-line error for {name} case {case}: {msg}"
                    );
                }
                Err(p) => {
                    let what = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    if panics.len() < 20 {
                        let path = std::env::temp_dir()
                            .join(format!("translate-panic-{}.dxbc", panics.len()));
                        let _ = std::fs::write(&path, &m);
                        panics.push(format!(
                            "{name} case {case}: {what} (input saved to {})",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    std::panic::set_hook(prev_hook);
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    println!(
        "{total} mutated programs: {ok} translated, {errors} rejected with an error, {} panicked",
        panics.len()
    );
    assert!(
        total >= 10_000 || shared_dir().is_none(),
        "too few cases: {total}"
    );
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}
