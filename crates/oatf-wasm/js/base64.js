// The bytes of a base64 string (the inlined WebAssembly modules of `oatf/inline`, D-145).
export function bytesOf(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
