//! One `translator::Translator` kept across the whole shared corpus (DXBC, D3D9 and bench
//! shaders, in sorted order, so large and small shaders of every stage follow each other, with
//! the options changing from one file to the next) gives for every file exactly what
//! `translator::translate` gives: the same SPIR-V words and reflection, or the same error.
//! Skips (with a message) when `../shared` is absent.

use integration_tests::{d3dbc_files, dxbc_files, shared_dir};
use translator::{Options, TargetEnv, Translator};

#[test]
fn a_kept_translator_matches_one_shot_translation_over_the_corpus() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: ../shared is absent");
        return;
    };
    let mut files = dxbc_files(&shared.join("corpus/dxbc"));
    files.extend(dxbc_files(&shared.join("bench/dxbc")));
    files.extend(d3dbc_files(&shared.join("corpus/d3dbc")));
    assert!(!files.is_empty(), "no shaders under {}", shared.display());
    let option_sets = [
        Options::default(),
        Options {
            debug_names: true,
            ..Default::default()
        },
        Options {
            target_env: TargetEnv::Vulkan1_1,
            ..Default::default()
        },
    ];
    let mut translator = Translator::new();
    let (mut same_ok, mut same_err) = (0, 0);
    for (i, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).unwrap();
        let opts = &option_sets[i % option_sets.len()];
        let name = f.display();
        match (
            translator.translate(&bytes, opts),
            translator::translate(&bytes, opts),
        ) {
            (Ok(k), Ok(o)) => {
                assert!(k.spirv == o.spirv, "{name}: the SPIR-V differs");
                assert_eq!(k.reflection, o.reflection, "{name}");
                same_ok += 1;
            }
            (Err(k), Err(o)) => {
                assert_eq!(k, o, "{name}");
                same_err += 1;
            }
            (k, o) => panic!("{name}: kept translator {k:?}, one-shot {o:?}"),
        }
    }
    eprintln!("{same_ok} translations and {same_err} errors the same");
    assert!(same_ok > files.len() / 2, "most corpus shaders translate");
}
