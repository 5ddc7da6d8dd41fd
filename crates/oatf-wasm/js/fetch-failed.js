// The error of a web entry whose `.wasm` could not be fetched or instantiated: what happened, and the
// usual cause (a bundler that did not emit the file) with the entry that needs no file (D-145).
export function fetchFailed(url, cause) {
  const error = new Error(
    `oatf: could not load the WebAssembly module ${url} (${cause?.message ?? cause}). If a bundler built ` +
      'this page, it did not emit the .wasm beside the bundle (esbuild does not follow `new URL(…, ' +
      "import.meta.url)`): import from 'oatf/inline' or 'oatf/validate/inline' instead, which carry the " +
      'module inside the JavaScript; without a bundler, serve the .wasm beside the package files as application/wasm',
  );
  error.cause = cause;
  return error;
}
