// The guard's parts built as createGuard composes them, for the tests of one part at a time.
import { BeforeReader } from "../../src/guard/before.js";
import { callKey } from "../../src/guard/call.js";
import { ConsentBook } from "../../src/guard/consent-book.js";
import { Engine } from "../../src/guard/engine.js";
import { Judge } from "../../src/guard/judge.js";
import { Lifecycle } from "../../src/guard/lifecycle.js";
import { Observer } from "../../src/guard/observe.js";
import { resolveOptions } from "../../src/guard/options.js";
import type { GuardOptions } from "../../src/guard/types.js";
import { UnknownMarks } from "../../src/guard/unknown.js";

export function parts(options: GuardOptions) {
  const o = resolveOptions(options);
  const engine = new Engine(o.tables, o.blob, o.backend);
  const lifecycle = new Lifecycle(o.scope, o.config.maxDepth, callKey);
  const unknown = new UnknownMarks();
  const book = new ConsentBook(o.config.consent, o.detector, engine);
  const before = new BeforeReader(o.tables, o.state);
  const judge = new Judge(o, engine, lifecycle, unknown, book, before);
  const observer = new Observer(o, engine, lifecycle, unknown, before);
  return { o, engine, lifecycle, unknown, book, before, judge, observer };
}
