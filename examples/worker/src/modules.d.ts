// Module types wrangler gives these imports (its Data rule and JSON loader).
declare module "*.blob" {
  const data: ArrayBuffer;
  export default data;
}
declare module "*.json" {
  const value: unknown;
  export default value;
}
// node:crypto as workerd gives it with `nodejs_compat` (wrangler.toml): only what build.ts uses, for a
// project without @types/node.
declare module "node:crypto" {
  interface Hash {
    update(data: Uint8Array | string): Hash;
    digest(): Uint8Array;
  }
  export function createHash(algorithm: "sha256"): Hash;
}
