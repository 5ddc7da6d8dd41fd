//! Which functions a WebAssembly module holds, by the names of its name section: `cargo xtask wasm`
//! checks that a module links none of the crates another module answers for (D-190, D-270).

use std::path::Path;

/// Fails when the module holds a function of one of `paths` (crates or `crate::module`), by the
/// function names of the name section that `wasm-ld` writes: a legacy mangled name (`_ZN…`) has
/// `<len><segment>…` (`_ZN12regex_syntax3hir…`) or `crate..module` inside `<…>`; a v0 mangled name
/// (`_R…`, rustc's default since 1.9x) has the crate root `_<len><crate>` followed by the path's
/// further segments, or by any segment for a crate alone (v0 also names the crate a generic function
/// was instantiated in, at the end of the name: that is not the crate's code). A module without names
/// cannot be checked and passes.
pub(crate) fn check_absent(module: &Path, paths: &[&str]) -> Result<(), String> {
    if paths.is_empty() {
        return Ok(());
    }
    let bytes =
        std::fs::read(module).map_err(|e| format!("cannot read {}: {e}", module.display()))?;
    let names = function_names(&bytes);
    if !names.iter().any(|name| name.contains("9oatf_wasm")) {
        println!(
            "{}: no name section, linked crates not checked",
            module.display()
        );
        return Ok(());
    }
    let linked: Vec<&str> = paths
        .iter()
        .copied()
        .filter(|path| names.iter().any(|name| names_path(name, path)))
        .collect();
    if linked.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} links {} (D-190: these are answered by the syntax module, D-270: by the normalize module; something now calls them, \
             e.g. `ValidateOptions::new()` instead of `ValidateOptions::with_syntax_check`; D-221: \
             serde_json's parser comes with the facade's `raw_value`, the module is built on oatf-model)",
            module.display(),
            linked.join(", ")
        ))
    }
}

/// Whether the mangled function name `name` is of an item under `path` (`crate` or `crate::module`).
fn names_path(name: &str, path: &str) -> bool {
    let segments: Vec<&str> = path.split("::").collect();
    let mangled: String = segments.iter().map(|s| format!("{}{s}", s.len())).collect();
    if name.starts_with("_R") {
        // v0: `Cs<disambiguator>_<len><crate>`, then the segments of the path inside the crate.
        let root = format!("_{mangled}");
        return name.match_indices(&root).any(|(at, _)| {
            name[at + root.len()..]
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_digit())
        });
    }
    name.contains(&mangled) || (segments.len() > 1 && name.contains(&segments.join("..")))
}

/// The function names of a WebAssembly module's name section (none when it has no such section or
/// the module cannot be read).
fn function_names(bytes: &[u8]) -> Vec<String> {
    /// An unsigned LEB128 at `at`, moving `at` past it.
    fn leb(bytes: &[u8], at: &mut usize) -> Option<usize> {
        let mut value = 0usize;
        for shift in (0..35).step_by(7) {
            let byte = *bytes.get(*at)?;
            *at += 1;
            value |= usize::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }
    /// A length-prefixed byte string at `at`.
    fn text<'a>(bytes: &'a [u8], at: &mut usize) -> Option<&'a [u8]> {
        let length = leb(bytes, at)?;
        let text = bytes.get(*at..at.checked_add(length)?)?;
        *at += length;
        Some(text)
    }
    let mut names = Vec::new();
    let mut at = 8; // after the magic number and the version
    while at < bytes.len() {
        let id = bytes[at];
        at += 1;
        let Some(size) = leb(bytes, &mut at) else {
            break;
        };
        let end = at.saturating_add(size).min(bytes.len());
        let mut inner = at;
        if id == 0 && text(bytes, &mut inner) == Some(b"name".as_slice()) {
            while inner < end {
                let sub = bytes[inner];
                inner += 1;
                let Some(sub_size) = leb(bytes, &mut inner) else {
                    break;
                };
                let sub_end = inner.saturating_add(sub_size).min(end);
                if sub == 1 {
                    let count = leb(bytes, &mut inner).unwrap_or(0);
                    for _ in 0..count {
                        let entry = leb(bytes, &mut inner).and_then(|_| text(bytes, &mut inner));
                        let Some(name) = entry else { break };
                        names.push(String::from_utf8_lossy(name).into_owned());
                    }
                }
                inner = sub_end;
            }
        }
        at = end;
    }
    names
}

#[cfg(test)]
mod tests {
    use super::check_absent;

    /// A module of nothing but a name section naming functions `names`.
    fn module_naming(names: &[&str]) -> Vec<u8> {
        fn leb(mut value: usize, out: &mut Vec<u8>) {
            loop {
                let byte = u8::try_from(value & 0x7f).unwrap_or(0);
                value >>= 7;
                if value == 0 {
                    out.push(byte);
                    return;
                }
                out.push(byte | 0x80);
            }
        }
        fn text(text: &[u8], out: &mut Vec<u8>) {
            leb(text.len(), out);
            out.extend_from_slice(text);
        }
        let mut functions = Vec::new();
        leb(names.len(), &mut functions);
        for (index, name) in names.iter().enumerate() {
            leb(index, &mut functions);
            text(name.as_bytes(), &mut functions);
        }
        let mut section = Vec::new();
        text(b"name", &mut section);
        section.push(1);
        text(&functions, &mut section);
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.push(0);
        text(&section, &mut module);
        module
    }

    #[test]
    fn a_module_that_links_what_it_must_not_fails() {
        let dir = std::env::temp_dir().join(format!("oatf-xtask-absent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let module = dir.join("m.wasm");
        let write = |names: &[&str]| std::fs::write(&module, module_naming(names)).expect("write");
        write(&[
            "_ZN9oatf_wasm4main",
            "_ZN12regex_syntax3ast5parse",
            "_ZN4core3fmt",
        ]);
        assert!(check_absent(&module, &["regex_syntax::hir", "cel"]).is_ok());
        let error =
            check_absent(&module, &["regex_syntax::ast", "cel"]).expect_err("links the parser");
        assert!(error.contains("regex_syntax::ast"), "{error}");
        write(&["_ZN9oatf_wasm4main", "_$LT$regex_syntax..hir..Hir$GT$"]);
        assert!(check_absent(&module, &["regex_syntax::hir"]).is_err());
        assert!(check_absent(&module, &["regex_automata"]).is_ok());
        // serde_json's value deserializer is not its text parser (D-221).
        write(&["_ZN9oatf_wasm4main", "_ZN10serde_json5value2de5visit"]);
        assert!(check_absent(&module, &["serde_json::de"]).is_ok());
        write(&["_ZN9oatf_wasm4main", "_ZN10serde_json2de8from_str"]);
        assert!(check_absent(&module, &["serde_json::de"]).is_err());
        // The same in v0 mangling: a crate's own item, and a generic function that was merely
        // instantiated in that crate (its name ends with the crate).
        write(&[
            "_RNvCs1_9oatf_wasm4main",
            "_RNvNtNtCs2_12regex_syntax3ast5parse5parse",
            "_RINvNtCs3_9hashbrown3map9make_hashECs8T5_14regex_automata",
        ]);
        assert!(check_absent(&module, &["regex_automata", "regex_syntax::hir", "cel"]).is_ok());
        let error = check_absent(&module, &["regex_syntax::ast"]).expect_err("links the parser");
        assert!(error.contains("regex_syntax::ast"), "{error}");
        assert!(check_absent(&module, &["regex_syntax"]).is_err());
        write(&[
            "_RNvCs1_9oatf_wasm4main",
            "_RNvMs_NtCs4_14regex_automata4meta5regexNtB2_5Regex8is_match",
        ]);
        assert!(check_absent(&module, &["regex_automata"]).is_err());
        // No name section: nothing to check.
        std::fs::write(&module, b"\0asm\x01\0\0\0").expect("write");
        assert!(check_absent(&module, &["regex_automata"]).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
