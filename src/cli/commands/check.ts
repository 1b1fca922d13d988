import type { CAC } from "cac";

// Placeholder until the owning issue lands: registers nothing, so `polar check` is not offered.
export function register(_cli: CAC): void {}
