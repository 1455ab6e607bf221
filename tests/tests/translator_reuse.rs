//! One `translator::Translator` kept across the whole shared corpus (DXBC, D3D9 and bench
//! shaders, in sorted order, so large and small shaders of every stage follow each other, with
//! the options changing from one file to the next) gives for every file exactly what
//! `translator::translate` gives: the same SPIR-V words and reflection, or the same error.
//! The bundled shaders (examples, `shaders/asm` and `shaders/d3d9` assembled) come first; they
//! alone are the input when `../shared` is absent (recorded as a partial skip).

use integration_tests::{d3dbc_files, dxbc_files, repo_root, shared_dir_or_narrow};
use translator::{Options, TargetEnv, Translator};

/// The bundled shaders: the examples' DXBC, and the assembly listings assembled.
fn bundled() -> Vec<(String, Vec<u8>)> {
    let root = repo_root().join("shaders");
    let mut out: Vec<(String, Vec<u8>)> = dxbc_files(&root.join("examples"))
        .into_iter()
        .map(|f| (f.display().to_string(), std::fs::read(&f).unwrap()))
        .collect();
    for (dir, d3d9) in [("asm", false), ("d3d9", true)] {
        let mut listings: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "asm"))
            .collect();
        listings.sort();
        for f in listings {
            let text = std::fs::read_to_string(&f).unwrap();
            let bytes = if d3d9 {
                translator::d3dbc::asm::assemble(&text).map_err(|e| e.to_string())
            } else {
                translator::asm::assemble(&text).map_err(|e| format!("{e:?}"))
            };
            let bytes = bytes.unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            out.push((f.display().to_string(), bytes));
        }
    }
    out
}

#[test]
fn a_kept_translator_matches_one_shot_translation_over_the_corpus() {
    let mut files = bundled();
    assert!(files.len() >= 20, "the bundled shaders: {}", files.len());
    if let Some(shared) = shared_dir_or_narrow("the bundled shaders") {
        let mut corpus = dxbc_files(&shared.join("corpus/dxbc"));
        corpus.extend(dxbc_files(&shared.join("bench/dxbc")));
        corpus.extend(d3dbc_files(&shared.join("corpus/d3dbc")));
        assert!(!corpus.is_empty(), "no shaders under {}", shared.display());
        files.extend(
            corpus
                .into_iter()
                .map(|f| (f.display().to_string(), std::fs::read(&f).unwrap())),
        );
    }
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
    for (i, (name, bytes)) in files.iter().enumerate() {
        let opts = &option_sets[i % option_sets.len()];
        match (
            translator.translate(bytes, opts),
            translator::translate(bytes, opts),
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
    assert!(same_ok > files.len() / 2, "most shaders translate");
}
