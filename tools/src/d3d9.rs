//! Direct3D 9 (SM1–3) shaders in `dxbc info`, `dxbc disasm` and `dxbc asm`: a bare D3D9
//! token stream is recognised by its version token (`translator::d3dbc::is_d3dbc`), D3D9
//! assembly by its version line (`vs_1_1` … `ps_3_0`). Kept apart from the DXBC paths, which
//! call in here with one line each.

use std::fmt::Write;

use serde_json::json;
use translator::d3dbc::{self, Program};

use crate::Output;
use crate::batch::{Failure, Produced};
use crate::cli_error::CliError;

/// What a batch run makes of a D3D9 command's result: its text, or a decode failure.
pub fn produced(result: Result<Output, CliError>) -> Result<Produced, Failure> {
    let out = result.map_err(|e| Failure::new("decode", e))?;
    Ok(Produced {
        bytes: out.stdout.into_bytes(),
        warnings: out.warnings,
    })
}

fn decode(name: &str, data: &[u8]) -> Result<Program, CliError> {
    d3dbc::decode(data).map_err(|e| CliError::input(name, format!("decode: {e}")))
}

/// `dxbc disasm` of a D3D9 stream: the listing `dxbc asm` reads back.
pub fn disasm(name: &str, data: &[u8]) -> Result<Output, CliError> {
    Ok(Output {
        stdout: decode(name, data)?.to_string(),
        warnings: Vec::new(),
    })
}

/// `dxbc info` of a D3D9 stream: version, sizes, counts and the constant tables.
pub fn info(name: &str, data: &[u8], as_json: bool) -> Result<Output, CliError> {
    let p = decode(name, data)?;
    let instructions = p.instructions().count();
    let tables: Vec<_> = p.comments().filter_map(|c| c.ctab()).collect();
    let stdout = if as_json {
        let comments: Vec<_> = p
            .comments()
            .map(|c| {
                json!({
                    "offset": c.offset,
                    "dwords": c.data.len(),
                    "fourcc": c.fourcc().map(|f| String::from_utf8_lossy(&f).into_owned()),
                })
            })
            .collect();
        let constants: Vec<_> =
            tables
                .iter()
                .flat_map(|t| {
                    match t {
                Ok(t) => t.constants.iter().map(|k| json!({
                    "name": k.name,
                    "type": k.ty.hlsl(),
                    "register": format!("{}{}", k.register_set.prefix(), k.register_index),
                    "count": k.register_count,
                })).collect(),
                Err(e) => vec![json!({ "error": e.to_string() })],
            }
                })
                .collect();
        let v = json!({
            "file": name,
            "format": "d3d9",
            "size": data.len(),
            "shader": p.version.to_string(),
            "instructions": instructions,
            "end_offset": p.end_offset,
            "trailing_bytes": p.trailing.len(),
            "comments": comments,
            "constants": constants,
        });
        serde_json::to_string_pretty(&v).map_err(|e| CliError::input(name, e))? + "\n"
    } else {
        let mut out = String::new();
        let _ = writeln!(out, "file:      {name}");
        let _ = writeln!(out, "size:      {} bytes", data.len());
        let _ = writeln!(out, "format:    Direct3D 9 token stream (no container)");
        let _ = writeln!(out, "shader:    {}", p.version);
        let _ = writeln!(
            out,
            "program:   {instructions} instructions, END at {:#x}",
            p.end_offset
        );
        if !p.trailing.is_empty() {
            let _ = writeln!(out, "trailing:  {} bytes after END", p.trailing.len());
        }
        for c in p.comments() {
            let tag = c.fourcc().map(|f| String::from_utf8_lossy(&f).into_owned());
            let _ = writeln!(
                out,
                "comment:   at {:#x}, {} dwords{}",
                c.offset,
                c.data.len(),
                tag.map(|t| format!(" ({t})")).unwrap_or_default()
            );
        }
        for t in &tables {
            match t {
                Ok(t) => {
                    let _ = writeln!(out, "\nconstants (CTAB, {}):", t.creator);
                    for k in &t.constants {
                        let _ = writeln!(
                            out,
                            "  {:<24} {:<14} {}{} ({})",
                            k.name,
                            k.ty.hlsl(),
                            k.register_set.prefix(),
                            k.register_index,
                            k.register_count
                        );
                    }
                }
                Err(e) => {
                    let _ = writeln!(out, "\nconstants: {e}");
                }
            }
        }
        out
    };
    Ok(Output {
        stdout,
        warnings: Vec::new(),
    })
}

/// `dxbc asm` of D3D9 text: the token stream (there is no container).
pub fn assemble(name: &str, text: &str) -> Result<Vec<u8>, CliError> {
    d3dbc::asm::assemble(text)
        .map_err(|e| CliError(format!("{name}:{}:{}: {}", e.line, e.column, e.message)))
}
