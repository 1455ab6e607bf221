//! `dxbc`: inspect, disassemble and translate DXBC shaders.
fn main() {
    eprintln!("dxbc: not implemented yet");
    std::process::exit(2);
}
