//! Looks inside the translation for people debugging it: the control-flow graph before and
//! after structurizing (Graphviz), and the IR as text. Used by `dxbc cfg`.

use crate::options::Options;

/// The entry function's CFG as Graphviz text, after lowering and after structurizing.
pub fn cfg_dot(dxbc: &[u8], options: &Options) -> Result<(String, String), crate::Error> {
    let mut module = crate::translate::lower_container(dxbc, options)?;
    let f = &mut module.functions[0];
    f.layout = crate::passes::cfg::reverse_post_order(f);
    let before = crate::passes::cfg::to_dot(f);
    crate::passes::structurize::structurize(f)?;
    let after = crate::passes::cfg::to_dot(f);
    let wrap = |name: &str, body: &str| {
        format!("digraph {name} {{\n    node [shape=box, fontname=monospace];\n{body}}}\n")
    };
    Ok((wrap("lowered", &before), wrap("structurized", &after)))
}
