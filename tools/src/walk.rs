//! Expanding a batch's inputs into the files to look at, each with the path its output takes
//! under `--out-dir`.
//!
//! A directory is walked recursively (walkdir, following symbolic links, each directory's
//! entries sorted by name so that the order never depends on the file system) and its files keep
//! their path inside it; a file named alone keeps only its file name, as `cp` would. Entries the
//! walk cannot read are kept too, as failures to report.

use std::path::PathBuf;

use walkdir::WalkDir;

/// One file the walk found, or an entry it could not read.
#[derive(Debug)]
pub enum Found {
    /// A file: its path and its path relative to the output directory (extension not changed).
    File { path: PathBuf, rel: PathBuf },
    /// A directory entry that could not be read (permissions, a loop of links, ...).
    Broken { path: PathBuf, message: String },
}

/// The files of `inputs` in command-line order, each directory's in sorted order.
pub fn collect(inputs: &[PathBuf]) -> Vec<Found> {
    let mut found = Vec::new();
    for input in inputs {
        if !input.is_dir() {
            // Missing or unreadable files are reported when read.
            let rel = input
                .file_name()
                .map_or_else(|| input.clone(), PathBuf::from);
            found.push(Found::File {
                path: input.clone(),
                rel,
            });
            continue;
        }
        for entry in WalkDir::new(input).follow_links(true).sort_by_file_name() {
            match entry {
                Ok(e) if e.file_type().is_dir() => {}
                Ok(e) => {
                    let rel = e
                        .path()
                        .strip_prefix(input)
                        .unwrap_or(e.path())
                        .to_path_buf();
                    found.push(Found::File {
                        path: e.into_path(),
                        rel,
                    });
                }
                Err(e) => found.push(Found::Broken {
                    path: e.path().unwrap_or(input).to_path_buf(),
                    message: e.to_string(),
                }),
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_and_keeps_relative_paths() {
        let dir = std::env::temp_dir().join(format!("dxbc-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/c")).unwrap();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        for f in ["b/c/z", "b/y", "a/x", "top"] {
            std::fs::write(dir.join(f), f).unwrap();
        }
        let lone = dir.join("b/y");
        let found = collect(&[dir.clone(), lone]);
        let rels: Vec<String> = found
            .iter()
            .map(|f| match f {
                Found::File { rel, .. } => rel.display().to_string(),
                Found::Broken { message, .. } => panic!("{message}"),
            })
            .collect();
        assert_eq!(rels, ["a/x", "b/c/z", "b/y", "top", "y"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
