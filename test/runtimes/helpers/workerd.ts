// Runs a Worker under workerd locally through wrangler's API (the same bundler and runtime as
// `wrangler dev`), bound to 127.0.0.1; the caller disposes it, which stops the workerd process.
import { unstable_startWorker } from "wrangler";

export interface LocalWorker {
  url: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/** No telemetry, and no fetch of Cloudflare's `Request.cf` sample: tests run offline. */
function offline(): void {
  process.env.WRANGLER_SEND_METRICS = "false";
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
}

export async function startWorker(config: string): Promise<LocalWorker> {
  offline();
  const worker = await unstable_startWorker({
    config,
    dev: {
      server: { hostname: "127.0.0.1", port: 0 },
      inspector: false,
      logLevel: "warn",
      watch: false,
      remote: false,
      persist: false,
      enableContainers: false,
    },
  });
  await worker.ready;
  const url = String(await worker.url).replace(/\/$/, "");
  return {
    url,
    fetch: (path, init) => fetch(url + path, init),
    dispose: () => worker.dispose(),
  };
}
