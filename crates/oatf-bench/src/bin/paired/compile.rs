//! `compile`: compiling the library-style attack, once and per use, against the reference.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use oatf_bench::paired::{Contender, run_paired};
use oatf_bench::{LibraryAttack, MockSemantic, library_attack, union_message};

use crate::options::{Error, Settings};
use crate::ours::{eval_options, load_reference};
use crate::report::{Row, report};

pub(crate) fn measure_compile(settings: &Settings, tier: bool) -> Result<(), Error> {
    let yaml = library_attack(LibraryAttack::new(100, true, tier));
    let document = oatf::load(&yaml)?.document;
    let attack = document.attack.as_ref().ok_or("no attack")?;
    let indicators = attack.indicators.as_deref().unwrap_or_default();
    let options = eval_options();
    let compiled = oatf::CompiledAttack::new(&document, &options);
    let cel: Arc<dyn oatf::eval::CelEvaluator> = Arc::new(oatf::cel::CelEngine::new());
    let semantic: Arc<dyn oatf::eval::SemanticEvaluator> = Arc::new(MockSemantic);
    let reference = load_reference(&yaml)?;
    let reference_indicators = reference.attack.indicators.as_deref().unwrap_or_default();
    let reference_cel = oatf_reference::evaluate::default_cel_evaluator();
    // Every indicator resolves its target in this message and does its whole work (no match).
    let message = union_message();

    let reference_once = || {
        let verdicts: HashMap<String, oatf_reference::IndicatorVerdict> = reference_indicators
            .iter()
            .map(|indicator| {
                let verdict = oatf_reference::evaluate::evaluate_indicator(
                    indicator,
                    black_box(&message),
                    Some(&reference_cel),
                    Some(&MockSemantic),
                );
                (verdict.indicator_id.clone(), verdict)
            })
            .collect();
        let verdict = oatf_reference::evaluate::compute_verdict(&reference.attack, &verdicts);
        u64::from(verdict.result == oatf_reference::enums::AttackResult::NotExploited)
    };
    let ours_one_shot = || {
        let verdicts: Vec<oatf::IndicatorVerdict> = indicators
            .iter()
            .map(|indicator| {
                oatf::evaluate_indicator(
                    indicator,
                    black_box(&message),
                    &oatf::EvalOptions::from_evaluators(Some(cel.clone()), Some(semantic.clone())),
                )
            })
            .collect();
        let verdict = oatf::eval::compute_verdict(attack, &verdicts);
        u64::from(verdict.result == oatf::AttackResult::NotExploited)
    };
    let ours_compiled = || {
        let verdict = compiled.evaluate(black_box(&message));
        u64::from(verdict.result == oatf::AttackResult::NotExploited)
    };
    // The three evaluations agree before they are timed: nothing matches, nothing fails.
    if (reference_once(), ours_one_shot(), ours_compiled()) != (1, 1, 1) {
        return Err("compile: an evaluation of the union message is not `not_exploited`".into());
    }
    let mut contenders = [
        Contender::new("ours_compile", || {
            oatf::CompiledAttack::new(black_box(&document), &options)
                .indicators()
                .count() as u64
        }),
        Contender::new("reference_one_evaluation", reference_once),
        Contender::new("ours_one_shot_evaluation", ours_one_shot),
        Contender::new("ours_compiled_evaluation", ours_compiled),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        "compile: the library-style attack of 100 indicators; evaluations of all 100 against one message carrying every field they read",
        &run,
        &[
            Row {
                label: "compiling 100 indicators vs one reference evaluation",
                numerator: 1,
                denominator: 0,
                target: "≥ 2×",
            },
            Row {
                label: "one-shot evaluate_indicator, reference ÷ ours",
                numerator: 1,
                denominator: 2,
                target: "",
            },
            Row {
                label: "ours one-shot ÷ ours compiled",
                numerator: 2,
                denominator: 3,
                target: "",
            },
        ],
    );
    Ok(())
}
