// Task-cluster bootstrap for shares. Calls of one task are not independent (one agent, one user, one
// conversation), so the resampling unit is the task: draw tasks with replacement, keep every call
// of each drawn task (all its trials together), recompute the share. Deterministic: a seeded PRNG, the
// same seed gives the same intervals on every machine.

/** mulberry32: a small, fast 32-bit PRNG; plenty for resampling indices. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One cluster's contribution to a share: `hits` of `n` units (e.g. stopped calls of a task's writes). */
export interface ClusterCount {
  hits: number;
  n: number;
}

export interface ShareEstimate {
  /** Σhits / Σn over all clusters; null when there is no unit at all. */
  share: number | null;
  hits: number;
  n: number;
  /** Clusters with at least one unit. */
  clusters: number;
  /** Percentile 95% interval; null without units. Equal to the share when every resample agrees. */
  lo: number | null;
  hi: number | null;
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** Two-sided level; default 0.95. */
  level?: number;
}

/** Quantile by linear interpolation between order statistics (R's type 7) of a sorted array. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of an empty sample");
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Resample clusters with replacement; `indices[r]` lists the drawn cluster indices of resample r.
 * Shared by every share of one cell so that their intervals come from the same task draws. */
export function drawResamples(clusterCount: number, options: BootstrapOptions): Uint32Array[] {
  const rand = seededRandom(options.seed);
  const out: Uint32Array[] = [];
  for (let r = 0; r < options.resamples; r++) {
    const idx = new Uint32Array(clusterCount);
    for (let i = 0; i < clusterCount; i++) idx[i] = Math.floor(rand() * clusterCount);
    out.push(idx);
  }
  return out;
}

/** The share Σhits/Σn with a percentile interval over resampled clusters. Resamples that drew no unit
 * (Σn = 0) have no share and are left out of the interval. */
export function clusterShare(clusters: readonly ClusterCount[], draws: readonly Uint32Array[], level = 0.95): ShareEstimate {
  let hits = 0;
  let n = 0;
  let nonEmpty = 0;
  for (const c of clusters) {
    hits += c.hits;
    n += c.n;
    if (c.n > 0) nonEmpty++;
  }
  if (n === 0) return { share: null, hits, n, clusters: 0, lo: null, hi: null };
  const shares: number[] = [];
  for (const idx of draws) {
    let h = 0;
    let m = 0;
    for (let i = 0; i < idx.length; i++) {
      const c = clusters[idx[i]];
      h += c.hits;
      m += c.n;
    }
    if (m > 0) shares.push(h / m);
  }
  shares.sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  return {
    share: hits / n,
    hits,
    n,
    clusters: nonEmpty,
    lo: shares.length > 0 ? quantile(shares, alpha) : null,
    hi: shares.length > 0 ? quantile(shares, 1 - alpha) : null,
  };
}

/** Convenience: draw and estimate in one go. */
export function bootstrapShare(clusters: readonly ClusterCount[], options: BootstrapOptions): ShareEstimate {
  return clusterShare(clusters, drawResamples(clusters.length, options), options.level ?? 0.95);
}
