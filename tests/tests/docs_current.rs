//! The documentation stands alone and stays current: no page of `docs/` sends the reader to
//! `../shared` (the team's corpora and notes, which a user of a fresh clone does not have);
//! every `docs/*.md` a page or the README names exists; the README's install commands name
//! packages that build the binaries they promise, and it claims nothing stale.

use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pages() -> Vec<(String, String)> {
    let docs = integration_tests::repo_root().join("docs");
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            (
                format!("docs/{}", p.file_name().unwrap().to_string_lossy()),
                read(&p),
            )
        })
        .collect();
    pages.sort();
    assert!(pages.len() >= 10, "docs/ has {} pages", pages.len());
    pages
}

#[test]
fn no_page_of_docs_names_shared() {
    let mut found = Vec::new();
    for (name, text) in pages() {
        for (n, line) in text.lines().enumerate() {
            if line.contains("../shared") || line.contains("shared/notes") {
                found.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "docs/ must stand alone (cite the team's notes in your own words; call corpora \"the team's shader corpus\"):\n{}",
        found.join("\n")
    );
}

#[test]
fn named_pages_exist() {
    let root = integration_tests::repo_root();
    let mut texts = pages();
    texts.push(("README.md".into(), read(&root.join("README.md"))));
    let mut missing = Vec::new();
    let mut named = 0;
    for (name, text) in &texts {
        for (at, _) in text.match_indices("docs/") {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "/-_.".contains(c)))
                .unwrap_or(rest.len());
            let page = rest[..end].trim_end_matches('.');
            if page.ends_with(".md") {
                named += 1;
                if !root.join(page).is_file() {
                    missing.push(format!("{name} names {page}"));
                }
            }
        }
    }
    assert!(named > 20, "found only {named} references to docs/*.md");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn readme_install_commands_and_claims() {
    let root = integration_tests::repo_root();
    let readme = read(&root.join("README.md"));
    // `cargo install --path DIR   # BIN, BIN`: DIR is a package building those binaries.
    let mut installs = 0;
    for line in readme.lines() {
        let Some(rest) = line.trim().strip_prefix("cargo install --path ") else {
            continue;
        };
        installs += 1;
        let (dir, bins) = rest.split_once('#').expect("the binaries after a `#`");
        let manifest = read(&root.join(dir.trim()).join("Cargo.toml"));
        for bin in bins.split(',').map(str::trim) {
            assert!(
                manifest.contains(&format!("[[bin]]\nname = \"{bin}\"")),
                "{}/Cargo.toml builds no binary {bin}",
                dir.trim()
            );
        }
    }
    assert_eq!(
        installs, 2,
        "the README shows how to install dxbc and vk-runner"
    );
    assert!(
        !readme.contains("not yet"),
        "the README claims something is not done yet; check it is still true and say it without \"not yet\""
    );
}
