//! `repo-programs OUT_DIR`: writes every shader program of this repository
//! ([`integration_tests::programs::repo_programs`]) to `OUT_DIR/NAME.bin` and prints how many.
//! tools/pgo.sh trains the profile-guided build on them.

fn main() {
    let Some(out) = std::env::args_os().nth(1) else {
        eprintln!("usage: repo-programs OUT_DIR");
        std::process::exit(2);
    };
    let out = std::path::PathBuf::from(out);
    let programs = integration_tests::programs::repo_programs(&integration_tests::repo_root());
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    for (name, bytes) in &programs {
        let path = out.join(format!("{name}.bin"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    println!("{}", programs.len());
}
