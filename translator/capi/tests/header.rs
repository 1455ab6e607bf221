//! The checked-in header is what cbindgen makes of the sources (rewrite it with
//! `DXBC_SPIRV_BLESS_HEADER=1 cargo test -p dxbc-spirv-capi --test header`), it declares every
//! public type, constant and function of the Rust sources (cbindgen leaves out a struct that no
//! function names, such as one reached only through a `next` chain), and it compiles as strict
//! C99 and as C++.

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

/// Names every public type, so that one cbindgen left out fails to compile.
const USE_EVERY_TYPE: &str = r#"#include "dxbc_spirv.h"
static dxbc_spirv_bool callback(void *user_data, const dxbc_spirv_binding_request *request,
                                dxbc_spirv_binding *binding)
{
    (void)user_data;
    binding->kind = DXBC_SPIRV_BINDING_KIND_DESCRIPTOR;
    binding->set = request->register_space;
    return 1;
}
int main(void)
{
    dxbc_spirv_chain_header header = {DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO, NULL};
    dxbc_spirv_shader_create_info create = {DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO, NULL,
                                            DXBC_SPIRV_SOURCE_TYPE_DXBC, NULL, 0};
    dxbc_spirv_binding_policy_info policy = {DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO, NULL,
                                             DXBC_SPIRV_BINDING_POLICY_PER_RANGE};
    dxbc_spirv_descriptor_rule rule = {DXBC_SPIRV_REGISTER_CLASS_SRV, 0, 0, DXBC_SPIRV_UNBOUNDED,
                                       0, 0, 0, 1u << DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLED_IMAGE};
    dxbc_spirv_push_constant_rule push = {0, 0, 0, 16};
    dxbc_spirv_binding_table_info table = {DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO, NULL,
                                           1, NULL, 1, NULL};
    dxbc_spirv_binding_callback_info cb = {DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO, NULL,
                                           callback, NULL};
    dxbc_spirv_parameter parameter;
    dxbc_spirv_parameter_info parameters = {DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO, NULL, 1,
                                            NULL};
    dxbc_spirv_translate_info translate = {DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO, NULL,
                                           DXBC_SPIRV_TARGET_ENV_VULKAN_1_3,
                                           DXBC_SPIRV_TRANSLATE_DEBUG_NAMES};
    dxbc_spirv_code code = {NULL, 0};
    dxbc_spirv_reflection *reflection = NULL;
    dxbc_spirv_scan_info *scan = NULL;
    dxbc_spirv_shader *shader = NULL;
    char *message = NULL;
    const dxbc_spirv_resource *resource = NULL;
    const dxbc_spirv_signature_element *element = NULL;
    const dxbc_spirv_descriptor *descriptor = NULL;
    const dxbc_spirv_interface_var *var = NULL;
    const dxbc_spirv_push_constant_range *range = NULL;
    const dxbc_spirv_spec_constant *spec = NULL;
    dxbc_spirv_status status;

    parameter.name = DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT;
    parameter.type = DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT;
    parameter.data_type = DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32;
    parameter.u.specialization_constant.id = 3;
    parameters.parameters = &parameter;
    table.descriptor_rules = &rule;
    table.push_constant_rules = &push;
    policy.next = &parameters;
    translate.next = &cb;
    (void)header; (void)table; (void)policy;
    status = dxbc_spirv_shader_create(&create, &shader, &message);
    if (status == DXBC_SPIRV_OK)
    {
        status = dxbc_spirv_scan(shader, &scan, &message);
        status = dxbc_spirv_translate(shader, &translate, &code, &reflection, &message);
    }
    if (scan)
    {
        resource = scan->resources;
        element = scan->inputs;
    }
    if (reflection)
    {
        descriptor = reflection->descriptors;
        var = reflection->inputs;
        range = reflection->push_constants;
        spec = reflection->spec_constants;
    }
    (void)resource; (void)element; (void)descriptor; (void)var; (void)range; (void)spec;
    dxbc_spirv_free_message(message);
    dxbc_spirv_free_code(&code);
    dxbc_spirv_free_reflection(reflection);
    dxbc_spirv_free_scan(scan);
    dxbc_spirv_shader_destroy(shader);
    return status == DXBC_SPIRV_OK && dxbc_spirv_get_api_version() == DXBC_SPIRV_API_VERSION &&
           dxbc_spirv_get_version_string() != NULL;
}
"#;

#[test]
fn header_compiles_as_strict_c99_and_cxx() {
    let dir = std::env::temp_dir().join(format!("dxbc-spirv-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("use.c");
    std::fs::write(&c, USE_EVERY_TYPE).unwrap();
    match compiles(
        "cc",
        &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"],
        &c,
    ) {
        None => integration_tests::skip::skip_part(
            "C toolchain",
            "no `cc` on PATH (apt: gcc)",
            "the header not compiled as C99",
        ),
        Some(r) => r.expect("the header must compile as C99 with -Wall -Werror"),
    }
    let cxx = dir.join("use.cpp");
    std::fs::copy(&c, &cxx).unwrap();
    match compiles("c++", &["-std=c++11", "-Wall", "-Werror"], &cxx) {
        None => integration_tests::skip::skip_part(
            "C toolchain",
            "no `c++` on PATH (apt: g++)",
            "the header not compiled as C++11",
        ),
        Some(r) => r.expect("the header must compile as C++11"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pkg_config_template_is_valid() {
    let template = std::fs::read_to_string(crate_dir().join("dxbc_spirv.pc.in")).unwrap();
    let pc = template
        .replace("@PREFIX@", "/opt/dxbc-spirv")
        .replace("@LIBDIR@", "/opt/dxbc-spirv/lib")
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"));
    let description = pc.lines().find(|l| l.starts_with("Description:")).unwrap();
    assert!(
        description.contains("DXBC") && description.contains("Direct3D 9"),
        "the description names both inputs: {description}"
    );
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
        integration_tests::skip::skip("C toolchain", "no pkg-config on PATH (apt: pkg-config)");
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

/// The C API's items as the Rust sources define them.
#[derive(Default, Debug)]
struct PublicItems {
    /// `#[repr(C)]` structs and unions: complete in C.
    complete: Vec<String>,
    /// Structs without `#[repr(C)]` (handles): declared, opaque.
    opaque: Vec<String>,
    /// `pub type` aliases (enumerations, the callback).
    aliases: Vec<String>,
    constants: Vec<String>,
    functions: Vec<String>,
}

fn public_items() -> PublicItems {
    let mut items = PublicItems::default();
    let mut files: Vec<_> = std::fs::read_dir(crate_dir().join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    assert!(files.len() > 5, "capi/src has the API's modules");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut repr_c = false;
        for line in text.lines().map(str::trim) {
            if line.starts_with("#[repr(C") {
                repr_c = true;
                continue;
            }
            if line.starts_with("#[") || line.starts_with("///") {
                continue;
            }
            let name_after = |prefix: &str| {
                line.strip_prefix(prefix).map(|rest| {
                    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap()
                        .to_string()
                })
            };
            let c_name = |n: &String| n.to_ascii_lowercase().starts_with("dxbc_spirv_");
            if let Some(n) = name_after("pub struct ").or(name_after("pub union ")) {
                if c_name(&n) {
                    if repr_c {
                        items.complete.push(n);
                    } else {
                        items.opaque.push(n);
                    }
                }
            } else if let Some(n) = name_after("pub type ") {
                if c_name(&n) {
                    items.aliases.push(n);
                }
            } else if let Some(n) = name_after("pub const ") {
                if c_name(&n) {
                    items.constants.push(n);
                }
            } else if let Some(n) =
                name_after("pub unsafe extern \"C\" fn ").or(name_after("pub extern \"C\" fn "))
            {
                items.functions.push(n);
            }
            repr_c = false;
        }
    }
    items
}

#[test]
fn header_declares_every_public_item() {
    let items = public_items();
    // What this test relies on finding (it would pass on nothing otherwise).
    for (what, list, at_least) in [
        ("structs", &items.complete, 30),
        ("opaque handles", &items.opaque, 1),
        ("type aliases", &items.aliases, 20),
        ("constants", &items.constants, 100),
        ("functions", &items.functions, 9),
    ] {
        assert!(
            list.len() >= at_least,
            "found {} {what} in capi/src, expected at least {at_least}: {list:?}",
            list.len()
        );
    }
    for must in [
        "dxbc_spirv_stream_output_info",
        "dxbc_spirv_stream_output_entry",
        "dxbc_spirv_d3d9_state_info",
        "dxbc_spirv_reflection",
    ] {
        assert!(items.complete.iter().any(|n| n == must), "{must} not found");
    }
    let header = std::fs::read_to_string(crate_dir().join("include/dxbc_spirv.h")).unwrap();
    let mut missing = Vec::new();
    for n in items.complete.iter().chain(&items.opaque) {
        if !header.contains(&format!(" {n} {{")) && !header.contains(&format!(" {n} {n};")) {
            missing.push(format!("struct/union {n}"));
        }
    }
    for n in &items.aliases {
        if !header.contains(&format!(" {n};")) && !header.contains(&format!("(*{n})(")) {
            missing.push(format!("typedef {n}"));
        }
    }
    for n in &items.constants {
        if !header.contains(&format!("#define {n} ")) {
            missing.push(format!("#define {n}"));
        }
    }
    for n in &items.functions {
        if !header.contains(&format!(" {n}(")) && !header.contains(&format!("*{n}(")) {
            missing.push(format!("function {n}"));
        }
    }
    assert!(
        missing.is_empty(),
        "the header lacks {} (add chain-only structs to [export] include in cbindgen.toml, then regenerate): {missing:?}",
        missing.len()
    );

    // The compiler's word: a C file naming each one.
    let mut c = String::from("#include \"dxbc_spirv.h\"\n");
    for (i, n) in items.complete.iter().enumerate() {
        c += &format!("static char size_{i}[sizeof({n})];\n");
    }
    for (i, n) in items.opaque.iter().chain(&items.aliases).enumerate() {
        c += &format!("static {n} *pointer_{i};\n");
    }
    c += "static void (*const functions[])(void) = {\n";
    for n in &items.functions {
        c += &format!("    (void (*)(void))&{n},\n");
    }
    c += "};\n";
    c += "int main(void)\n{\n    unsigned long long sum = sizeof(functions) / sizeof(functions[0]);\n";
    for i in 0..items.complete.len() {
        c += &format!("    sum += sizeof(size_{i});\n");
    }
    for i in 0..items.opaque.len() + items.aliases.len() {
        c += &format!("    sum += pointer_{i} != NULL;\n");
    }
    for n in &items.constants {
        c += &format!("    sum += (unsigned long long)({n});\n");
    }
    c += "    return sum == 0;\n}\n";
    let dir = std::env::temp_dir().join(format!("dxbc-spirv-every-type-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("every.c");
    std::fs::write(&file, c).unwrap();
    match compiles("cc", &["-std=c99", "-Wall", "-Werror"], &file) {
        None => integration_tests::skip::skip_part(
            "C toolchain",
            "no `cc` on PATH (apt: gcc)",
            "the C file naming every item not compiled",
        ),
        Some(r) => r.expect("a C file naming every public item must compile"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
