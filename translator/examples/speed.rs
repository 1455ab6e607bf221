use std::time::Instant;
fn main() {
    let files: Vec<Vec<u8>> = std::env::args()
        .skip(1)
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let opts = translator::Options::default();
    let ok: Vec<&Vec<u8>> = files
        .iter()
        .filter(|b| translator::translate(b, &opts).is_ok())
        .collect();
    let start = Instant::now();
    let mut n = 0u64;
    let iters: u64 = std::env::var("ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX);
    while start.elapsed().as_secs_f64() < 2.0 && n < iters * ok.len() as u64 {
        for b in &ok {
            let _ = std::hint::black_box(translator::translate(b, &opts));
            n += 1;
        }
    }
    println!(
        "{} shaders ok; mean={:.2} us/shader",
        ok.len(),
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
