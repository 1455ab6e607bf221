fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).unwrap();
    match translator::translate(&bytes, &translator::Options::default()) {
        Ok(t) => {
            let b: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&args[2], b).unwrap();
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
