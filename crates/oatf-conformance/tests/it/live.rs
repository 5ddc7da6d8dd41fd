//! The live path over the shipped examples (D-131, D-133), as an evaluator-only tool takes it: the
//! document as JSON (`Document::from_json` → `CompiledAttack::try_new`), each trace message pushed as
//! it arrives, an alert per indicator on its first match. The alerts are exactly the matches of
//! `evaluate_trace`, at the deciding message; resisted traces raise none. The misuses an evaluator-only
//! tool meets (a typo in a tier, a direction or a key, no `execution`, no `state`) are refused with
//! their rule and path.
use std::fs::File;
use std::io::BufReader;

use oatf::{
    AttackError, AttackResult, CompiledAttack, Document, IndicatorResult, JsonlTraceReader,
    TraceEvaluator, TraceMessage, evaluate_trace,
};
use serde_json::{Value, json};

use crate::support::readme_tables::{examples, readme_tables};

/// The document of `NAME.yaml` as the JSON an evaluator-only tool is given.
fn document_json(name: &str) -> Value {
    let source = std::fs::read_to_string(examples().join(format!("{name}.yaml"))).unwrap();
    serde_json::to_value(oatf::parse(&source).unwrap()).unwrap()
}

#[test]
fn alerts_are_the_trace_verdicts_matches_at_their_message() {
    let (verdicts, _) = readme_tables();
    assert_eq!(verdicts.len(), 8);
    for (trace, result, ..) in &verdicts {
        let name = trace.split('.').next().unwrap();
        let document = Document::from_json(&document_json(name)).unwrap();
        let attack = CompiledAttack::try_new(&document, &oatf::default_eval_options()).unwrap();
        let messages: Vec<TraceMessage> =
            JsonlTraceReader::new(BufReader::new(File::open(examples().join(trace)).unwrap()))
                .collect::<Result<_, _>>()
                .unwrap();

        let mut evaluator = TraceEvaluator::new(&attack);
        let mut alerts = Vec::new();
        for message in &messages {
            for hit in evaluator.push(message) {
                alerts.push((
                    hit.indicator_id().to_owned(),
                    hit.evidence().map(str::to_owned),
                ));
            }
        }
        let live = evaluator.finish();
        let whole = evaluate_trace(&attack, &messages);
        assert_eq!(live.result.as_str(), result, "{trace}");
        assert_eq!(live.result, whole.result, "{trace}");
        let matched: Vec<_> = whole
            .indicator_verdicts
            .iter()
            .filter(|v| v.result == IndicatorResult::Matched)
            .map(|v| (v.indicator_id.clone(), v.evidence.clone()))
            .collect();
        assert_eq!(alerts, matched, "{trace}");
        if live.result == AttackResult::NotExploited {
            assert!(alerts.is_empty(), "{trace}: {alerts:?}");
        }
        assert!(live.warnings.is_empty(), "{trace}: {:?}", live.warnings);
    }
}

#[test]
fn the_misuses_of_an_evaluator_only_tool_are_refused_at_their_path() {
    let valid = document_json("mcp-tool-poisoning");
    let refused = |edit: &dyn Fn(&mut Value)| -> Vec<String> {
        let mut value = valid.clone();
        edit(&mut value);
        match Document::from_json(&value) {
            Err(errors) => errors
                .iter()
                .map(|e| format!("parse {}", e.path().unwrap_or("")))
                .collect(),
            Ok(document) => match CompiledAttack::try_new(&document, &oatf::default_eval_options())
            {
                Ok(_) => Vec::new(),
                Err(AttackError::Invalid(errors)) => errors
                    .iter()
                    .map(|e| format!("{} {}", e.rule(), e.path()))
                    .collect(),
                Err(other) => vec![other.to_string()],
            },
        }
    };
    assert_eq!(refused(&|_| {}), Vec::<String>::new());
    assert_eq!(
        refused(&|v| v["attack"]["indicators"][0]["tier"] = json!("boundary-breach")),
        ["V-050 attack.indicators[0].tier"]
    );
    assert_eq!(
        refused(&|v| v["attack"]["indicators"][1]["direction"] = json!("requets")),
        ["V-005 attack.indicators[1].direction"]
    );
    assert_eq!(
        refused(&|v| {
            let indicator = v["attack"]["indicators"][0].as_object_mut().unwrap();
            let pattern = indicator.remove("pattern").unwrap();
            indicator.insert("patern".into(), pattern);
        }),
        ["parse attack.indicators[0].patern"]
    );
    assert!(
        refused(&|v| {
            v["attack"].as_object_mut().unwrap().remove("execution");
        })
        .contains(&String::from("V-004 attack.execution"))
    );
    assert_eq!(
        refused(&|v| {
            v["attack"]["execution"]
                .as_object_mut()
                .unwrap()
                .remove("state");
        }),
        ["V-030 attack.execution"]
    );
}
