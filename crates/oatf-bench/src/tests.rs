use super::*;

/// Both SDKs load `yaml` without errors (the reference's errors are debug-printed on failure).
#[track_caller]
fn check_loads(label: &str, yaml: &str) {
    if let Err(e) = oatf::load(yaml) {
        panic!("{label}: ours rejects it: {e}\n{yaml}");
    }
    if let Err(errors) = oatf_reference::load(yaml) {
        panic!("{label}: the reference rejects it: {errors:?}\n{yaml}");
    }
}

#[test]
fn documents_have_their_size_and_load_in_both_sdks() {
    for (label, spec) in DOCUMENTS {
        let yaml = document(spec);
        let target: f64 = label.trim_end_matches("kb").parse().expect("size label");
        let kb = yaml.len() as f64 / 1024.0;
        assert!(
            (kb / target - 1.0).abs() < 0.25,
            "{label}: generated {kb:.1} KB"
        );
        check_loads(label, &yaml);
    }
    check_loads("trace attack", &document(TRACE_ATTACK));
}

#[test]
fn trace_attack_compiles_and_nothing_in_the_trace_matches() {
    let loaded = oatf::load(&document(TRACE_ATTACK)).expect("loads");
    let options =
        oatf::default_eval_options().with_semantic_evaluator(std::sync::Arc::new(MockSemantic));
    let attack = oatf::CompiledAttack::new(&loaded.document, &options);
    assert_eq!(attack.compile_errors().count(), 0);
    let bytes = trace(2_000);
    let mut evaluator = oatf::TraceEvaluator::new(&attack);
    for message in oatf::JsonlTraceReader::new(bytes.as_slice()) {
        evaluator.push(&message.expect("every line is a trace message"));
    }
    let verdict = evaluator.finish();
    let results: Vec<_> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| (v.indicator_id.as_str(), v.result, v.evidence.as_deref()))
        .collect();
    // Every indicator sees messages (none is skipped) and none matches or fails.
    for (id, result, evidence) in results {
        assert_eq!(
            result,
            oatf::IndicatorResult::NotMatched,
            "{id}: {evidence:?}"
        );
    }
}

#[test]
fn messages_have_their_size() {
    for kb in [1, 10, 100] {
        let len = tool_call(kb * 1024).to_string().len();
        assert!(len.abs_diff(kb * 1024) < kb * 1024 / 10, "{kb} KB: {len}");
    }
}

#[test]
fn the_reference_sees_the_same_trace_the_same_way() {
    let yaml = document(TRACE_ATTACK);
    let loaded = oatf_reference::load(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let verdict = reference_evaluate_trace(&loaded.document, &trace(2_000));
    for v in &verdict.indicator_verdicts {
        assert_eq!(
            v.result,
            oatf_reference::enums::IndicatorResult::NotMatched,
            "{}: {:?}",
            v.indicator_id,
            v.evidence
        );
    }
    assert_eq!(verdict.indicator_verdicts.len(), 100);
}

#[test]
fn every_indicator_does_its_work_on_the_union_message() {
    let yaml = document(TRACE_ATTACK);
    let loaded = oatf_reference::load(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let cel = oatf_reference::evaluate::default_cel_evaluator();
    let message = union_message();
    for indicator in loaded.document.attack.indicators.iter().flatten() {
        let verdict = oatf_reference::evaluate::evaluate_indicator(
            indicator,
            &message,
            Some(&cel),
            Some(&MockSemantic),
        );
        assert_eq!(
            verdict.result,
            oatf_reference::enums::IndicatorResult::NotMatched,
            "{verdict:?}"
        );
        // The target resolves (`exists` indicators look at a field that is absent on purpose).
        if let Some(pattern) = &indicator.pattern {
            let target = pattern.target.as_deref().unwrap_or_default();
            let resolved = oatf_reference::primitives::resolve_wildcard_path(target, &message);
            assert_eq!(resolved.is_empty(), target == "credentials", "{target}");
        }
    }
}

#[test]
fn library_attack_has_the_library_mix_and_both_sdks_load_it() {
    let tier = ours_accepts_tier();
    for (cel, expected) in [(true, 100), (false, 90)] {
        let yaml = library_attack(LibraryAttack::new(100, cel, tier));
        check_loads("library attack", &yaml);
        let loaded = oatf::load(&yaml).expect("loads");
        let indicators = loaded
            .document
            .attack
            .as_ref()
            .and_then(|a| a.indicators.as_ref())
            .expect("indicators");
        assert_eq!(indicators.len(), expected);
        let regex = yaml.matches("regex: '").count();
        let contains =
            yaml.matches("contains: \"").count() + yaml.matches("starts_with: \"").count();
        let cel_count = yaml.matches("cel: \"").count();
        assert_eq!(
            (regex, contains, cel_count),
            (70, 20, if cel { 10 } else { 0 })
        );
        // Some regexes look at the whole `arguments` object (serialized as JSON text).
        let object_targets = yaml
            .matches("target: \"arguments\"\n      pattern:\n        regex")
            .count();
        assert!((8..=20).contains(&object_targets), "{object_targets}");
        // Every kind of indicator watches both protocols.
        for kind in ["regex: '", "contains: \"", "starts_with: \"", "cel: \""] {
            for protocol in ["mcp", "a2a"] {
                let on_protocol = yaml
                    .split("    - id: ")
                    .filter(|block| block.contains(&format!("protocol: {protocol}\n")))
                    .any(|block| block.contains(kind));
                assert!(
                    on_protocol || (!cel && kind == "cel: \""),
                    "{kind} on {protocol}"
                );
            }
        }
    }
}

#[test]
fn the_reference_accepts_tier_and_every_library_document_loads_in_both() {
    // The reference 0.4.0 reads `tier` (it computes `max_tier` from it).
    let yaml = library::library_document(1, 1, 3, true);
    let loaded = oatf_reference::load(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let tiers: Vec<_> = loaded
        .document
        .attack
        .indicators
        .iter()
        .flatten()
        .map(|i| i.tier.clone())
        .collect();
    assert_eq!(tiers.len(), 3);
    assert!(tiers.iter().all(Option::is_some), "{tiers:?}");
    for tier in [false, ours_accepts_tier()] {
        let documents = library_documents(tier);
        assert_eq!(documents.len(), 8);
        for (n, yaml) in documents.iter().enumerate() {
            assert_eq!(yaml.contains("tier: "), tier);
            assert!(
                (2_000..8_000).contains(&yaml.len()),
                "{n}: {} bytes",
                yaml.len()
            );
            check_loads(&format!("library document {n}"), yaml);
            let loaded = oatf::load(yaml).expect("loads");
            assert!(loaded.warnings.is_empty(), "{n}: {:?}", loaded.warnings);
            // Every indicator is a regex.
            let indicators = loaded
                .document
                .attack
                .as_ref()
                .and_then(|a| a.indicators.as_ref());
            let all = indicators.expect("indicators");
            assert!(!all.is_empty());
            assert_eq!(yaml.matches("regex: '").count(), all.len());
        }
    }
}

/// Both SDKs, on the library-style attack and the generated trace: nothing matches or fails, and
/// every indicator saw at least one message (the reference's `compute_verdict` gives `skipped` to an
/// indicator that no message applied to; ours says `not_matched` since spec-decisions 22).
#[test]
fn library_attack_same_verdicts_in_both_sdks_on_the_trace() {
    let yaml = library_attack(LibraryAttack::new(100, true, ours_accepts_tier()));
    let loaded = oatf::load(&yaml).expect("loads");
    let attack = oatf::CompiledAttack::new(&loaded.document, &oatf::default_eval_options());
    assert_eq!(attack.compile_errors().count(), 0);
    let bytes = trace(400);
    let mut evaluator = oatf::TraceEvaluator::new(&attack);
    for message in oatf::JsonlTraceReader::new(bytes.as_slice()) {
        evaluator.push(&message.expect("a trace message"));
    }
    let ours = evaluator.finish();
    let reference = oatf_reference::load(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let theirs = reference_evaluate_trace(&reference.document, &bytes);
    assert_eq!(ours.indicator_verdicts.len(), 100);
    assert_eq!(theirs.indicator_verdicts.len(), 100);
    for v in &ours.indicator_verdicts {
        assert_eq!(
            v.result,
            oatf::IndicatorResult::NotMatched,
            "{}: {:?}",
            v.indicator_id,
            v.evidence
        );
    }
    for v in &theirs.indicator_verdicts {
        assert_eq!(
            v.result,
            oatf_reference::enums::IndicatorResult::NotMatched,
            "{}: {:?}",
            v.indicator_id,
            v.evidence
        );
    }
}

/// On the union message every library indicator does its whole work in both SDKs and neither
/// matches nor fails; and a message carrying a secret matches a regex on the `arguments` object in
/// both (so the object target is really serialized and searched).
#[test]
fn library_attack_on_the_union_message_and_an_object_target_hit() {
    let yaml = library_attack(LibraryAttack::new(100, true, ours_accepts_tier()));
    let ours = oatf::load(&yaml).expect("loads").document;
    let options = oatf::default_eval_options();
    let compiled = oatf::CompiledAttack::new(&ours, &options);
    let reference = oatf_reference::load(&yaml)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .document;
    let cel = oatf_reference::evaluate::default_cel_evaluator();
    let message = union_message();
    for v in compiled.evaluate(&message).indicator_verdicts {
        assert_eq!(
            v.result,
            oatf::IndicatorResult::NotMatched,
            "{}: {:?}",
            v.indicator_id,
            v.evidence
        );
    }
    for indicator in reference.attack.indicators.iter().flatten() {
        let v = oatf_reference::evaluate::evaluate_indicator(indicator, &message, Some(&cel), None);
        assert_eq!(
            v.result,
            oatf_reference::enums::IndicatorResult::NotMatched,
            "{v:?}"
        );
    }
    // OATF-950-001 is slot 0: actor mcp_0, tools/call request, a regex on the whole `arguments`.
    assert!(yaml.contains("OATF-950-001\n      actor: mcp_0"));
    let hit = json!({"name": "read_file", "arguments": {"path": "/home/u/.ssh/id_rsa"}});
    let first = compiled.indicators().next().expect("an indicator");
    assert_eq!(first.evaluate(&hit).result, oatf::IndicatorResult::Matched);
    let first_reference = &reference.attack.indicators.as_ref().expect("indicators")[0];
    let v = oatf_reference::evaluate::evaluate_indicator(first_reference, &hit, Some(&cel), None);
    assert_eq!(v.result, oatf_reference::enums::IndicatorResult::Matched);
}

#[test]
fn trace_source_streams_the_same_bytes_as_trace() {
    use std::io::Read as _;
    let mut streamed = Vec::new();
    TraceSource::new(300)
        .read_to_end(&mut streamed)
        .expect("reads");
    assert_eq!(streamed, trace(300));
    let mut empty = Vec::new();
    TraceSource::new(0).read_to_end(&mut empty).expect("reads");
    assert!(empty.is_empty());
}

#[test]
fn scaling_attack_loads_applies_to_every_message_and_matches_nothing() {
    use crate::scaling::{scaling_attack, scaling_trace, scaling_trace_line};
    let lines: Vec<usize> = (1..=4).map(|seq| scaling_trace_line(seq).len()).collect();
    assert!(
        lines.iter().all(|&n| (600..=800).contains(&n)),
        "lines of about 700 bytes: {lines:?}"
    );
    for (n, cel) in [(10, true), (100, false)] {
        let yaml = scaling_attack(n, cel);
        let loaded = oatf::load(&yaml).expect("loads");
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let attack = oatf::CompiledAttack::new(&loaded.document, &oatf::default_eval_options());
        assert_eq!(attack.compile_errors().count(), 0);
        assert_eq!(attack.indicators().count(), n);
        let bytes = scaling_trace(200);
        let mut evaluator = oatf::TraceEvaluator::new(&attack);
        let mut straightforward = oatf::TraceEvaluator::without_prefilter(&attack);
        for message in oatf::JsonlTraceReader::new(bytes.as_slice()) {
            let message = message.expect("every line is a trace message");
            evaluator.push(&message);
            straightforward.push(&message);
        }
        let (verdict, reference) = (evaluator.finish(), straightforward.finish());
        for (v, r) in verdict
            .indicator_verdicts
            .iter()
            .zip(&reference.indicator_verdicts)
        {
            // Every indicator saw messages (an unseen one has evidence) and none matched.
            assert_eq!(
                (v.result, v.evidence.as_deref()),
                (oatf::IndicatorResult::NotMatched, None),
                "{v:?}"
            );
            assert_eq!((v.result, &v.evidence), (r.result, &r.evidence));
        }
    }
}

#[test]
fn the_library_regexes_are_the_documents_own() {
    let regexes = crate::library::public_library_regexes();
    // Twelve `regex:` values in the five documents, one of them written twice.
    assert_eq!(regexes.len(), 11, "{regexes:#?}");
    // Unescaped by the YAML parser: one backslash, as the indicator sees it.
    assert!(
        regexes.iter().any(|r| r == r"\.aws/credentials"),
        "{regexes:#?}"
    );
    assert!(
        regexes.iter().any(|r| r == r"^T-[0-9]{4,6}$"),
        "{regexes:#?}"
    );
    for regex in &regexes {
        assert!(oatf_internal::check_regex(regex).is_ok(), "{regex}");
    }
}

#[test]
fn the_sparse_trace_is_valid_and_one_line_in_five_applies() {
    use crate::scaling::scaling_attack;
    use crate::sparse::{sparse_trace, sparse_trace_line};
    let lines: Vec<usize> = (1..=10).map(|seq| sparse_trace_line(seq).len()).collect();
    // Requests and responses of hundreds of bytes, a few short ones (`ping`, `tools/list`).
    assert!(
        lines.iter().filter(|&&n| n >= 200).count() >= 8 && lines.iter().sum::<usize>() >= 4_000,
        "mostly lines of hundreds of bytes: {lines:?}"
    );
    let loaded = oatf::load(&scaling_attack(10, false)).expect("loads");
    let attack = oatf::CompiledAttack::new(&loaded.document, &oatf::default_eval_options());
    let bytes = sparse_trace(200);
    let mut evaluator = oatf::TraceEvaluator::new(&attack);
    for message in oatf::JsonlTraceReader::new(bytes.as_slice()) {
        evaluator.push(&message.expect("every line is a trace message"));
    }
    assert_eq!(evaluator.messages(), 200);
    let verdict = evaluator.finish();
    for v in &verdict.indicator_verdicts {
        // Every indicator saw its 20 requests and matched none.
        assert_eq!(
            (v.result, v.evidence.as_deref()),
            (oatf::IndicatorResult::NotMatched, None),
            "{v:?}"
        );
    }
    assert!(verdict.warnings.is_empty(), "{:?}", verdict.warnings);
}
