// A data module in workerd: the file's bytes as an ArrayBuffer.
declare module "*.blob" {
  const data: ArrayBuffer;
  export default data;
}
