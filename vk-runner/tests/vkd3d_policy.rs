//! The translator's `vkd3d` binding policy claims to place descriptors where vkd3d-shader
//! does without an interface description. This checks the claim on the corpus: for every
//! shader both translate, each descriptor of ours (by register class, space, register
//! and counter-ness) must sit at the set and binding of vkd3d's variable for the same register
//! (vkd3d's reflection comes from its SPIR-V through the runner's `vkd3d` backend).
//!
//! Needs `tools/vkd3d-compiler.sh` and the corpus; records why (`integration_tests::skip`) and
//! returns otherwise.

use std::collections::BTreeMap;
use std::path::PathBuf;

use integration_tests::dxbc_files;
use translator::binding::BindingPolicy;
use translator::reflect::{Descriptor, RegisterClass};
use vk_runner::backend::vkd3d::Vkd3dBackend;
use vk_runner::cache::Cache;

/// (class, space, register) → bindings, in binding order (a UAV's counter comes after the UAV).
type Key = (RegisterClass, u32, u32);

fn by_register(ds: &[Descriptor]) -> BTreeMap<Key, Vec<(u32, u32)>> {
    let mut m: BTreeMap<Key, Vec<(u32, u32)>> = BTreeMap::new();
    for d in ds {
        m.entry((d.origin.class, d.origin.space, d.origin.lower))
            .or_default()
            .push((d.set, d.binding));
    }
    for v in m.values_mut() {
        v.sort_unstable();
    }
    m
}

#[test]
fn vkd3d_policy_matches_vkd3d_shader() {
    let Some(shared) = integration_tests::shared_dir_or_skip() else {
        return;
    };
    let Some((compiler, _)) = integration_tests::vkd3d_compiler_or_skip() else {
        return;
    };
    let corpus = shared.join("corpus/dxbc");
    let cache_dir = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join("vkd3d-policy-cache");
    let vkd3d = Vkd3dBackend::new(
        compiler.to_str().expect("utf-8 path"),
        Cache::new(Some(cache_dir)),
    )
    .expect("vkd3d backend");
    let opts = translator::Options {
        binding: BindingPolicy::Vkd3d.into(),
        ..Default::default()
    };
    let (mut compared, mut descriptors) = (0, 0);
    let mut mismatches = Vec::new();
    for f in dxbc_files(&corpus) {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(ours) = translator::translate(&bytes, &opts) else {
            continue;
        };
        let Ok(theirs) = vkd3d.translate(&bytes) else {
            continue;
        };
        if ours.reflection.descriptors.is_empty() {
            continue;
        }
        compared += 1;
        let theirs = by_register(&theirs.reflection.descriptors);
        // Ours lists only the descriptors the module uses; each must be where vkd3d put the
        // declaration (the counter at the UAV's second binding).
        for d in &ours.reflection.descriptors {
            descriptors += 1;
            let key = (d.origin.class, d.origin.space, d.origin.lower);
            let at = theirs
                .get(&key)
                .and_then(|v| v.get(usize::from(d.origin.uav_counter)));
            if at != Some(&(d.set, d.binding)) {
                mismatches.push(format!(
                    "{}: {}{}{}: ours set {} binding {}, vkd3d {:?}",
                    f.display(),
                    d.origin.class.letter(),
                    d.origin.lower,
                    if d.origin.uav_counter { " counter" } else { "" },
                    d.set,
                    d.binding,
                    theirs.get(&key)
                ));
            }
        }
    }
    eprintln!("{compared} shaders, {descriptors} descriptors compared with vkd3d-shader");
    assert!(compared >= 50, "only {compared} shaders compared");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
