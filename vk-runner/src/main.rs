fn main() {
    eprintln!("vk-runner: not implemented yet");
    std::process::exit(2);
}
