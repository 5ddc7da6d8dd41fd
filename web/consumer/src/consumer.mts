// Every export of both entries, used as a TypeScript consumer would (types.mjs checks it with
// `tsc --strict --noEmit`, resolving the package through its `exports` `types` conditions).
import {
  Attack,
  OatfError,
  TraceError,
  TraceEvaluator,
  compile,
  describe,
  load,
  loadWithWarnings,
  normalize,
  serialize,
  validate,
  version,
  type CompileOptions,
  type Compat,
  type Diagnostic,
  type Document,
  type IndicatorVerdict,
  type IndicatorVerdictInput,
  type JudgeInput,
  type TraceLineError,
  type TraceWarning,
  type ValidationResult,
  type Verdict,
  type VerdictReport,
} from 'oatf';
import * as inline from 'oatf/inline';
import * as validation from 'oatf/validate';
import * as validationInline from 'oatf/validate/inline';

declare const yaml: string;
declare const bytes: Uint8Array;

const result: ValidationResult = validate(yaml);
const first: Diagnostic | undefined = result.errors[0];
const line: number | null = first ? first.line : null;
const text: string = first ? describe(first) : '';
const document: Document = load(bytes);
const { warnings }: { document: Document; warnings: Diagnostic[] } = loadWithWarnings(yaml);
const canonical: string = normalize(yaml) + serialize(document);
const sdk: string = version + inline.version;

const judge = async ({ text: said, intent }: JudgeInput): Promise<number> => (said.includes(intent) ? 1 : 0);
const options: CompileOptions = { judge, validate: true };
const attack: Attack = compile(yaml, options);
const ids: string[] = attack.indicatorIds;
const id: string | null = attack.attackId;
const verdict: Verdict = attack.evaluateMessage({ arguments: { path: '~/.ssh/id_rsa' } });
const indicators: IndicatorVerdict[] = verdict.indicatorVerdicts;
const notMatched: number = verdict.evaluationSummary.notMatched;
const input: IndicatorVerdictInput[] = [{ indicatorId: ids[0] ?? 'x', result: 'matched', evidence: 'mine' }];
const computed: Verdict = attack.computeVerdict(input);
const compat: Compat = 'thoughtjack-context';
const report: VerdictReport = attack.evaluateTrace('{}\n', { name: 'trace.jsonl', compat });
const lines: TraceLineError[] = report.traceErrors;
const exit: number = report.exitCode;
const matched: Record<string, number> = report.trace.matchedLines;
const traceWarnings: TraceWarning[] = report.warnings;
const evaluator = new TraceEvaluator(attack, { compat: 'spec-exact', name: 'live' });
evaluator.push({ direction: 'incoming', content: {} });
evaluator.pushLines('{"direction": "incoming", "content": {}}\n');
evaluator.pushLines(new TextEncoder().encode('{"direction": "incoming", "content": {}}\n'));
const pushed: VerdictReport = evaluator.finish();
const counts: number = evaluator.messages + evaluator.matchedCount;
attack.free();

async function later(): Promise<void> {
  const asyncVerdict: Verdict = await attack.evaluateMessageAsync({});
  const asyncReport: VerdictReport = await attack.evaluateTraceAsync([{ direction: 'incoming', content: {} }]);
  const checked: ValidationResult = await validation.validate(yaml);
  const now: ValidationResult = validation.validateSync(yaml) ?? validationInline.validateSync(yaml);
  const loaded: Document = await validation.load(yaml);
  const loadedNow: Document = validation.loadSync(bytes);
  const withWarnings = await validation.loadWithWarnings(yaml);
  await validation.loadSyntaxChecks();
  const ready: boolean = validation.syntaxChecksLoaded();
  await validation.loadNormalizer();
  const normalizerReady: boolean = validation.normalizerLoaded();
  const yamlText: string = validation.normalize(yaml) + validation.serialize(loaded) + validation.describe(checked.errors[0]!);
  try {
    inline.compile(yaml);
  } catch (e) {
    if (e instanceof OatfError || e instanceof validation.OatfError) console.log(e.errors.length, e.rule, e.path, e.line, e.column);
    if (e instanceof TraceError) console.log(e.message);
  }
  console.log(asyncVerdict, asyncReport, now, loadedNow, withWarnings.warnings, ready, normalizerReady, yamlText, validation.version);
}

console.log(result, line, text, warnings, canonical, sdk, id, indicators, notMatched, computed, lines, exit, matched, traceWarnings, pushed, counts, later);
