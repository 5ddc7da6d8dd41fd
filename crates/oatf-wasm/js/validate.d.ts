// Types of `oatf/validate`: validation without the evaluation engine (a small WebAssembly module; the
// syntax checks of CEL, regular expressions and JSONPath, and normalization, load on demand).
import type { Diagnostic, Document, Source, ValidationResult } from './common.js';

export type { Diagnostic, Document, Source, ValidationResult } from './common.js';
export { OatfError, describe } from './common.js';

/** The SDK version. */
export declare const version: string;

/** Validates a document (SDK §3.2); never rejects for a bad document. */
export declare function validate(source: Source): Promise<ValidationResult>;
/** `validate`, synchronously: in Node always; in a browser for a document without CEL expressions,
 * JSONPath selectors, regex extractors or regexes with a Unicode class, or once `loadSyntaxChecks()` has
 * resolved (else it throws). */
export declare function validateSync(source: Source): ValidationResult;
/** Parses, validates and normalizes (SDK §3.5). Rejects with `OatfError`. */
export declare function load(source: Source): Promise<Document>;
/** `load`, synchronously: in Node always; in a browser once `loadNormalizer()` has resolved, for a
 * document that `validateSync` can check (else it throws, saying so). Throws `OatfError`. */
export declare function loadSync(source: Source): Document;
/** `load`, with the warnings. */
export declare function loadWithWarnings(source: Source): Promise<{ document: Document; warnings: Diagnostic[] }>;
/** Parses and normalizes without validating (SDK §3.3): canonical YAML. Throws `OatfError`. In Node
 * always; in a browser once `loadNormalizer()` (or a `load`) has resolved (else it throws, saying so). */
export declare function normalize(source: Source): string;
/** A document object as canonical YAML (SDK §3.4). Throws `OatfError`. Where it works: as `normalize`. */
export declare function serialize(document: Document): string;
/** Loads the regex and the syntax module now (otherwise loaded the first time a document has a regular
 * expression, a CEL expression or a JSONPath selector; in a browser the regex module comes with the import). */
export declare function loadSyntaxChecks(): Promise<void>;
/** Whether the syntax module is loaded. */
export declare function syntaxChecksLoaded(): boolean;
/** Loads the normalize module now (otherwise loaded by the first `load` or `loadWithWarnings`, and in
 * Node by the first `loadSync`, `normalize` or `serialize`). */
export declare function loadNormalizer(): Promise<void>;
/** Whether the normalize module is loaded. */
export declare function normalizerLoaded(): boolean;
