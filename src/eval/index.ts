// `polar eval tau2`: the offline evaluation of the guard on real τ²-bench agent runs (Node only).
export * from "./label.js";
export * from "./bootstrap.js";
export * from "./variants.js";
export * from "./collect.js";
export * from "./analyze.js";
export * from "./document.js";
export * from "./errors.js";
export { renderMarkdown } from "./report-md.js";
export { renderHtml } from "./report-html.js";
export { runTau2Eval, REPORT_FORMAT, DEFAULT_RESAMPLES, DEFAULT_SEED, type Tau2EvalOptions, type Tau2EvalReport, type ScopeReport } from "./tau2.js";
export { writeReports, REPORT_FILES, type WrittenReport } from "./write.js";
