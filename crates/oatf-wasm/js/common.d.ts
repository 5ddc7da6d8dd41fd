// Types shared by both entries of the npm package `oatf` (`oatf` and `oatf/validate`).

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

/** A normalized OATF document as plain data (SDK §2; its keys are the format's own, snake_case). */
export type Document = { oatf: string; attack: Record<string, unknown> } & Record<string, unknown>;

/** A document: YAML text, or its UTF-8 bytes. */
export type Source = string | Uint8Array;

/** A document that does not load: every diagnostic, and the first one's fields. */
export declare class OatfError extends Error {
  readonly errors: Diagnostic[];
  readonly rule: string | null;
  readonly path: string | null;
  readonly line: number | null;
  readonly column: number | null;
}

/** One diagnostic as a line of text. */
export declare function describe(diagnostic: Diagnostic): string;
