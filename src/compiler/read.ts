// Reading a construct's argument as the kind of value it must be (an identifier, a weight, ...), with
// an `invalid-argument` diagnostic when it is something else.
import { FIXED_ONE } from "../abi.js";
import { describe, type Expr } from "./ast.js";
import type { Context } from "./context.js";
import { parseFixed } from "./fixed.js";

export function readIdent(ctx: Context, e: Expr | undefined, what: string): string | null {
  if (e === undefined) return null;
  if (e.kind === "ident") return e.name;
  ctx.report("invalid-argument", `expected ${what}, found ${describe(e)}`, e);
  return null;
}

/** An identifier or a dotted name (`customer.id`), as text. */
export function readDotted(ctx: Context, e: Expr | undefined, what: string): string | null {
  if (e === undefined) return null;
  if (e.kind === "ident") return e.name;
  if (e.kind === "path") return e.parts.join(".");
  ctx.report("invalid-argument", `expected ${what}, found ${describe(e)}`, e);
  return null;
}

export function readBool(ctx: Context, e: Expr | undefined, what: string): boolean | null {
  if (e === undefined) return null;
  if (e.kind === "bool") return e.value;
  ctx.report("invalid-argument", `expected \`true\` or \`false\` for ${what}, found ${describe(e)}`, e);
  return null;
}

export function readString(ctx: Context, e: Expr | undefined, what: string): string | null {
  if (e === undefined) return null;
  if (e.kind === "string") return e.value;
  ctx.report("invalid-argument", `expected a string for ${what}, found ${describe(e)}`, e);
  return null;
}

/** An annotation weight w in (0, 1], as fixed point. */
export function readWeight(ctx: Context, e: Expr | undefined): number | null {
  const v = readDecimal(ctx, e, "a weight such as `0.95`");
  if (v === null || e === undefined) return null;
  if (v <= 0n || v > BigInt(FIXED_ONE)) {
    ctx.report("weight-out-of-range", `weight ${text(e)} is outside (0, 1]`, e);
    return null;
  }
  return Number(v);
}

/** A loss class weight in [0, 1), as fixed point. */
export function readLossWeight(ctx: Context, e: Expr | undefined): number | null {
  const v = readDecimal(ctx, e, "a loss weight such as `0.10`");
  if (v === null || e === undefined) return null;
  if (v < 0n || v >= BigInt(FIXED_ONE)) {
    ctx.report("loss-weight-out-of-range", `loss weight ${text(e)} is outside [0, 1)`, e);
    return null;
  }
  return Number(v);
}

function readDecimal(ctx: Context, e: Expr | undefined, what: string): bigint | null {
  if (e === undefined) return null;
  if (e.kind !== "number") {
    ctx.report("invalid-argument", `expected ${what}, found ${describe(e)}`, e);
    return null;
  }
  const r = parseFixed(e.text, e.negative);
  if (!r.ok) {
    ctx.report("too-many-decimals", `${text(e)} has more than 6 decimals`, e);
    return null;
  }
  return r.value;
}

function text(e: Expr): string {
  return e.kind === "number" ? `\`${e.negative ? "-" : ""}${e.text}\`` : describe(e);
}
