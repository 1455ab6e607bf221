//! The `#[repr(C)]` types of `src/abi.rs` against the real `vkd3d_shader.h`: a C program
//! compiled against the header (vkd3d 2.x from Debian unstable) prints every size, field
//! offset and enumeration value the Rust side lists, and they must be equal. Skipped, saying
//! so, when the header cannot be fetched or no C compiler runs.

mod common;

use vkd3d_shader_shim::abi::{constant_table, layout_table};

#[test]
fn layouts_match_the_real_header() {
    let Some(root) = common::vkd3d_root() else {
        return;
    };
    let dir = common::scratch("layout");
    let mut c = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include <vkd3d_shader.h>\nint main(void)\n{\n",
    );
    for (name, _) in layout_table() {
        let expr = match name.strip_prefix("sizeof ") {
            Some(ty) => format!("sizeof(struct {ty})"),
            None => {
                let (ty, field) = name.split_once('.').unwrap();
                format!("offsetof(struct {ty}, {field})")
            }
        };
        c.push_str(&format!("    printf(\"{name} %zu\\n\", (size_t){expr});\n"));
    }
    for (name, _) in constant_table() {
        c.push_str(&format!(
            "    printf(\"{name} %lld\\n\", (long long){name});\n"
        ));
    }
    c.push_str("    return 0;\n}\n");
    let src = dir.join("layout.c");
    std::fs::write(&src, c).unwrap();
    let exe = dir.join("layout");
    if let Err(e) = common::build_c(&root, &src, &exe, &[]) {
        integration_tests::skip::skip(
            "vkd3d",
            &format!("cannot compile against vkd3d_shader.h: {e}"),
        );
        return;
    }
    let out = std::process::Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let want: Vec<String> = layout_table()
        .into_iter()
        .map(|(n, v)| format!("{n} {v}"))
        .chain(
            constant_table()
                .into_iter()
                .map(|(n, v)| format!("{n} {v}")),
        )
        .collect();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got.len(), want.len());
    let diffs: Vec<String> = want
        .iter()
        .zip(&got)
        .filter(|(w, g)| w.as_str() != **g)
        .map(|(w, g)| format!("rust `{w}` vs C `{g}`"))
        .collect();
    assert!(
        diffs.is_empty(),
        "layout differences:\n{}",
        diffs.join("\n")
    );
    eprintln!(
        "{} sizes, offsets and values match vkd3d_shader.h",
        want.len()
    );
}
