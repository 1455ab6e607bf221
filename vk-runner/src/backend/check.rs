//! Cross-checks a translation's reflection against its own SPIR-V: every descriptor the
//! module declares must be described at the same set and binding with the same type and
//! array size, and every `Location` stage input/output of the reflection must exist in the
//! module. A mismatch would make the harness (or any D3D layer) bind the wrong thing, so the
//! `ours` backend reports it as a translation failure.

use super::spirv_info::{self, SpirvInfo};
use translator::Translation;
use translator::reflect::{InterfacePlacement, InterfaceVar};

/// Checks `t.reflection` against `t.spirv`.
pub fn check(t: &Translation) -> Result<(), String> {
    let info = spirv_info::read(&t.spirv)?;
    check_info(t, &info)
}

fn check_info(t: &Translation, info: &SpirvInfo) -> Result<(), String> {
    let r = &t.reflection;
    if r.stage != info.stage {
        return Err(format!(
            "reflection says {:?}, SPIR-V is {:?}",
            r.stage, info.stage
        ));
    }
    if r.entry_point != info.entry_point {
        return Err(format!(
            "reflection entry point '{}', SPIR-V '{}'",
            r.entry_point, info.entry_point
        ));
    }
    for v in &info.descriptors {
        // Several ranges may share a binding (at different array elements): one of them
        // must match the variable.
        let mut at = r
            .descriptors
            .iter()
            .filter(|d| d.set == v.set && d.binding == v.binding)
            .peekable();
        let Some(first) = at.peek().copied() else {
            return Err(format!(
                "SPIR-V declares set {} binding {} but the reflection does not",
                v.set, v.binding
            ));
        };
        if !at.any(|d| d.descriptor_type == v.descriptor_type && d.count == v.count) {
            return Err(format!(
                "set {} binding {}: reflection says {:?} x{:?}, SPIR-V has {:?} x{:?}",
                v.set, v.binding, first.descriptor_type, first.count, v.descriptor_type, v.count
            ));
        }
    }
    for d in &r.descriptors {
        if !info
            .descriptors
            .iter()
            .any(|v| v.set == d.set && v.binding == d.binding)
        {
            return Err(format!(
                "reflection lists set {} binding {} ({}{}) but the SPIR-V does not declare it",
                d.set,
                d.binding,
                d.origin.class.letter(),
                d.origin.lower
            ));
        }
    }
    if r.workgroup_size != info.workgroup_size {
        return Err(format!(
            "workgroup size: reflection {:?}, SPIR-V {:?}",
            r.workgroup_size, info.workgroup_size
        ));
    }
    let io = |vars: &[InterfaceVar], spv: &[spirv_info::IoVar], what: &str| -> Result<(), String> {
        for v in vars {
            match &v.placement {
                InterfacePlacement::Location { location, .. } => {
                    if !spv.iter().any(|s| s.location == Some(*location)) {
                        return Err(format!(
                            "{what} {}{} at location {location} is not in the SPIR-V",
                            v.semantic_name, v.semantic_index
                        ));
                    }
                }
                InterfacePlacement::BuiltIn { builtin } => {
                    if !spv
                        .iter()
                        .any(|s| s.builtin.as_deref() == Some(builtin.as_ref()))
                    {
                        return Err(format!("{what} built-in {builtin} is not in the SPIR-V"));
                    }
                }
                InterfacePlacement::Unused => {}
            }
        }
        Ok(())
    };
    io(&r.inputs, &info.inputs, "input")?;
    io(&r.outputs, &info.outputs, "output")?;
    Ok(())
}
