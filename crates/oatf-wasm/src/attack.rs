//! Compiled attacks, trace evaluation and the JavaScript semantic judge.

use std::cell::RefCell;
use std::io::Cursor;
use std::rc::Rc;
use std::sync::Arc;

use oatf::Compat;
use oatf::CompiledAttack;
use oatf::EvaluationError;
use oatf::EvaluationErrorKind;
use oatf::JsonlTraceReader;
use oatf::SemanticEvaluator;
use oatf::TraceMessage;
use oatf::report::TraceRun;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::diagnostics::failure;

thread_local! {
    /// The JavaScript judges of compiled attacks, by index. A `js_sys::Function` is neither `Send` nor
    /// `Sync`, which `SemanticEvaluator` requires; the evaluator holds the index instead, and a
    /// WebAssembly instance has a single thread.
    static JUDGES: RefCell<Vec<Option<js_sys::Function>>> = const { RefCell::new(Vec::new()) };
}

/// A semantic evaluator calling a JavaScript function:
/// `judge({ text, intent, intentClass, threshold, examples })` returns a score between 0.0 and 1.0.
struct JsJudge {
    index: usize,
}

impl JsJudge {
    /// Keeps `judge` until the returned evaluator (held by the compiled attack) is dropped.
    fn register(judge: js_sys::Function) -> Self {
        let index = JUDGES.with(|judges| {
            let mut judges = judges.borrow_mut();
            match judges.iter().position(Option::is_none) {
                Some(free) => {
                    judges[free] = Some(judge);
                    free
                }
                None => {
                    judges.push(Some(judge));
                    judges.len() - 1
                }
            }
        });
        JsJudge { index }
    }
}

/// The compiled attack (and every trace evaluator sharing it) is gone: release the function.
impl Drop for JsJudge {
    fn drop(&mut self) {
        JUDGES.with(|judges| {
            if let Some(slot) = judges.borrow_mut().get_mut(self.index) {
                *slot = None;
            }
        });
    }
}

impl SemanticEvaluator for JsJudge {
    fn evaluate(
        &self,
        text: &str,
        intent: &str,
        intent_class: Option<oatf::model::SemanticIntentClass>,
        threshold: Option<f64>,
        examples: Option<&oatf::model::SemanticExamples>,
    ) -> Result<f64, EvaluationError> {
        let failed =
            |message: String| EvaluationError::new(EvaluationErrorKind::SemanticError, message);
        let judge = JUDGES
            .with(|judges| judges.borrow().get(self.index).cloned().flatten())
            .ok_or_else(|| failed("the semantic judge was released".to_owned()))?;
        let examples = examples
            .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
            .unwrap_or(Value::Null);
        let argument = json!({
            "text": text, "intent": intent, "intentClass": intent_class.map(|c| c.as_str()),
            "threshold": threshold, "examples": examples,
        });
        let argument = js_sys::JSON::parse(&argument.to_string())
            .map_err(|_| failed("the judge's argument could not be built".to_owned()))?;
        let score = judge.call1(&JsValue::NULL, &argument).map_err(|e| {
            failed(format!(
                "the semantic judge threw: {}",
                js_sys::Error::from(e).message()
            ))
        })?;
        match score.as_f64() {
            Some(score) if (0.0..=1.0).contains(&score) => Ok(score),
            Some(score) => Err(failed(format!(
                "the semantic judge returned {score}, not a score between 0.0 and 1.0"
            ))),
            None => Err(failed(
                "the semantic judge returned something that is not a number".to_owned(),
            )),
        }
    }
}

/// An attack compiled for evaluation (regexes, paths and CEL programs compiled once).
#[wasm_bindgen]
pub struct WasmAttack {
    attack: Rc<CompiledAttack>,
}

#[wasm_bindgen]
impl WasmAttack {
    /// Loads and compiles `text`; `judge`, when given, decides semantic indicators. Without
    /// `validate` the document is only parsed (compiling normalizes it), as the conformance runner
    /// does for bare indicators. Throws the JSON `{ ok: false, errors }` when the document does not
    /// load.
    #[wasm_bindgen(constructor)]
    pub fn new(
        text: &str,
        judge: Option<js_sys::Function>,
        validate: bool,
    ) -> Result<WasmAttack, JsValue> {
        let document = if validate {
            crate::load(text).map(|loaded| loaded.document)
        } else {
            oatf::parse(text).map_err(|errors| {
                errors
                    .iter()
                    .map(crate::diagnostics::Diagnostic::from_parse)
                    .collect()
            })
        }
        .map_err(|errors| JsValue::from_str(&failure(&errors)))?;
        let mut options = oatf::default_eval_options();
        if let Some(judge) = judge {
            options = options.with_semantic_evaluator(Arc::new(JsJudge::register(judge)));
        }
        Ok(WasmAttack {
            attack: Rc::new(CompiledAttack::new(&document, &options)),
        })
    }

    /// The attack's id, when the document has one.
    #[wasm_bindgen(getter, js_name = attackId)]
    pub fn attack_id(&self) -> Option<String> {
        self.attack.attack_id().map(str::to_owned)
    }

    /// The ids of the indicators, in declaration order, as a JSON array.
    #[wasm_bindgen(js_name = indicatorIdsJson)]
    pub fn indicator_ids_json(&self) -> String {
        let ids: Vec<&str> = self
            .attack
            .indicators()
            .map(|i| i.id())
            .chain(self.attack.compile_errors().map(|(id, _)| id))
            .collect();
        json!(ids).to_string()
    }

    /// Evaluates every indicator against one message (given as JSON; SDK §4.1) and returns the
    /// verdict (`AttackVerdict`) as JSON, or throws a message when the argument is not JSON.
    #[wasm_bindgen(js_name = evaluateMessageJson)]
    pub fn evaluate_message_json(&self, message: &str) -> Result<String, JsValue> {
        let message: Value = serde_json::from_str(message)
            .map_err(|e| JsValue::from_str(&format!("the message is not JSON: {e}")))?;
        let verdict = self.attack.evaluate(&message);
        Ok(serde_json::to_value(&verdict)
            .unwrap_or(Value::Null)
            .to_string())
    }

    /// Evaluates a whole JSON Lines trace (format §6) as `oatf evaluate --format json` does, in the
    /// compatibility profile `compat` (D-100; the default without one), and returns
    /// `{ report, traceErrors }` as JSON: the CLI's verdict document and the first malformed lines.
    /// Throws a message for an unknown profile.
    #[wasm_bindgen(js_name = evaluateTraceJson)]
    pub fn evaluate_trace_json(
        &self,
        jsonl: &str,
        name: &str,
        compat: Option<String>,
    ) -> Result<String, JsValue> {
        let compat = compat_of(compat.as_deref())?;
        let mut reader = JsonlTraceReader::new(Cursor::new(jsonl.as_bytes()));
        let mut run = TraceRun::with_compat(&self.attack, name, compat);
        // Reading a string cannot fail: the run ends at the end of the text either way.
        let _ = run.read_to_end(&mut reader);
        Ok(finish(run))
    }

    /// Computes the attack verdict (SDK §4.5) from indicator verdicts given as a JSON array of
    /// `{ indicator_id, result, evidence?, timestamp? }`; a declared indicator without one is
    /// `skipped`. Returns the verdict as JSON, or throws a message naming the bad entry.
    #[wasm_bindgen(js_name = computeVerdictJson)]
    pub fn compute_verdict_json(&self, verdicts: &str) -> Result<String, JsValue> {
        let verdicts: Vec<oatf::IndicatorVerdict> = serde_json::from_str(verdicts)
            .map_err(|e| JsValue::from_str(&format!("indicator verdicts: {e}")))?;
        let verdict = self.attack.compute_verdict(&verdicts);
        Ok(serde_json::to_value(&verdict)
            .unwrap_or(Value::Null)
            .to_string())
    }
}

/// The compatibility profile named `name` (D-100), the default without one; an unknown name is a
/// message listing the known ones.
fn compat_of(name: Option<&str>) -> Result<Compat, JsValue> {
    name.map_or(Ok(Compat::default()), |name| {
        name.parse()
            .map_err(|e: oatf::trace::UnknownCompat| JsValue::from_str(&e.to_string()))
    })
}

/// `{ report, traceErrors }` of a run, as JSON: the CLI's verdict document and the first malformed
/// entries.
fn finish(run: TraceRun<'_>) -> String {
    let done = run.finish();
    let errors: Vec<Value> = done
        .malformed
        .iter()
        .map(|entry| json!({ "line": entry.line, "message": entry.message }))
        .collect();
    json!({ "report": done.json_document(), "traceErrors": errors }).to_string()
}

type LiveRunState<'a> = Option<TraceRun<'a>>;

self_cell::self_cell!(
    /// A run that owns the attack it borrows.
    struct LiveRun {
        owner: Rc<CompiledAttack>,
        #[covariant]
        dependent: LiveRunState,
    }
);

/// Evaluates a trace one message at a time: `push(message)` each, then `finish()`.
#[wasm_bindgen]
pub struct WasmTraceEvaluator {
    run: LiveRun,
    position: u64,
}

#[wasm_bindgen]
impl WasmTraceEvaluator {
    /// A streaming evaluation of `attack` in the compatibility profile `compat` (D-100; the
    /// default without one). Throws a message for an unknown profile.
    #[wasm_bindgen(constructor)]
    pub fn new(attack: &WasmAttack, compat: Option<String>) -> Result<WasmTraceEvaluator, JsValue> {
        let compat = compat_of(compat.as_deref())?;
        Ok(WasmTraceEvaluator {
            run: LiveRun::new(Rc::clone(&attack.attack), |attack| {
                Some(TraceRun::with_compat(attack, "<push>", compat))
            }),
            position: 0,
        })
    }

    /// Evaluates one message (a JSON line of the trace format). A malformed message is counted and
    /// its description thrown; evaluation goes on with the next one.
    pub fn push(&mut self, message: &str) -> Result<(), JsValue> {
        self.position += 1;
        let position = self.position;
        let parsed = serde_json::from_str::<TraceMessage>(message)
            .map_err(|e| format!("entry {position}: not a trace message: {e}"));
        self.run.with_dependent_mut(|_, run| match run {
            None => Err(JsValue::from_str("finish() was already called")),
            Some(run) => match parsed {
                Ok(message) => {
                    run.push(&message, position);
                    Ok(())
                }
                Err(error) => {
                    run.push_malformed(position, error.clone());
                    Err(JsValue::from_str(&error))
                }
            },
        })
    }

    /// How many messages were evaluated.
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> f64 {
        self.run
            .borrow_dependent()
            .as_ref()
            .map_or(0, |run| run.evaluator().messages()) as f64
    }

    /// How many indicators have matched so far.
    #[wasm_bindgen(getter, js_name = matchedCount)]
    pub fn matched_count(&self) -> usize {
        self.run
            .borrow_dependent()
            .as_ref()
            .map_or(0, |run| run.evaluator().matched_count())
    }

    /// `{ report, traceErrors }` of the messages pushed, as JSON; the evaluator cannot be used
    /// afterwards.
    #[wasm_bindgen(js_name = finishJson)]
    pub fn finish_json(&mut self) -> Result<String, JsValue> {
        self.run
            .with_dependent_mut(|_, run| run.take().map(finish))
            .ok_or_else(|| JsValue::from_str("finish() was already called"))
    }
}
