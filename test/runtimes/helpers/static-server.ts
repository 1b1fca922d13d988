// A static file server on 127.0.0.1 for the browser tests; serves .wasm as application/wasm so
// WebAssembly.instantiateStreaming takes the streaming path.
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".blob": "application/octet-stream",
  ".css": "text/css",
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `mounts` (url prefix → folder); the first matching prefix wins. */
export async function serveStatic(mounts: Record<string, string>): Promise<StaticServer> {
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!path.startsWith(prefix)) continue;
      const rel = normalize(path.slice(prefix.length) || "index.html");
      const file = join(dir, rel.endsWith(sep) ? join(rel, "index.html") : rel);
      if (!file.startsWith(dir)) break;
      try {
        const stat = statSync(file);
        const target = stat.isDirectory() ? join(file, "index.html") : file;
        res.writeHead(200, { "content-type": TYPES[extname(target)] ?? "application/octet-stream" });
        createReadStream(target).pipe(res);
        return;
      } catch {
        break;
      }
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
