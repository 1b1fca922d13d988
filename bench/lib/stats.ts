// Timing loops and summaries shared by every variant. Work is timed with process.hrtime.bigint around
// batches of calls: a batch of B calls gives one sample, its mean per-call time. Sub-microsecond calls
// need batches (the clock read itself costs tens of nanoseconds); calls of several microseconds are
// timed one by one (B = 1). Percentiles are over these samples, and each figure says its B.

/** What one figure reports. Times are nanoseconds per call. */
export interface Figure {
  /** Calls per sample: 1 = individual calls; B > 1 = percentiles over means of B consecutive calls. */
  batch: number;
  samples: number;
  calls: number;
  p50: number;
  p99: number;
  p999: number;
  mean: number;
  min: number;
  max: number;
  /** Calls per second over the measured phase (timer reads included). */
  throughput: number;
}

/** Keeps results observable so the JIT cannot drop the work; printed at the end of each variant. */
export const sink = { value: 0 };

export function consume(x: number): void {
  // Xor-fold into an int32: cheap, and depends on every result.
  sink.value = (sink.value ^ (x | 0)) | 0;
}

export interface MeasureOptions {
  /** Wall time of the warm-up phase in milliseconds (calls run, nothing recorded). */
  warmupMs: number;
  /** Wall time of the measured phase in milliseconds. */
  measureMs: number;
  /** Target sample duration in nanoseconds: picks the batch size (calls of ≥ sampleNs/4 are timed one
   * by one). The clock read (~50 ns) is inside every sample, so it costs ≤ ~5% at this default. */
  sampleNs?: number;
  /** Upper bound on samples (memory). */
  maxSamples?: number;
}

/** Percentile by nearest rank over a sorted array. */
export function percentile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(samples: Float64Array, batch: number, calls: number, elapsedNs: number): Figure {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i];
  return {
    batch,
    samples: sorted.length,
    calls,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    mean: sorted.length ? sum / sorted.length : NaN,
    min: sorted[0],
    max: sorted[sorted.length - 1],
    throughput: elapsedNs > 0 ? (calls * 1e9) / elapsedNs : NaN,
  };
}

/**
 * Runs `fn(i)` (i counts calls) through warm-up, a 5 ms calibration and measurement. The batch size is
 * picked from the calibration so one sample lasts about `sampleNs`.
 */
export function measure(fn: (i: number) => void, options: MeasureOptions): Figure {
  const sampleNs = options.sampleNs ?? 4_000;
  const maxSamples = options.maxSamples ?? 200_000;
  let i = 0;
  // Warm-up: run until the time is spent (the JIT compiles and settles here).
  const warmEnd = process.hrtime.bigint() + BigInt(Math.round(options.warmupMs * 1e6));
  do {
    for (let k = 0; k < 16; k++) fn(i++);
  } while (process.hrtime.bigint() < warmEnd);
  // Calibrate after the warm-up: the fastest 16-call chunk over ~5 ms (on a loaded machine the
  // average would count time the process spent descheduled).
  let perCall = Infinity;
  const calStart = process.hrtime.bigint();
  let calNow = calStart;
  do {
    const c0 = calNow;
    for (let k = 0; k < 16; k++) fn(i++);
    calNow = process.hrtime.bigint();
    perCall = Math.min(perCall, Number(calNow - c0) / 16);
  } while (calNow - calStart < 5_000_000n);
  const batch = perCall * 4 >= sampleNs ? 1 : Math.max(1, Math.round(sampleNs / perCall));
  const expected = Math.ceil((options.measureMs * 1e6) / Math.max(1, perCall * batch));
  const samples = new Float64Array(Math.min(maxSamples, Math.max(16, expected * 2)));
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(options.measureMs * 1e6));
  let t0 = start;
  while (n < samples.length) {
    for (let k = 0; k < batch; k++) fn(i++);
    const t1 = process.hrtime.bigint();
    samples[n++] = Number(t1 - t0) / batch;
    t0 = t1;
    if (t1 >= end && n >= 16) break;
  }
  return summarize(samples.subarray(0, n), batch, n * batch, Number(t0 - start));
}

/**
 * `measure` for an asynchronous call (the SQL guard's `check`): warm-up, then every call timed on its
 * own (B = 1: an awaited call costs microseconds at least) until the measured phase is spent.
 */
export async function measureAsync(fn: (i: number) => Promise<unknown>, options: MeasureOptions): Promise<Figure> {
  const maxSamples = options.maxSamples ?? 200_000;
  let i = 0;
  const warmEnd = process.hrtime.bigint() + BigInt(Math.round(options.warmupMs * 1e6));
  do await fn(i++);
  while (process.hrtime.bigint() < warmEnd);
  const samples: number[] = [];
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(options.measureMs * 1e6));
  let t0 = start;
  while (samples.length < maxSamples) {
    await fn(i++);
    const t1 = process.hrtime.bigint();
    samples.push(Number(t1 - t0));
    t0 = t1;
    if (t1 >= end && samples.length >= 16) break;
  }
  return summarize(Float64Array.from(samples), 1, samples.length, Number(t0 - start));
}

/** Times one run of `fn` in nanoseconds. */
export function timeOnce(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
}

/** Median of a list of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Repeats `fn` `n` times and summarizes each run individually (batch 1). */
export function repeat(fn: () => void, n: number, warmup = 3): Figure {
  for (let k = 0; k < warmup; k++) fn();
  const samples = new Float64Array(n);
  const start = process.hrtime.bigint();
  for (let k = 0; k < n; k++) samples[k] = timeOnce(fn);
  return summarize(samples, 1, n, Number(process.hrtime.bigint() - start));
}
