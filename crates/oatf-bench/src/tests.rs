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
