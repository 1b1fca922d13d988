// Module types wrangler gives these imports (its Data rule and JSON loader).
declare module "*.blob" {
  const data: ArrayBuffer;
  export default data;
}
declare module "*.json" {
  const value: unknown;
  export default value;
}
