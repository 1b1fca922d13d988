// ISO 8601 dates and datetimes to seconds since the Unix epoch (integers; no time zone database: a
// datetime without an offset is UTC, which is how the τ²-bench domains write their clock).

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?$/;

export function parseIsoTime(text: string, dateOnly: boolean): bigint | null {
  const m = (dateOnly ? DATE : DATETIME).exec(text);
  if (m === null) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, s] = dateOnly ? [0, 0, 0] : [Number(m[4]), Number(m[5]), Number(m[6] ?? "0")];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  const offset = dateOnly ? 0 : offsetSeconds(m[7]);
  if (offset === null) return null;
  const days = daysFromCivil(y, mo, d);
  return BigInt(days) * 86400n + BigInt(h * 3600 + mi * 60 + s - offset);
}

function offsetSeconds(z: string | undefined): number | null {
  if (z === undefined || z === "Z") return 0;
  const sign = z[0] === "-" ? -1 : 1;
  const hh = Number(z.slice(1, 3));
  const mm = Number(z.slice(4, 6));
  if (hh > 23 || mm > 59) return null;
  return sign * (hh * 3600 + mm * 60);
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
