//! Compiled attacks, trace evaluation and the JavaScript semantic judge.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::rc::Rc;
use std::sync::Arc;

use oatf::CompiledAttack;
use oatf::EvaluationError;
use oatf::EvaluationErrorKind;
use oatf::JsonlTraceReader;
use oatf::TraceMessage;
use oatf::eval::SemanticEvaluator;
use oatf::model::Finding;
use oatf::report::TraceRun;
use oatf::trace::Compat;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::diagnostics::failure;

thread_local! {
    /// The JavaScript judges of compiled attacks, by index. A `js_sys::Function` is neither `Send` nor
    /// `Sync`, which `SemanticEvaluator` requires; the evaluator holds the index instead, and a
    /// WebAssembly instance has a single thread.
    static JUDGES: RefCell<Vec<Option<js_sys::Function>>> = const { RefCell::new(Vec::new()) };
    /// How judges are asked now (D-142): called, or answered from the outcomes of async calls.
    static JUDGING: RefCell<Judging> = const { RefCell::new(Judging::Call) };
}

/// How a [`JsJudge`] answers (D-142). The async API evaluates twice: once recording every question
/// (each scored below any threshold, so that every message reaches every semantic indicator, as the
/// synchronous first-match evaluation could), then, once JavaScript has awaited the judge on each,
/// answering from the outcomes, so both evaluations decide with the same rules.
enum Judging {
    /// Call the function and take its result (a Promise is refused: that needs the async API).
    Call,
    /// Record each question (the judge's argument as JSON), answer `-inf`.
    Record(Vec<String>),
    /// Answer from the outcomes of the recorded questions.
    Answer(HashMap<String, Outcome>),
}

/// What one call of a judge gave: a value, or what it threw.
enum Outcome {
    Returned(JsValue),
    Threw(JsValue),
}

/// Starts recording the judges' questions (`evaluate…Async`, first pass).
#[wasm_bindgen(js_name = judgeRecord)]
pub fn judge_record() {
    JUDGING.with(|j| *j.borrow_mut() = Judging::Record(Vec::new()));
}

/// The questions recorded since [`judge_record`], distinct, as a JSON array of the judge's arguments
/// (each as JSON text); judges are called again from now on.
#[wasm_bindgen(js_name = judgeQuestionsJson)]
pub fn judge_questions_json() -> String {
    let recorded = JUDGING.with(|j| std::mem::replace(&mut *j.borrow_mut(), Judging::Call));
    let mut questions = match recorded {
        Judging::Record(questions) => questions,
        _ => Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    questions.retain(|q| seen.insert(q.clone()));
    json!(questions).to_string()
}

/// Answers the judges from now on with the outcomes of the questions (a JSON array of arguments as
/// [`judge_questions_json`] gave it): `outcomes[i]` is `{ value }` (what the awaited call returned)
/// or `{ threw }`. [`judge_call`] ends it.
#[wasm_bindgen(js_name = judgeAnswer)]
pub fn judge_answer(questions_json: &str, outcomes: js_sys::Array) -> bool {
    let Ok(questions) = serde_json::from_str::<Vec<String>>(questions_json) else {
        return false;
    };
    if questions.len() != outcomes.length() as usize {
        return false;
    }
    let value = JsValue::from_str("value");
    let threw = JsValue::from_str("threw");
    let answers = questions
        .into_iter()
        .zip(outcomes.iter())
        .map(|(question, outcome)| {
            let outcome = if js_sys::Reflect::has(&outcome, &threw).unwrap_or(false) {
                Outcome::Threw(js_sys::Reflect::get(&outcome, &threw).unwrap_or(JsValue::UNDEFINED))
            } else {
                Outcome::Returned(
                    js_sys::Reflect::get(&outcome, &value).unwrap_or(JsValue::UNDEFINED),
                )
            };
            (question, outcome)
        })
        .collect();
    JUDGING.with(|j| *j.borrow_mut() = Judging::Answer(answers));
    true
}

/// Judges are called again (the end of an async evaluation, whatever happened).
#[wasm_bindgen(js_name = judgeCall)]
pub fn judge_call() {
    JUDGING.with(|j| *j.borrow_mut() = Judging::Call);
}

/// A semantic evaluator calling a JavaScript function:
/// `judge({ text, intent, intentClass, threshold, examples })` returns a score between 0.0 and 1.0
/// (or, through the async API, a Promise of one).
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

fn judge_failed(message: String) -> EvaluationError {
    EvaluationError::new(EvaluationErrorKind::SemanticError, message)
}

/// The score of one call's outcome, or why it is not one; the one rule of both APIs.
fn score_of(outcome: Outcome) -> Result<f64, EvaluationError> {
    let score = match outcome {
        Outcome::Threw(error) => {
            let message = error
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .or_else(|| error.as_string())
                .unwrap_or_else(|| "a value that is not an Error".to_owned());
            return Err(judge_failed(format!("the semantic judge threw: {message}")));
        }
        Outcome::Returned(score) => score,
    };
    if score.is_instance_of::<js_sys::Promise>() {
        return Err(judge_failed(
            "the semantic judge returned a Promise: an async judge needs evaluateMessageAsync or \
             evaluateTraceAsync"
                .to_owned(),
        ));
    }
    match score.as_f64() {
        // The range is the evaluator's rule (oatf-eval, D-250), not the binding's.
        Some(score) => Ok(score),
        None => Err(judge_failed(format!(
            "the semantic judge returned {}, not a number",
            kind_of(&score)
        ))),
    }
}

/// What a value is, for a message (`typeof`, with `null` told apart).
fn kind_of(value: &JsValue) -> &'static str {
    if value.is_null() {
        return "null";
    }
    match value.js_typeof().as_string().unwrap_or_default().as_str() {
        "string" => "a string",
        "boolean" => "a boolean",
        "undefined" => "undefined",
        "object" => "an object",
        "bigint" => "a bigint",
        "symbol" => "a symbol",
        "function" => "a function",
        _ => "something",
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
        let examples = examples
            .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
            .unwrap_or(Value::Null);
        let argument = json!({
            "text": text, "intent": intent, "intentClass": intent_class.map(|c| c.as_str()),
            "threshold": threshold, "examples": examples,
        })
        .to_string();
        let answered = JUDGING.with(|judging| match &mut *judging.borrow_mut() {
            Judging::Call => None,
            Judging::Record(questions) => {
                questions.push(argument.clone());
                Some(Ok(f64::NEG_INFINITY))
            }
            Judging::Answer(answers) => Some(match answers.remove(&argument) {
                Some(outcome) => score_of(outcome),
                None => Err(judge_failed(
                    "the semantic judge was not asked this question (the async evaluation changed)"
                        .to_owned(),
                )),
            }),
        });
        if let Some(answer) = answered {
            return answer;
        }
        let judge = JUDGES
            .with(|judges| judges.borrow().get(self.index).cloned().flatten())
            .ok_or_else(|| judge_failed("the semantic judge was released".to_owned()))?;
        let argument = js_sys::JSON::parse(&argument)
            .map_err(|_| judge_failed("the judge's argument could not be built".to_owned()))?;
        score_of(match judge.call1(&JsValue::NULL, &argument) {
            Ok(score) => Outcome::Returned(score),
            Err(error) => Outcome::Threw(error),
        })
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
            crate::document::load(text).map(|loaded| loaded.document)
        } else {
            oatf::parse(text).map_err(|errors| errors.iter().map(Finding::from).collect())
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

    /// Evaluates every indicator against one message's content (given as JSON; SDK §4.1) and returns
    /// the verdict (`AttackVerdict`) as JSON, or throws a message when the argument is not JSON or is
    /// a whole trace line (D-143, the rule of the Python binding's D-135).
    #[wasm_bindgen(js_name = evaluateMessageJson)]
    pub fn evaluate_message_json(&self, message: &str) -> Result<String, JsValue> {
        let message: Value = serde_json::from_str(message).map_err(|e| {
            JsValue::from_str(&format!(
                "the message is {}",
                oatf::trace::describe_json_error(&e)
            ))
        })?;
        if oatf::trace::looks_like_trace_line(&message) {
            return Err(JsValue::from_str(
                "evaluateMessage takes a message's content, and this is a whole trace line (it has \
                 `direction` and `content`): pass message.content to evaluate the content without the \
                 trace filters, or use evaluateTrace([message]) to apply them (protocol, surface, \
                 actor, direction)",
            ));
        }
        let verdict = self.attack.evaluate(&message);
        Ok(serde_json::to_value(&verdict)
            .unwrap_or(Value::Null)
            .to_string())
    }

    /// Evaluates a whole JSON Lines trace (format §6), given as its UTF-8 bytes, as `oatf evaluate
    /// --format json` does, in the compatibility profile `compat` (D-100; the default without one),
    /// and returns `{ report, traceErrors }` as JSON: the CLI's verdict document and the first
    /// malformed lines. A line that is not UTF-8 is a malformed line, as in a file. Throws a message
    /// for an unknown profile.
    ///
    /// The bytes stay in JavaScript's memory and are read a chunk at a time (D-201): one copy of
    /// each byte into the module, one call across the boundary per chunk, and the module's memory
    /// does not grow with the trace.
    #[wasm_bindgen(js_name = evaluateTraceBytesJson)]
    pub fn evaluate_trace_bytes_json(
        &self,
        jsonl: js_sys::Uint8Array,
        name: &str,
        compat: Option<String>,
    ) -> Result<String, JsValue> {
        let compat = compat_of(compat.as_deref())?;
        let source = JsBytes {
            length: jsonl.length(),
            bytes: jsonl,
            position: 0,
        };
        let mut reader = JsonlTraceReader::new(BufReader::with_capacity(CHUNK_BYTES, source));
        let mut run = TraceRun::with_compat(&self.attack, name, compat);
        read_lines(&mut run, &mut reader);
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

/// How many bytes of a trace held by JavaScript are copied into the module at a time (D-201).
const CHUNK_BYTES: usize = 1 << 20;

/// Reads `reader` to its end into `run` (`TraceRun::read_to_end`), one line per call of
/// [`read_line`] (D-290). V8 runs a WebAssembly function first as its baseline compiler's code and
/// swaps in the optimized code only for the function's next call (it has no on-stack replacement
/// for WebAssembly): a loop over the whole trace inlined into one call ran in baseline code to the
/// end of a process's first evaluation, where a function called once a line is optimized after
/// the first lines. Reading JavaScript's bytes cannot fail: the run ends at their end either way.
fn read_lines<R: BufRead>(run: &mut TraceRun<'_>, reader: &mut JsonlTraceReader<R>) {
    while read_line(run, reader) {}
}

/// Reads the next line of `reader` into `run`: `false` at the end (or after an I/O error).
#[inline(never)]
fn read_line<R: BufRead>(run: &mut TraceRun<'_>, reader: &mut JsonlTraceReader<R>) -> bool {
    matches!(run.read_next(reader), Some(Ok(_)))
}

/// A `Uint8Array` of JavaScript read from start to end: each `read` copies the next bytes into
/// the module's memory with one call (`TypedArray.prototype.set`).
struct JsBytes {
    bytes: js_sys::Uint8Array,
    /// The array's length, read once.
    length: u32,
    /// How many bytes were read.
    position: u32,
}

impl Read for JsBytes {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let left = self.length.saturating_sub(self.position);
        let count = u32::try_from(buffer.len()).unwrap_or(u32::MAX).min(left);
        let end = self.position + count;
        if let Some(into) = buffer.get_mut(..count as usize)
            && count > 0
        {
            // `copy_to` needs a destination exactly as long as the source: both are `count`.
            self.bytes.subarray(self.position, end).copy_to(into);
        }
        self.position = end;
        Ok(count as usize)
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

/// Evaluates a trace one message at a time: `push(message)` each, or the trace's JSON Lines a
/// piece at a time (`pushLines(bytes)`), then `finish()`.
#[wasm_bindgen]
pub struct WasmTraceEvaluator {
    run: LiveRun,
    /// Entries (messages pushed, lines read) so far: the line number of the last one.
    position: u64,
    /// `pushLines`'s buffer: its first `filled` bytes are the start of a line whose end has not
    /// come yet (at most one line's length limit and a byte: a line longer than the limit is an
    /// error whatever follows); the next piece is copied after them. It keeps its length, so that
    /// a piece is copied into it without clearing the bytes first.
    partial: Vec<u8>,
    filled: usize,
}

#[wasm_bindgen]
impl WasmTraceEvaluator {
    /// A streaming evaluation of `attack` in the compatibility profile `compat` (D-100; the
    /// default without one), of the trace the report calls `name` (`<push>` without one). Throws a
    /// message for an unknown profile.
    #[wasm_bindgen(constructor)]
    pub fn new(
        attack: &WasmAttack,
        compat: Option<String>,
        name: Option<String>,
    ) -> Result<WasmTraceEvaluator, JsValue> {
        let compat = compat_of(compat.as_deref())?;
        let name = name.unwrap_or_else(|| "<push>".to_owned());
        Ok(WasmTraceEvaluator {
            run: LiveRun::new(Rc::clone(&attack.attack), |attack| {
                Some(TraceRun::with_compat(attack, name, compat))
            }),
            position: 0,
            partial: Vec::new(),
            filled: 0,
        })
    }

    /// Evaluates one message (a JSON line of the trace format). A malformed message is counted and
    /// its description thrown; evaluation goes on with the next one. Throws an `Error` while the
    /// last piece given to `pushLines` ended inside a line.
    pub fn push(&mut self, message: &str) -> Result<(), JsValue> {
        if self.filled > 0 {
            return Err(js_sys::Error::new(
                "push: the last piece given to pushLines ended inside a line; give the rest of \
                 that line first",
            )
            .into());
        }
        self.position += 1;
        let position = self.position;
        let parsed = TraceMessage::from_json(message).map_err(|e| format!("entry {position}: {e}"));
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

    /// Evaluates the whole lines of `piece`, the next bytes of a JSON Lines trace (D-291), as
    /// `evaluateTraceBytesJson` reads a trace: a line may end in a later piece; malformed lines
    /// are counted and kept for the report, not thrown. The piece stays in JavaScript's memory and
    /// is copied into the module a MiB at a time. Throws a message once `finish()` was called.
    #[wasm_bindgen(js_name = pushLines)]
    pub fn push_lines(&mut self, piece: js_sys::Uint8Array) -> Result<(), JsValue> {
        if self.run.borrow_dependent().is_none() {
            return Err(JsValue::from_str("finish() was already called"));
        }
        let length = piece.length();
        let mut from = 0;
        while from < length {
            let to = length.min(from.saturating_add(CHUNK_BYTES as u32));
            let start = self.filled;
            self.filled = start + (to - from) as usize;
            if self.partial.len() < self.filled {
                self.partial.resize(self.filled, 0);
            }
            if let Some(into) = self.partial.get_mut(start..self.filled) {
                // `copy_to` needs a destination exactly as long as the source: both are `to - from`.
                piece.subarray(from, to).copy_to(into);
            }
            from = to;
            let ends = self
                .partial
                .get(start..self.filled)
                .and_then(|added| added.iter().rposition(|&b| b == b'\n'));
            match ends {
                Some(end) => {
                    let end = start + end + 1;
                    self.read_partial(end);
                    self.partial.copy_within(end..self.filled, 0);
                    self.filled -= end;
                }
                // Still inside one line: keep no more of it than makes it too long.
                None => {
                    self.filled = self
                        .filled
                        .min(oatf::trace::DEFAULT_MAX_LINE_LEN.saturating_add(1));
                }
            }
        }
        Ok(())
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

    /// `{ report, traceErrors }` of the messages pushed (the last line given to `pushLines`
    /// included, newline or not), as JSON; the evaluator cannot be used afterwards.
    #[wasm_bindgen(js_name = finishJson)]
    pub fn finish_json(&mut self) -> Result<String, JsValue> {
        self.read_partial(self.filled);
        self.partial = Vec::new();
        self.filled = 0;
        self.run
            .with_dependent_mut(|_, run| run.take().map(finish))
            .ok_or_else(|| JsValue::from_str("finish() was already called"))
    }
}

impl WasmTraceEvaluator {
    /// Reads the first `end` bytes of `partial` (whole lines, or the last line of the trace) into
    /// the run, numbering its lines on from the entries before.
    fn read_partial(&mut self, end: usize) {
        let Some(lines) = self.partial.get(..end).filter(|lines| !lines.is_empty()) else {
            return;
        };
        let position = self.position;
        let read = self.run.with_dependent_mut(|_, run| {
            run.as_mut().map(|run| {
                let mut reader = JsonlTraceReader::new(lines).after_lines(position);
                read_lines(run, &mut reader);
                reader.lines_read()
            })
        });
        self.position = read.unwrap_or(position);
    }
}
