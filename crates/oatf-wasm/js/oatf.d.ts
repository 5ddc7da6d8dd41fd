// Types of the npm package `oatf` (the Rust oatf SDK compiled to WebAssembly). Verdicts and reports
// have camelCase keys; their values (`not_matched`, `boundary_breach`, …) are the format's.
import type { Diagnostic, Document, Source, ValidationResult } from './common.js';

export type { Diagnostic, Document, Source, ValidationResult } from './common.js';
export { OatfError, describe } from './common.js';

export type IndicatorResult = 'matched' | 'not_matched' | 'error' | 'skipped';
export type AttackResult = 'exploited' | 'not_exploited' | 'partial' | 'error';
export type Tier = 'ingested' | 'local_action' | 'boundary_breach';

export interface IndicatorVerdict {
  indicatorId: string;
  result: IndicatorResult;
  /** Why: what matched, or the error. */
  evidence?: string;
  timestamp?: string;
  source?: string;
  tier?: Tier;
}

export interface EvaluationSummary {
  matched: number;
  notMatched: number;
  error: number;
  skipped: number;
}

/** Something that may make a trace verdict meaningless although it is right (a silent actor, …). */
export interface TraceWarning {
  kind: string;
  /** The older name of `kind`. */
  code?: string;
  indicatorId?: string;
  actor?: string;
  path?: string;
  suggestion?: string;
  message: string;
}

/** The verdict of an attack (SDK §2.19). */
export interface Verdict {
  attackId?: string;
  result: AttackResult;
  maxTier?: Tier;
  indicatorVerdicts: IndicatorVerdict[];
  evaluationSummary: EvaluationSummary;
  timestamp?: string;
  source?: string;
  /** Why the result is `error` when no indicator verdict explains it. */
  diagnostic?: string;
  warnings?: TraceWarning[];
}

/** A malformed trace line: its 1-based number and what is wrong. */
export interface TraceLineError {
  line: number;
  message: string;
}

/** The verdict document of `oatf evaluate --format json`, in camelCase, with the malformed lines. */
export interface VerdictReport extends Verdict {
  trace: {
    file: string;
    lines: number;
    messages: number;
    malformedLines: number;
    afterGracePeriod: number;
    /** Indicator id → the line it matched at. */
    matchedLines: Record<string, number>;
    verdictFromPartialTrace: boolean;
    actorsWithoutMessages: string[];
  };
  warnings: TraceWarning[];
  strict: boolean;
  /** The exit code `oatf evaluate` would end with. */
  exitCode: number;
  /** The first 100 malformed trace lines. */
  traceErrors: TraceLineError[];
}

/** A trace message (docs/trace-format.md), or one JSON line of it. */
export type TraceMessageInput = string | Record<string, unknown>;
/** A trace: JSON Lines text or its UTF-8 bytes, or an array of messages. */
export type TraceInput = string | Uint8Array | TraceMessageInput[];

export interface JudgeInput {
  text: string;
  intent: string;
  intentClass: string | null;
  threshold: number | null;
  examples: unknown;
}

export interface CompileOptions {
  /** Decides semantic indicators: a score between 0.0 and 1.0 (a Promise of one needs the `…Async`
   * evaluations). Without a judge they are `skipped`. */
  judge?: (input: JudgeInput) => number | Promise<number>;
  /** `false`: parse and normalize only, without validation (default `true`). */
  validate?: boolean;
}

/** A compatibility profile (D-100): `'spec-exact'` (the default) or `'thoughtjack-context'`. */
export type Compat = 'spec-exact' | 'thoughtjack-context';

export interface TraceOptions {
  /** The trace's name in the report (`trace.file`); default `<trace>`. */
  name?: string;
  /** Score the trace as ThoughtJack's context mode does (an unknown profile throws `RangeError`). */
  compat?: Compat;
}

/** An indicator verdict produced elsewhere, for `computeVerdict`. */
export interface IndicatorVerdictInput {
  indicatorId: string;
  result: IndicatorResult;
  evidence?: string;
  timestamp?: string;
  source?: string;
  tier?: Tier;
}

/** A trace entry that is not a message. */
export declare class TraceError extends Error {}

/** The SDK version. */
export declare const version: string;

/** Validates a document (SDK §3.2); never throws for a bad document. */
export declare function validate(source: Source): ValidationResult;
/** Parses, validates and normalizes (SDK §3.5). Throws `OatfError`. */
export declare function load(source: Source): Document;
/** `load`, with the warnings. */
export declare function loadWithWarnings(source: Source): { document: Document; warnings: Diagnostic[] };
/** Parses and normalizes without validating (SDK §3.3): canonical YAML. Throws `OatfError`. */
export declare function normalize(source: Source): string;
/** A document object as canonical YAML (SDK §3.4). Throws `OatfError`. */
export declare function serialize(document: Document): string;

export declare class Attack {
  private constructor();
  readonly attackId: string | null;
  readonly indicatorIds: string[];
  /** Evaluates one message's content (not a whole trace line, which throws). */
  evaluateMessage(content: Record<string, unknown> | unknown[] | string): Verdict;
  evaluateMessageAsync(content: Record<string, unknown> | unknown[] | string): Promise<Verdict>;
  computeVerdict(verdicts: IndicatorVerdictInput[]): Verdict;
  evaluateTrace(trace: TraceInput, options?: TraceOptions): VerdictReport;
  evaluateTraceAsync(trace: TraceInput, options?: TraceOptions): Promise<VerdictReport>;
  free(): void;
}

/** Loads and compiles a document. Throws `OatfError`. */
export declare function compile(source: Source, options?: CompileOptions): Attack;

export declare class TraceEvaluator {
  /** `name` is the report's `trace.file` (`<push>` without one). */
  constructor(attack: Attack, options?: { compat?: Compat; name?: string });
  push(message: TraceMessageInput): void;
  /** The next piece of a JSON Lines trace (text or UTF-8 bytes): its whole lines are evaluated, a line
   * may go on in the next piece; malformed lines are counted and reported, not thrown. */
  pushLines(piece: string | Uint8Array): void;
  readonly messages: number;
  readonly matchedCount: number;
  finish(): VerdictReport;
}
