//! `cargo xtask wasm`: builds the npm package `oatf` (crates/oatf-wasm) into `target/npm/`, and
//! `cargo xtask playground`: the package and the static playground (web/) into `target/playground/`.
//!
//! Toolchains, in order:
//! 1. rustup with the `wasm32-unknown-unknown` target installed (`rustup target add …`);
//! 2. Debian's web toolchain (`apt-get install rustc-web cargo-web rust-web-src lld`): `/usr/bin/rustc`
//!    builds the standard library from source (`-Zbuild-std`, allowed by `RUSTC_BOOTSTRAP=1`) and
//!    `/usr/bin/wasm-ld` links. When that rustc is older than the workspace's `rust-version`, this
//!    program wraps it (`OATF_XTASK_RUSTC_WRAPPER`) to enable, in crates outside the standard library,
//!    the few library and language features that were stabilized after it and that our dependencies
//!    use ([`LATE_FEATURES`]).
//!
//! Then `wasm-bindgen` (exactly the version of the `wasm-bindgen` crate in Cargo.lock) writes the
//! JavaScript glue, and `wasm-opt` (binaryen) shrinks the module when it is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;

use crate::wasm_names::check_absent;

const TARGET: &str = "wasm32-unknown-unknown";
/// The build's own target directory, so that it never invalidates the host build.
const TARGET_DIR: &str = "target/wasm";
const OUT_DIR: &str = "target/npm";
/// Linear-memory stack of the module: the CEL parser recurses on it (bounded by `CelLimits`).
const STACK_BYTES: u32 = 16 << 20;

/// Features stabilized after Debian's rustc 1.85 that the dependency tree uses; enabled with
/// `-Zcrate-attr` outside the standard library when the wrapper is in use.
const LATE_FEATURES: &[&str] = &[
    "let_chains",
    "slice_as_chunks",
    "unsigned_is_multiple_of",
    "integer_sign_cast",
    "const_eq_ignore_ascii_case",
    "trait_upcasting",
];

/// How the module is compiled.
enum Toolchain {
    Rustup,
    /// Debian's rustc at this path, older than the workspace (`wrap`) or not.
    Debian {
        rustc: PathBuf,
        wrap: bool,
        /// Whether this rustc has the `immediate-abort` panic strategy (since 1.92; before it, the
        /// standard library's `panic_immediate_abort` feature, which now refuses to build, did it).
        immediate_abort: bool,
    },
}

/// The rustc wrapper mode of this binary: `argv[1]` is rustc, the rest its arguments.
pub(crate) fn rustc_wrapper() -> Option<std::process::ExitCode> {
    std::env::var_os("OATF_XTASK_RUSTC_WRAPPER")?;
    let mut args = std::env::args_os().skip(1);
    let rustc = args.next()?;
    let args: Vec<_> = args.collect();
    let in_std = args
        .iter()
        .any(|a| a.to_string_lossy().contains("/rustlib/src/"));
    let probing = args.iter().any(|a| a == "___");
    let mut command = Command::new(rustc);
    command.args(&args);
    if !in_std && !probing && args.iter().any(|a| a == "--crate-type") {
        for feature in LATE_FEATURES {
            command.arg(format!("-Zcrate-attr=feature({feature})"));
        }
        command.args(["-Astable_features", "-Aunused_features"]);
    }
    let code = command.status().map_or(1, |s| s.code().unwrap_or(1));
    Some(std::process::ExitCode::from(
        u8::try_from(code).unwrap_or(1),
    ))
}

pub(crate) fn build_package() -> bool {
    match build() {
        Ok(()) => true,
        Err(message) => {
            eprintln!("xtask wasm: {message}");
            false
        }
    }
}

pub(crate) fn build_playground() -> bool {
    if !build_package() {
        return false;
    }
    let web = Path::new("web");
    if !web.join("node_modules").is_dir() && !run_in(web, "npm", &["ci", "--no-audit", "--no-fund"])
    {
        eprintln!("xtask playground: `npm ci` in web/ failed");
        return false;
    }
    if !run_in(web, "node", &["build.mjs"]) {
        eprintln!("xtask playground: the bundle failed (web/build.mjs)");
        return false;
    }
    println!(
        "playground written to target/playground/ (serve it statically, e.g. `python3 -m http.server -d target/playground`)"
    );
    true
}

/// How the modules of one cargo profile are built, beyond Cargo.toml's `[profile.NAME]` (opt-level,
/// LTO, codegen units, panic strategy): rustc flags, features of the standard library, `wasm-opt`'s
/// arguments. Modules that share a profile share these (different flags on one profile would rebuild
/// its dependencies on each build). docs/javascript.md ("Size") measures each choice (D-191).
struct Build {
    /// The cargo profile.
    profile: &'static str,
    /// Unstable rustc flags for every crate of the build; given only where the standard library is
    /// built from source (Debian's toolchain, `RUSTC_BOOTSTRAP=1`), else left out.
    unstable_rustflags: &'static [&'static str],
    /// Features of the standard library built from source (`-Zbuild-std-features`), likewise.
    std_features: &'static [&'static str],
    /// A panic aborts at once, without formatting a message or a location (the standard library
    /// built from source only): `-Cpanic=immediate-abort` where rustc has that strategy, else the
    /// standard library's `panic_immediate_abort` feature.
    immediate_abort: bool,
    /// Stable rustc flags for every crate of the build, on any toolchain (target features).
    rustflags: &'static str,
    /// The optimization arguments of `wasm-opt` (and the features it must be told beyond those every
    /// module has).
    wasm_opt: &'static [&'static str],
}

/// The full package: evaluation speed matters. Its profile, `wasm-eval`, is `wasm`'s
/// (`opt-level = "s"`) with the crates a trace's evaluation runs in at `opt-level = 3` (D-230: the
/// whole module at 3 made a warm call as fast but compiled the YAML reader's code for longer and
/// weighed more). `wasm-opt` does not inline a function into its only caller: that made functions
/// of 30 to 76 KB, which V8 compiled again, optimized, at a cost that grows faster than their size
/// (D-231). Compiled, the standard library included, with SIMD (`memchr`'s searches for line ends
/// and literals), bulk memory (`memcpy` is one `memory.copy` instead of a loop) and non-trapping
/// float-to-int conversions: Node 16.4, Chrome 91, Firefox 89 and Safari 16.4 have them all (D-200).
const FULL: Build = Build {
    profile: "wasm-eval",
    unstable_rustflags: &[],
    std_features: &[],
    immediate_abort: false,
    rustflags: "-Ctarget-feature=+simd128,+bulk-memory,+nontrapping-fptoint",
    wasm_opt: &[
        "-Os",
        "--enable-simd",
        "--one-caller-inline-max-function-size=0",
    ],
};

/// The modules of `oatf/validate`: size first (`opt-level = "z"`); a panic, which no input may cause,
/// aborts without formatting a message or a location nobody could read. As for the full package,
/// `wasm-opt` does not inline a function into its only caller (D-321): with it the validation
/// module's `parse_with` was one 57 KB function, which V8 compiled again, optimized, during the first
/// validation, and the module was 8.6 % larger gzipped.
const SMALL: Build = Build {
    profile: "wasm-small",
    unstable_rustflags: &["-Zlocation-detail=none"],
    std_features: &["optimize_for_size"],
    immediate_abort: true,
    rustflags: "",
    wasm_opt: &[
        "-Oz",
        "--converge",
        "--one-caller-inline-max-function-size=0",
    ],
};

/// One WebAssembly module of the package (D-140): the crate's features, and the name wasm-bindgen
/// writes it under (`<name>.js` and `<name>_bg.wasm`).
struct Module {
    name: &'static str,
    features: &'static [&'static str],
    build: &'static Build,
    /// What the module is, for the size report.
    what: &'static str,
    /// Crates or modules (`crate::module`) none of whose functions the module may hold (checked in
    /// its name section before `wasm-opt`): what another module answers for it (D-190).
    absent: &'static [&'static str],
}

const MODULES: &[Module] = &[
    Module {
        name: "oatf_wasm",
        features: &[],
        build: &FULL,
        what: "`oatf`: the full package",
        absent: &[],
    },
    Module {
        name: "oatf_validate",
        features: &["--no-default-features", "--features", "document"],
        build: &SMALL,
        what: "`oatf/validate`: its first module",
        // A regex's syntax tree is the regex module's (D-271); translating it (Unicode tables, capture
        // counts) is the syntax module's. The module parses no JSON text: serde_json's parser comes back
        // with the facade, whose evaluator turns on `raw_value` (D-221).
        absent: &[
            "regex_syntax::ast::parse",
            "regex_syntax::hir",
            "regex_syntax::unicode",
            "regex_automata",
            "serde_json_path",
            "antlr4rust",
            "cel",
            "serde_json::de",
            // Normalizing and writing YAML are the normalize module's (D-270).
            "oatf_model::yaml::emit",
            "oatf_model::serialize",
        ],
    },
    Module {
        name: "oatf_syntax",
        features: &["--no-default-features", "--features", "syntax"],
        build: &SMALL,
        what: "`oatf/validate`: the syntax module (CEL, regex, JSONPath), loaded on demand",
        absent: &[],
    },
    Module {
        name: "oatf_regex",
        features: &["--no-default-features", "--features", "regex"],
        build: &SMALL,
        what: "`oatf/validate`: the regex module (regex syntax trees), loaded on demand",
        absent: &["regex_syntax::hir", "regex_automata", "serde_json::de"],
    },
    Module {
        name: "oatf_normalize",
        features: &["--no-default-features", "--features", "normalize"],
        build: &SMALL,
        what: "`oatf/validate`: the normalize module (load, normalize, serialize), loaded on demand",
        // Parse, normalize, write: no validation (the validation module's, D-270).
        absent: &[
            "regex_syntax::ast::parse",
            "serde_json::de",
            "oatf_model::validate",
        ],
    },
];

/// The package's own files, copied from crates/oatf-wasm/js.
const SOURCES: &[&str] = &[
    "common.js",
    "common.d.ts",
    "base64.js",
    "fetch-failed.js",
    "oatf.js",
    "oatf.d.ts",
    "node.js",
    "web.js",
    "inline.js",
    "validate.js",
    "validate.d.ts",
    "validate-node.js",
    "validate-web.js",
    "validate-inline.js",
    "README.md",
];

fn build() -> Result<(), String> {
    let toolchain = find_toolchain()?;
    let bindgen_version = locked_version("wasm-bindgen")?;
    check_bindgen(&bindgen_version)?;
    let mut built = Vec::new();
    for module in MODULES {
        compile(&toolchain, module.features, module.build)?;
        let wasm = Path::new(TARGET_DIR)
            .join(TARGET)
            .join(module.build.profile)
            .join("oatf_wasm.wasm");
        // Each build overwrites the crate's artifact: keep this one under the module's name.
        let kept = Path::new(TARGET_DIR).join(format!("{}.wasm", module.name));
        copy_if_changed(&wasm, &kept)?;
        check_absent(&kept, module.absent)?;
        built.push(kept);
    }
    let out = Path::new(OUT_DIR);
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|e| format!("cannot clear {OUT_DIR}: {e}"))?;
    }
    let mut sizes = Vec::new();
    for (module, wasm) in MODULES.iter().zip(&built) {
        // wasm-opt runs before wasm-bindgen: Debian's binaryen (108) turns the externref table that
        // wasm-bindgen adds into a funcref table, which fails at instantiation.
        let optimized = Path::new(TARGET_DIR).join(format!("{}.opt.wasm", module.name));
        let (wasm, optimized_by) = if optimize(wasm, &optimized, module.build.wasm_opt) {
            (optimized, describe(module.build, &toolchain))
        } else {
            (wasm.clone(), "no wasm-opt".to_owned())
        };
        let wasm_arg = wasm.to_string_lossy();
        if !run(
            "wasm-bindgen",
            &[
                "--target",
                "web",
                "--out-dir",
                OUT_DIR,
                "--out-name",
                module.name,
                "--no-typescript",
                &wasm_arg,
            ],
        ) {
            return Err(format!("wasm-bindgen failed on {}", module.name));
        }
        let module_path = out.join(format!("{}_bg.wasm", module.name));
        sizes.push(report_size(&module_path, module.what, &optimized_by));
        write_inline(
            &module_path,
            &out.join(format!("{}_inline.js", module.name)),
        )?;
    }
    copy_sources(out)?;
    let sizes = format!("[\n{}\n]\n", sizes.join(",\n"));
    std::fs::write(Path::new(TARGET_DIR).join("sizes.json"), sizes)
        .map_err(|e| format!("cannot write {TARGET_DIR}/sizes.json: {e}"))?;
    println!(
        "npm package written to {OUT_DIR}/ (`npm pack` there makes the tarball); sizes in {TARGET_DIR}/sizes.json"
    );
    Ok(())
}

/// The module as a JavaScript module whose default export is its base64 text (`oatf/inline`, D-145).
fn write_inline(module: &Path, output: &Path) -> Result<(), String> {
    let bytes =
        std::fs::read(module).map_err(|e| format!("cannot read {}: {e}", module.display()))?;
    let text = format!(
        "// {} as base64 (generated by `cargo xtask wasm`).\nexport default \"{}\";\n",
        module
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    std::fs::write(output, text).map_err(|e| format!("cannot write {}: {e}", output.display()))
}

/// Copies `from` to `to` unless `to` is already as new (so that wasm-opt's cache holds).
fn copy_if_changed(from: &Path, to: &Path) -> Result<(), String> {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if let (Some(source), Some(copy)) = (modified(from), modified(to))
        && copy >= source
        && std::fs::metadata(from).map(|m| m.len()).ok()
            == std::fs::metadata(to).map(|m| m.len()).ok()
    {
        return Ok(());
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

fn find_toolchain() -> Result<Toolchain, String> {
    if let Ok(output) = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        && String::from_utf8_lossy(&output.stdout)
            .lines()
            .any(|l| l.trim() == TARGET)
    {
        return Ok(Toolchain::Rustup);
    }
    let rustc = PathBuf::from("/usr/bin/rustc");
    let std_src = Path::new("/usr/lib/rustlib/src/rust/library");
    let linker = Path::new("/usr/bin/wasm-ld");
    if rustc.is_file() && std_src.is_dir() && linker.is_file() {
        let wrap = rustc_minor(&rustc).is_some_and(|minor| minor < workspace_minor());
        let immediate_abort = has_immediate_abort(&rustc);
        return Ok(Toolchain::Debian {
            rustc,
            wrap,
            immediate_abort,
        });
    }
    Err(format!(
        "no toolchain for {TARGET}. Either\n  rustup target add {TARGET}\nor (Debian, no rustup \
         download) install the web toolchain:\n  apt-get install -y rustc-web cargo-web rust-web-src lld"
    ))
}

/// Whether `rustc` accepts the `immediate-abort` panic strategy for the target.
fn has_immediate_abort(rustc: &Path) -> bool {
    Command::new(rustc)
        .args([
            "-Zunstable-options",
            "-Cpanic=immediate-abort",
            "--print=cfg",
            "--target",
            TARGET,
        ])
        .env("RUSTC_BOOTSTRAP", "1")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The minor version of a rustc (`rustc 1.85.0 …` → 85).
fn rustc_minor(rustc: &Path) -> Option<u32> {
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.split_whitespace()
        .nth(1)?
        .split('.')
        .nth(1)?
        .parse()
        .ok()
}

/// The minor version of the workspace's `rust-version`.
fn workspace_minor() -> u32 {
    std::fs::read_to_string("Cargo.toml")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("rust-version = \""))
                .and_then(|v| {
                    v.split('.')
                        .nth(1)
                        .and_then(|m| m.trim_matches('"').parse().ok())
                })
        })
        .unwrap_or(0)
}

/// The version of `package` in Cargo.lock.
fn locked_version(package: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string("Cargo.lock")
        .map_err(|e| format!("cannot read Cargo.lock (run from the workspace root): {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{package}\"")
            && let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = \""))
        {
            return Ok(version.trim_end_matches('"').to_owned());
        }
    }
    Err(format!("{package} is not in Cargo.lock"))
}

fn check_bindgen(version: &str) -> Result<(), String> {
    let install = format!("cargo install wasm-bindgen-cli --version ={version}");
    match Command::new("wasm-bindgen").arg("--version").output() {
        Ok(output) => {
            let found = String::from_utf8_lossy(&output.stdout).into_owned();
            if found.split_whitespace().nth(1) == Some(version) {
                Ok(())
            } else {
                Err(format!(
                    "wasm-bindgen {} is installed; this workspace needs exactly {version}:\n  {install}",
                    found.trim()
                ))
            }
        }
        Err(_) => Err(format!("wasm-bindgen is not installed:\n  {install}")),
    }
}

/// How a build was optimized, for the size report: its profile, flags and `wasm-opt` arguments.
fn describe(build: &Build, toolchain: &Toolchain) -> String {
    let mut parts = vec![format!("profile {}", build.profile)];
    if !build.rustflags.is_empty() {
        parts.push(build.rustflags.to_owned());
    }
    if matches!(toolchain, Toolchain::Debian { .. }) {
        parts.extend(build.unstable_rustflags.iter().map(|f| (*f).to_owned()));
        parts.extend(build.std_features.iter().map(|f| format!("std {f}")));
        if build.immediate_abort {
            parts.push("panic immediate-abort".to_owned());
        }
    }
    parts.push(format!("wasm-opt {}", build.wasm_opt.join(" ")));
    parts.join(", ")
}

fn compile(toolchain: &Toolchain, features: &[&str], build: &Build) -> Result<(), String> {
    let profile = build.profile;
    let mut command = Command::new(env!("CARGO"));
    command.args([
        "build",
        "--package",
        "oatf-wasm",
        "--target",
        TARGET,
        "--profile",
        profile,
        "--target-dir",
        TARGET_DIR,
    ]);
    command.args(features);
    let mut rustflags = format!("-Clink-arg=-zstack-size={STACK_BYTES}");
    if !build.rustflags.is_empty() {
        rustflags.push(' ');
        rustflags.push_str(build.rustflags);
    }
    if let Toolchain::Debian {
        rustc,
        immediate_abort,
        ..
    } = toolchain
    {
        for flag in build.unstable_rustflags {
            rustflags.push(' ');
            rustflags.push_str(flag);
        }
        let mut std_features = build.std_features.to_vec();
        if build.immediate_abort {
            if *immediate_abort {
                rustflags.push_str(" -Zunstable-options -Cpanic=immediate-abort");
            } else {
                std_features.push("panic_immediate_abort");
            }
        }
        command
            .args(["-Zbuild-std=std,panic_abort"])
            .env("RUSTC_BOOTSTRAP", "1")
            .env("RUSTC", rustc)
            .env(
                "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER",
                "/usr/bin/wasm-ld",
            );
        if !std_features.is_empty() {
            command.arg(format!("-Zbuild-std-features={}", std_features.join(",")));
        }
    }
    command.env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS", rustflags);
    if let Toolchain::Debian { wrap: true, .. } = toolchain {
        let me = std::env::current_exe().map_err(|e| format!("cannot find xtask: {e}"))?;
        command
            .arg("--ignore-rust-version")
            .env("RUSTC_WRAPPER", me)
            .env("OATF_XTASK_RUSTC_WRAPPER", "1");
    }
    let ok = command.status().is_ok_and(|s| s.success());
    if ok {
        Ok(())
    } else {
        Err("cargo build of oatf-wasm failed".to_owned())
    }
}

/// Runs `wasm-opt` with `level` (its optimization arguments) into `output` when binaryen is
/// installed; the module works without it. An `output` newer than `module` and made with the same
/// arguments (kept beside it, `.args`) is kept (wasm-opt takes a minute).
fn optimize(module: &Path, output: &Path, level: &[&str]) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let args_file = output.with_extension("args");
    let args = level.join(" ");
    if let (Some(input), Some(existing)) = (modified(module), modified(output))
        && existing >= input
        && std::fs::read_to_string(&args_file).is_ok_and(|made| made == args)
    {
        return true;
    }
    let path = module.to_string_lossy();
    let output = output.to_string_lossy();
    let ok = Command::new("wasm-opt")
        .args(level)
        .args([
            "--enable-bulk-memory",
            "--enable-nontrapping-float-to-int",
            "--enable-sign-ext",
            "--enable-mutable-globals",
            "--enable-reference-types",
            "--enable-multivalue",
            "-o",
            &output,
            &path,
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        println!("wasm-opt not run (install binaryen for a smaller module)");
    } else if std::fs::write(&args_file, args).is_err() {
        println!("cannot write {}", args_file.display());
    }
    ok
}

fn copy_sources(out: &Path) -> Result<(), String> {
    let js = Path::new("crates/oatf-wasm/js");
    for name in SOURCES {
        std::fs::copy(js.join(name), out.join(name))
            .map_err(|e| format!("cannot copy {name}: {e}"))?;
    }
    std::fs::copy("LICENSE", out.join("LICENSE"))
        .or_else(|_| std::fs::copy("crates/oatf-sdk/LICENSE", out.join("LICENSE")))
        .map_err(|e| format!("cannot copy LICENSE: {e}"))?;
    let version = locked_version("oatf-wasm")?;
    let manifest = std::fs::read_to_string(js.join("package.json"))
        .map_err(|e| format!("cannot read package.json: {e}"))?
        .replace("@VERSION@", &version);
    std::fs::write(out.join("package.json"), manifest)
        .map_err(|e| format!("cannot write package.json: {e}"))
}

/// Prints the size of a module, raw and `gzip -9`, and returns it as a JSON object.
fn report_size(module: &Path, what: &str, optimized_by: &str) -> String {
    let raw = std::fs::metadata(module).map_or(0, |m| m.len());
    let gzipped = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(module)
        .output()
        .map_or(0, |o| o.stdout.len());
    println!(
        "{} ({what}, {optimized_by}): {raw} bytes ({:.0} KiB), gzip -9: {gzipped} bytes ({:.0} KiB)",
        module.display(),
        raw as f64 / 1024.0,
        gzipped as f64 / 1024.0
    );
    let name = module
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    format!(
        "  {{\"file\": \"{name}\", \"what\": \"{}\", \"optimized\": \"{optimized_by}\", \"raw\": {raw}, \"gzip9\": {gzipped}}}",
        what.replace('`', "")
    )
}

fn run(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success())
}
