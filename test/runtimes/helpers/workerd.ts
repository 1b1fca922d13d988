// Runs a Worker under workerd locally in two steps, so nothing can rebuild it halfway through a test:
// wrangler bundles it exactly as for a deploy (`wrangler deploy --dry-run --outdir`), then Miniflare
// (wrangler's own local runtime) serves that bundle on 127.0.0.1 with the config's Durable Objects.
// The caller disposes it, which stops the workerd process.
import { execFile } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { parse } from "smol-toml";
import { REPO } from "./paths.js";

export interface LocalWorker {
  url: string;
  /** What wrangler would upload: the bundle and its modules, by file name. */
  modules: string[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/** No telemetry and no fetch of Cloudflare's `Request.cf` sample: tests run offline. */
const OFFLINE = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_UPDATE_NOTIFIER: "1" };

interface WranglerToml {
  main: string;
  compatibility_date: string;
  compatibility_flags?: string[];
  durable_objects?: { bindings?: { name: string; class_name: string }[] };
}

export async function bundleWorker(config: string, outdir: string): Promise<string[]> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const wrangler = join(REPO, "node_modules/wrangler/bin/wrangler.js");
  try {
    await promisify(execFile)(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outdir, "--config", config], {
      env: { ...process.env, ...OFFLINE },
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`wrangler could not bundle \`${config}\`:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  return readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "README.md");
}

export interface StartOptions {
  /** Serve the bundle already in `outdir` instead of bundling again. */
  reuseBundle?: boolean;
  /** Keep Durable Object storage in this folder, so a later start finds it (a restart). */
  persist?: string;
}

export async function startWorker(config: string, outdir: string, options: StartOptions = {}): Promise<LocalWorker> {
  const modules = options.reuseBundle
    ? readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "README.md")
    : await bundleWorker(config, outdir);
  const toml = parse(readFileSync(config, "utf8")) as unknown as WranglerToml;
  const durableObjects = Object.fromEntries(
    (toml.durable_objects?.bindings ?? []).map((b) => [b.name, { className: b.class_name, useSQLite: true }]),
  );
  const entry = toml.main.replace(/^.*\//, "").replace(/\.[cm]?[jt]s$/, ".js");
  const mf = new Miniflare({
    scriptPath: join(outdir, entry),
    modules: true,
    modulesRoot: outdir,
    modulesRules: [
      { type: "CompiledWasm", include: ["**/*.wasm"] },
      { type: "Data", include: ["**/*.blob"] },
    ],
    compatibilityDate: toml.compatibility_date,
    compatibilityFlags: toml.compatibility_flags ?? [],
    durableObjects,
    ...(options.persist === undefined ? {} : { durableObjectsPersist: options.persist }),
    host: "127.0.0.1",
    port: 0,
    cf: false,
  });
  const url = String(await mf.ready).replace(/\/$/, "");
  return {
    url,
    modules,
    // Miniflare's own client to its workerd (the way its docs test Workers): a connection it manages,
    // rather than Node's global fetch pool racing workerd's keep-alive closes under load.
    fetch: (path, init) => mf.dispatchFetch(url + path, init as never) as unknown as Promise<Response>,
    dispose: () => mf.dispose(),
  };
}
