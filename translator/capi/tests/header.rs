//! The checked-in header is what cbindgen makes of the sources (rewrite it with
//! `DXBC_SPIRV_BLESS_HEADER=1 cargo test -p dxbc-spirv-capi --test header`), and it compiles as
//! strict C99 and as C++.

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn generate() -> String {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut out);
    String::from_utf8(out).expect("utf-8 header")
}

#[test]
fn header_is_current() {
    let path = crate_dir().join("include/dxbc_spirv.h");
    let fresh = generate();
    if std::env::var_os("DXBC_SPIRV_BLESS_HEADER").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "{} is stale: regenerate it with `DXBC_SPIRV_BLESS_HEADER=1 cargo test -p dxbc-spirv-capi --test header` and commit it",
        path.display()
    );
}

fn compiles(compiler: &str, args: &[&str], source: &Path) -> Option<Result<(), String>> {
    let out = Command::new(compiler)
        .args(args)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-fsyntax-only")
        .arg(source)
        .output()
        .ok()?;
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}

#[test]
fn header_compiles_as_strict_c99_and_cxx() {
    let dir = std::env::temp_dir().join(format!("dxbc-spirv-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("use.c");
    std::fs::write(
        &c,
        "#include \"dxbc_spirv.h\"\nint main(void) { return (int)dxbc_spirv_get_api_version() == 0; }\n",
    )
    .unwrap();
    match compiles(
        "cc",
        &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"],
        &c,
    ) {
        None => eprintln!("skipped: no `cc` on PATH"),
        Some(r) => r.expect("the header must compile as C99 with -Wall -Werror"),
    }
    let cxx = dir.join("use.cpp");
    std::fs::copy(&c, &cxx).unwrap();
    match compiles("c++", &["-std=c++11", "-Wall", "-Werror"], &cxx) {
        None => eprintln!("skipped: no `c++` on PATH"),
        Some(r) => r.expect("the header must compile as C++11"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pkg_config_template_is_valid() {
    let template = std::fs::read_to_string(crate_dir().join("dxbc_spirv.pc.in")).unwrap();
    let pc = template
        .replace("@PREFIX@", "/opt/dxbc-spirv")
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"));
    assert!(
        !pc.contains('@'),
        "unsubstituted placeholder in dxbc_spirv.pc.in"
    );
    let dir = std::env::temp_dir().join(format!("dxbc-spirv-pc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dxbc_spirv.pc"), pc).unwrap();
    let run = |args: &[&str]| {
        Command::new("pkg-config")
            .args(args)
            .env("PKG_CONFIG_PATH", &dir)
            .output()
    };
    let Ok(version) = run(&["--modversion", "dxbc_spirv"]) else {
        eprintln!("skipped: no pkg-config on PATH");
        return;
    };
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        env!("CARGO_PKG_VERSION")
    );
    let flags = run(&["--cflags", "--libs", "dxbc_spirv"]).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&flags.stdout).trim(),
        "-I/opt/dxbc-spirv/include -L/opt/dxbc-spirv/lib -ldxbc_spirv"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
