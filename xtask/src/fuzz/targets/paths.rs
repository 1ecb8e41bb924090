//! `paths`: [`agent_tools::builtin::FileRoot::resolve`] over a scratch
//! root (files, a subdirectory, and on Unix symlinks pointing inside and
//! outside the root, dangling and looping), for both read and write
//! access. Oracle: a resolved path stays under the root — lexically, and
//! every existing prefix of it canonicalizes inside the root.

use std::fs;
use std::hint::black_box;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use agent_tools::builtin::{Access, FileRoot};

use super::{Outcome, Target, Violation, nanos_since, signature};
use crate::fuzz::case::Case;
use crate::fuzz::seeds::SeedSet;

const DICTIONARY: &[&str] = &[
    "/",
    "\\",
    "//",
    ".",
    "..",
    "./",
    "../",
    "..\\",
    "~",
    "~/",
    "C:",
    "c:\\",
    "\\\\server\\",
    "\0",
    " ",
    "\t",
    "\n",
    "file.txt",
    "sub",
    "sub/",
    "deeper",
    "inner.txt",
    "link_in",
    "link_in_file",
    "link_out",
    "link_out_abs",
    "link_out_file",
    "dangling",
    "loop",
    "up",
    "upup",
    "outside",
    "secret.txt",
    "new",
    "é文件.txt",
    "é",
    "中",
    "😀",
    "％2e",
    "%2e%2e",
    "…",
    "．．",
    "\u{2215}",
    "\u{ff0f}",
];

/// The path-resolution target; owns its scratch directory.
#[derive(Debug)]
pub(crate) struct Paths {
    base: PathBuf,
    root: FileRoot,
}

impl Paths {
    /// Builds the scratch tree under the system temp directory.
    pub(crate) fn new() -> std::io::Result<Self> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let base = std::env::temp_dir().join(format!(
            "agentloop-fuzz-paths-{}-{nanos}",
            std::process::id()
        ));
        let made = build_tree(&base);
        let root = made.and_then(|()| {
            FileRoot::new(base.join("root")).map_err(|e| std::io::Error::other(e.to_string()))
        });
        match root {
            Ok(root) => Ok(Self { base, root }),
            Err(e) => {
                let _ = fs::remove_dir_all(&base);
                Err(e)
            }
        }
    }
}

impl Drop for Paths {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

/// `base/root` with files, `sub/deeper`, symlinks; `base/outside` beside it.
fn build_tree(base: &Path) -> std::io::Result<()> {
    let root = base.join("root");
    fs::create_dir_all(root.join("sub/deeper"))?;
    fs::create_dir_all(base.join("outside"))?;
    fs::write(root.join("file.txt"), "in")?;
    fs::write(root.join("é文件.txt"), "in")?;
    fs::write(root.join("sub/inner.txt"), "in")?;
    fs::write(root.join("sub/deeper/x.txt"), "in")?;
    fs::write(base.join("outside/secret.txt"), "out")?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink("sub", root.join("link_in"))?;
        symlink("file.txt", root.join("link_in_file"))?;
        symlink("../outside", root.join("link_out"))?;
        symlink(base.join("outside"), root.join("link_out_abs"))?;
        symlink("../outside/secret.txt", root.join("link_out_file"))?;
        symlink("../outside/missing", root.join("dangling"))?;
        symlink("loop", root.join("loop"))?;
        symlink("..", root.join("sub/up"))?;
        symlink("../..", root.join("sub/upup"))?;
    }
    Ok(())
}

impl Target for Paths {
    fn name(&self) -> &'static str {
        "paths"
    }

    fn seeds(&self) -> SeedSet {
        SeedSet::Paths
    }

    fn dictionary(&self) -> &'static [&'static str] {
        DICTIONARY
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, Violation> {
        let given = case.text.as_str();
        let start = Instant::now();
        let read = black_box(self.root.resolve(black_box(given), Access::Read));
        let write = black_box(self.root.resolve(black_box(given), Access::Write));
        let nanos = nanos_since(start);
        let root = self.root.path();
        for (access, resolved) in [("read access", &read), ("write access", &write)] {
            if let Ok(path) = resolved {
                stays_inside(root, path)
                    .map_err(|why| Violation::new("paths-confined", access, why))?;
            }
        }
        Ok(Outcome {
            nanos,
            signature: signature(&[&[u8::from(read.is_ok()), u8::from(write.is_ok())]]),
        })
    }
}

/// Whether `path` is under `root` and each existing prefix of it
/// canonicalizes under `root` (a dangling or looping link counts as out).
fn stays_inside(root: &Path, path: &Path) -> Result<(), String> {
    let rest = path
        .strip_prefix(root)
        .map_err(|_| format!("{} is not under the root", path.display()))?;
    let mut prefix = root.to_path_buf();
    for component in rest.components() {
        let Component::Normal(part) = component else {
            return Err(format!(
                "{} has a `{component:?}` component",
                path.display()
            ));
        };
        prefix.push(part);
        let meta = match fs::symlink_metadata(&prefix) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(_) => return Ok(()),
        };
        match prefix.canonicalize() {
            Ok(real) if real.starts_with(root) => {}
            Ok(real) => {
                return Err(format!("{} leads to {}", prefix.display(), real.display()));
            }
            Err(_) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a dangling or looping link",
                    prefix.display()
                ));
            }
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracle_sees_a_link_out_of_the_root() {
        let mut paths = Paths::new().unwrap();
        let root = paths.root.path().to_path_buf();
        assert!(stays_inside(&root, &root.join("sub/inner.txt")).is_ok());
        assert!(stays_inside(&root, &root.join("new/file.txt")).is_ok());
        assert!(stays_inside(&root, &root.parent().unwrap().join("outside")).is_err());
        #[cfg(unix)]
        {
            assert!(stays_inside(&root, &root.join("link_in/inner.txt")).is_ok());
            assert!(stays_inside(&root, &root.join("link_out/secret.txt")).is_err());
            assert!(stays_inside(&root, &root.join("dangling")).is_err());
            assert!(stays_inside(&root, &root.join("sub/upup/x")).is_err());
        }
        for given in ["file.txt", "link_out/secret.txt", "../x", "dangling/new"] {
            assert!(paths.run(&Case::new(given)).is_ok(), "{given}");
        }
    }
}
