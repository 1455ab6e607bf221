//! Calling overhead of the C API against the Rust API:
//! `cargo run --release -p dxbc-spirv-capi --example overhead [ROUNDS] [FILE...]`
//! (default: the shaders of `../shared/bench/dxbc`, 15 rounds).
//!
//! Per shader and round it times a batch of `translator::translate` calls and a batch of C API
//! sequences (`dxbc_spirv_shader_create`, `dxbc_spirv_translate`, `dxbc_spirv_free_code`,
//! `dxbc_spirv_shader_destroy`; once more with the C reflection requested and freed), the
//! methods interleaved in a rotating order so that machine noise hits all alike, keeps each
//! shader's fastest round per method, and prints the per-shader means and the C/Rust ratios.

use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

use dxbc_spirv::chain::DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO;
use dxbc_spirv::reflection::dxbc_spirv_free_reflection;
use dxbc_spirv::shader::*;
use dxbc_spirv::translate::*;
use dxbc_spirv::*;

fn c_api(bytes: &[u8], reflection: bool) -> usize {
    let info = dxbc_spirv_shader_create_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO,
        next: null(),
        source_type: DXBC_SPIRV_SOURCE_TYPE_DXBC,
        code: bytes.as_ptr(),
        code_size: bytes.len(),
    };
    let mut shader = null_mut();
    let mut code = dxbc_spirv_code {
        words: null(),
        word_count: 0,
    };
    let mut refl = null_mut();
    // SAFETY: valid pointers, as the API documents them.
    unsafe {
        assert_eq!(
            dxbc_spirv_shader_create(&info, &mut shader, null_mut()),
            DXBC_SPIRV_OK
        );
        let r = if reflection { &mut refl } else { null_mut() };
        assert_eq!(
            dxbc_spirv_translate(shader, null(), &mut code, r, null_mut()),
            DXBC_SPIRV_OK
        );
        let n = code.word_count;
        dxbc_spirv_free_code(&mut code);
        dxbc_spirv_free_reflection(refl);
        dxbc_spirv_shader_destroy(shader);
        n
    }
}

fn rust_api(bytes: &[u8]) -> usize {
    translator::translate(bytes, &translator::Options::default())
        .expect("the Rust API translates the bench shaders")
        .spirv
        .len()
}

fn time(batch: u32, f: impl Fn() -> usize) -> Duration {
    let start = Instant::now();
    for _ in 0..batch {
        std::hint::black_box(f());
    }
    start.elapsed() / batch
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let rounds: usize = match args.peek().and_then(|a| a.parse().ok()) {
        Some(n) => {
            args.next();
            n
        }
        None => 15,
    };
    let mut files: Vec<std::path::PathBuf> = args.map(Into::into).collect();
    if files.is_empty() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/dxbc");
        files = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "dxbc"))
            .collect();
        files.sort();
    }
    let shaders: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    // Batches of about 2 ms per shader and method.
    let batches: Vec<u32> = shaders
        .iter()
        .map(|b| {
            let t = time(3, || rust_api(b)).as_secs_f64();
            ((0.002 / t.max(1e-7)) as u32).clamp(1, 2000)
        })
        .collect();
    let mut best = vec![[Duration::MAX; 3]; shaders.len()];
    for round in 0..rounds {
        for (i, b) in shaders.iter().enumerate() {
            let n = batches[i];
            // Each round starts with another method, so that none always runs first.
            for k in 0..3 {
                let m = (round + k) % 3;
                let t = match m {
                    0 => time(n, || rust_api(b)),
                    1 => time(n, || c_api(b, false)),
                    _ => time(n, || c_api(b, true)),
                };
                best[i][m] = best[i][m].min(t);
            }
        }
    }
    let mean =
        |m: usize| best.iter().map(|b| b[m].as_secs_f64()).sum::<f64>() / best.len() as f64 * 1e6;
    let (rust, c, c_refl) = (mean(0), mean(1), mean(2));
    println!(
        "{} shaders, {rounds} rounds, fastest round per shader",
        shaders.len()
    );
    println!("Rust API translate:                {rust:8.1} us/shader");
    println!(
        "C API create+translate+free:       {c:8.1} us/shader  ({:+.2} %)",
        (c / rust - 1.0) * 100.0
    );
    println!(
        "  with the C reflection built:     {c_refl:8.1} us/shader  ({:+.2} %)",
        (c_refl / rust - 1.0) * 100.0
    );
    let worst = best
        .iter()
        .zip(&files)
        .map(|(b, f)| (b[1].as_secs_f64() / b[0].as_secs_f64(), f))
        .fold(
            (0.0, None),
            |acc, (r, f)| if r > acc.0 { (r, Some(f)) } else { acc },
        );
    if let (r, Some(f)) = worst {
        println!(
            "largest per-shader ratio: {:+.2} % ({})",
            (r - 1.0) * 100.0,
            f.display()
        );
    }
}
