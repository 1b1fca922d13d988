// The protocol between the harness (bench/run.ts) and a variant process: parameters arrive as JSON in
// argv[2]; the variant sends progress and one result over the IPC channel (or prints the result as
// JSON when run by hand without a parent).
import { sink } from "./stats.js";

export interface Timing {
  warmupMs: number;
  measureMs: number;
}

export interface CommonParams {
  quick: boolean;
  timing: Timing;
}

export function params<T>(): T & CommonParams {
  const raw = process.argv[2];
  const p = raw === undefined ? {} : (JSON.parse(raw) as Record<string, unknown>);
  const quick = p.quick === true;
  const timing = (p.timing as Timing | undefined) ?? (quick ? { warmupMs: 60, measureMs: 150 } : { warmupMs: 300, measureMs: 1000 });
  return { ...(p as T), quick, timing };
}

export function progress(label: string): void {
  process.send?.({ kind: "progress", label });
}

/** Sends the result (with the sink, so the work stays observable) and lets the process exit. */
export function report(result: Record<string, unknown>): void {
  const out = { ...result, sink: sink.value };
  if (process.send) process.send({ kind: "result", result: out }, () => process.disconnect?.());
  else process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

export function fail(e: unknown): never {
  const message = e instanceof Error ? `${e.message}\n${e.stack ?? ""}` : String(e);
  if (process.send) process.send({ kind: "error", message }, () => process.exit(1));
  else console.error(message);
  process.exitCode = 1;
  throw e;
}
