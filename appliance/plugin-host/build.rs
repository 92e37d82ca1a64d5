//! Builds the standard plugins under `../plugins/` for wasm32-wasip2 and embeds them.
//!
//! Every directory of `plugins/` with a `plugin.toml` is a plugin crate of the plugins
//! workspace; each is built on its own (`cargo rustc --crate-type cdylib`, so a component
//! carries only its own world) into `<target>/wasm-plugins`, copied to OUT_DIR and listed in
//! `builtin_plugins.rs`. The wasm32-wasip2 target is installed with rustup when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let plugins = manifest_dir.join("../../plugins");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for p in ["wit", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", plugins.join(p).display());
    }
    // Every crate of the plugins workspace (plugins, the SDK, shared PDF code).
    for e in std::fs::read_dir(&plugins)
        .expect("plugins/ exists")
        .flatten()
    {
        if e.path().join("Cargo.toml").exists() {
            for f in ["Cargo.toml", "src"] {
                println!("cargo:rerun-if-changed={}", e.path().join(f).display());
            }
        }
    }
    println!("cargo:rerun-if-env-changed=MITRA_PLUGINS_TARGET_DIR");

    let mut names: Vec<String> = std::fs::read_dir(&plugins)
        .expect("plugins/ exists")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("plugin.toml").exists())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    for n in &names {
        for f in ["plugin.toml", "Cargo.toml", "src"] {
            println!(
                "cargo:rerun-if-changed={}",
                plugins.join(n).join(f).display()
            );
        }
    }

    ensure_target();
    // <target>/<profile>/build/mitra-<hash>/out -> <target>/wasm-plugins
    let target_dir = std::env::var_os("MITRA_PLUGINS_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            out.ancestors()
                .nth(4)
                .expect("OUT_DIR is inside the target directory")
                .join("wasm-plugins")
        });
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut listing = String::from("/// Built-in plugins: (name, plugin.toml, component).\npub static BUILTIN: &[(&str, &str, &[u8])] = &[\n");
    for name in &names {
        let status = Command::new(&cargo)
            .current_dir(&plugins)
            .args([
                "rustc",
                "--locked",
                "--release",
                "--target",
                "wasm32-wasip2",
                "-p",
                name,
                "--crate-type",
                "cdylib",
            ])
            .env("CARGO_TARGET_DIR", &target_dir)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CARGO_BUILD_TARGET")
            .env_remove("CARGO_PROFILE_RELEASE_OPT_LEVEL")
            .status()
            .expect("run cargo for the plugins");
        assert!(
            status.success(),
            "building plugin {name} for wasm32-wasip2 failed (see above)"
        );
        let file = format!("{}.wasm", name.replace('-', "_"));
        let built = target_dir.join("wasm32-wasip2/release").join(&file);
        let dest = out.join(&file);
        std::fs::copy(&built, &dest).unwrap_or_else(|e| panic!("copy {}: {e}", built.display()));
        let manifest = plugins.join(name).join("plugin.toml");
        listing.push_str(&format!(
            "    ({name:?}, include_str!({:?}), include_bytes!({:?})),\n",
            manifest.canonicalize().unwrap(),
            dest
        ));
    }
    listing.push_str("];\n");
    std::fs::write(out.join("builtin_plugins.rs"), listing).unwrap();
}

/// Installs the wasm32-wasip2 standard library with rustup when it is missing.
fn ensure_target() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if Path::new(&sysroot)
        .join("lib/rustlib/wasm32-wasip2")
        .exists()
    {
        return;
    }
    let ok = Command::new("rustup")
        .args(["target", "add", "wasm32-wasip2"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        ok,
        "the wasm32-wasip2 target is missing and `rustup target add wasm32-wasip2` failed; install it to build the plugins"
    );
}
