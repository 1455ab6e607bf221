//! The rule tables of `docs/rules.md`, printed from [`super::Rule`] and [`super::d3d9::D3d9Rule`].
//!
//! Why: the page must list exactly the rules the code enforces, with what each refuses and its
//! source; printing it from the same table (and a test that compares the page with it) keeps
//! the two from drifting apart.

use super::Rule;
use super::d3d9::D3d9Rule;

/// The line before the generated part of `docs/rules.md`.
pub const BEGIN: &str =
    "<!-- generated from translator/src/rules (rules::doc::markdown); do not edit by hand -->";
/// The line after it.
pub const END: &str = "<!-- end of the generated tables -->";

/// The generated part of `docs/rules.md`: one table for DXBC (SM4–5.1), one for D3D9 (SM1–3).
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str("### DXBC (SM4.0–5.1): `translator::rules::Rule`\n\n");
    out.push_str("| rule | refuses | source |\n|---|---|---|\n");
    for r in Rule::ALL {
        row(&mut out, r.name(), r.refuses(), r.source());
    }
    out.push_str("\n### D3D9 (SM1–3): `translator::rules::d3d9::D3d9Rule`\n\n");
    out.push_str("| rule | refuses | source |\n|---|---|---|\n");
    for r in D3d9Rule::ALL {
        row(&mut out, r.name(), r.refuses(), r.source());
    }
    out
}

fn row(out: &mut String, name: &str, refuses: &str, source: &str) {
    // Table cells: no line breaks, and `|` escaped.
    let cell = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace('|', "\\|")
    };
    out.push_str(&format!(
        "| `{name}` | {} | {} |\n",
        cell(refuses),
        cell(source)
    ));
}
