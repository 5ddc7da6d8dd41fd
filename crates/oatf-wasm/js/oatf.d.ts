// Types of the npm package `oatf` (the Rust oatf SDK compiled to WebAssembly).

/** One finding: a parse error, a validation error (`V-…`) or a warning (`W-…`). */
export interface Diagnostic {
  /** The rule (`V-020`, `W-001`, …), when the finding has one. */
  rule: string | null;
  /** The dot-path of the offending field, when there is one. */
  path: string | null;
  /** 1-based line in the YAML source. */
  line: number | null;
  /** 1-based column (in characters) in the YAML source. */
  column: number | null;
  /** What is wrong. */
  message: string;
  /** `parse` (the YAML could not be read as a document), `validation` or `warning`. */
  kind: 'parse' | 'validation' | 'warning';
  /** `error` or `warning`. */
  severity: 'error' | 'warning';
}

export interface ValidationResult {
  /** No errors (warnings allowed). */
  valid: boolean;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

/** A normalized OATF document as plain data (SDK §2). */
export type Document = { oatf: string; attack: Record<string, unknown> } & Record<string, unknown>;

export type IndicatorResult = 'matched' | 'not_matched' | 'error' | 'skipped';
export type AttackResult = 'exploited' | 'not_exploited' | 'partial' | 'error';
export type Tier = 'ingested' | 'local_action' | 'boundary_breach';

export interface IndicatorVerdict {
  indicator_id: string;
  result: IndicatorResult;
  evidence?: string;
  timestamp?: string;
  [key: string]: unknown;
}

export interface EvaluationSummary {
  matched: number;
  not_matched: number;
  error: number;
  skipped: number;
}

/** The verdict of an attack against one message (SDK §2.19). */
export interface Verdict {
  attack_id?: string;
  result: AttackResult;
  max_tier?: Tier;
  indicator_verdicts: IndicatorVerdict[];
  evaluation_summary: EvaluationSummary;
  timestamp?: string;
  diagnostic?: string;
  [key: string]: unknown;
}

/** The verdict document of `oatf evaluate --format json`. */
export interface VerdictReport extends Verdict {
  trace: {
    file: string;
    lines: number;
    messages: number;
    malformed_lines: number;
    after_grace_period: number;
    matched_lines: Record<string, number>;
    verdict_from_partial_trace: boolean;
    actors_without_messages: string[];
  };
  warnings: Array<Record<string, unknown>>;
  /** The first 100 malformed trace lines (not enumerable: not part of the CLI's document). */
  readonly traceErrors: Array<{ line: number; message: string }>;
}

/** A trace message (docs/trace-format.md), or one JSON line of it. */
export type TraceMessageInput = string | Record<string, unknown>;

export interface JudgeInput {
  text: string;
  intent: string;
  intentClass: string | null;
  threshold: number | null;
  examples: unknown;
}

export interface CompileOptions {
  /** Decides semantic indicators: a score between 0.0 and 1.0. Without a judge they are `skipped`. */
  judge?: (input: JudgeInput) => number;
  /** `false`: parse and normalize only, without validation (default `true`). */
  validate?: boolean;
}

/** A document that does not load: every diagnostic, and the first one's fields. */
export declare class OatfError extends Error {
  readonly errors: Diagnostic[];
  readonly rule: string | null;
  readonly path: string | null;
  readonly line: number | null;
  readonly column: number | null;
}

/** A trace entry that is not a message. */
export declare class TraceError extends Error {}

/** The SDK version. */
export declare const version: string;

/** Validates a document (SDK §3.2); never throws for a bad document. */
export declare function validate(source: string | Uint8Array): ValidationResult;
/** Parses, validates and normalizes (SDK §3.5). Throws `OatfError`. */
export declare function load(source: string | Uint8Array): Document;
/** `load`, with the warnings. */
export declare function loadWithWarnings(source: string | Uint8Array): { document: Document; warnings: Diagnostic[] };
/** Parses and normalizes without validating (SDK §3.3): canonical YAML. Throws `OatfError`. */
export declare function normalize(source: string | Uint8Array): string;
/** A document object as canonical YAML (SDK §3.4). Throws `OatfError`. */
export declare function serialize(document: Document): string;
/** One diagnostic as a line of text. */
export declare function describe(diagnostic: Diagnostic): string;

export declare class Attack {
  private constructor();
  readonly attackId: string | null;
  readonly indicatorIds: string[];
  evaluateMessage(message: Record<string, unknown> | string): Verdict;
  computeVerdict(verdicts: Array<Partial<IndicatorVerdict> & { indicator_id: string; result: IndicatorResult }>): Verdict;
  evaluateTrace(jsonl: string | Uint8Array, options?: { name?: string; compat?: Compat }): VerdictReport;
  free(): void;
}

/** Loads and compiles a document. Throws `OatfError`. */
export declare function compile(source: string | Uint8Array, options?: CompileOptions): Attack;

/** A compatibility profile (D-100): `'spec-exact'` (the default) or `'thoughtjack-context'`. */
export type Compat = 'spec-exact' | 'thoughtjack-context';

export declare class TraceEvaluator {
  constructor(attack: Attack, options?: { compat?: Compat });
  push(message: TraceMessageInput): void;
  readonly messages: number;
  readonly matchedCount: number;
  finish(): VerdictReport;
}
