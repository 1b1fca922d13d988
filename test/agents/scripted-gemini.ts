// A scripted Gemini API (generateContent / streamGenerateContent) on loopback, for the real Gemini CLI
// offline (GOOGLE_GEMINI_BASE_URL). Requests that offer tools get the next scripted function call, then
// after the function responses come back, text; requests without tools (routing, summaries) get text.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface GeminiCall {
  name: string;
  args: Record<string, unknown>;
}

export interface FunctionResponseSeen {
  name: string;
  response: unknown;
}

export interface ScriptedGemini {
  url: string;
  responses: FunctionResponseSeen[];
  paths: string[];
  reset(script: GeminiCall[]): void;
  close(): Promise<void>;
}

type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

function candidate(parts: Part[]): unknown {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "gemini-scripted",
  };
}

export async function startScriptedGemini(): Promise<ScriptedGemini> {
  let script: GeminiCall[] = [];
  let next = 0;
  const api: ScriptedGemini = {
    url: "",
    responses: [],
    paths: [],
    reset(s) {
      script = s;
      next = 0;
      api.responses = [];
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      const url = req.url ?? "";
      api.paths.push(url);
      if (url.includes(":countTokens")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      let r: { contents?: Array<{ role?: string; parts?: Array<Record<string, unknown>> }>; tools?: unknown[] } = {};
      try {
        r = JSON.parse(body);
      } catch {
        // not JSON: answered with text below
      }
      const contents = r.contents ?? [];
      const last = contents[contents.length - 1];
      const fr = (last?.parts ?? []).filter((p) => "functionResponse" in p);
      for (const p of fr) {
        const f = p.functionResponse as { name: string; response: unknown };
        api.responses.push({ name: f.name, response: f.response });
      }
      const offersTools = Array.isArray(r.tools) && r.tools.length > 0;
      let parts: Part[];
      if (offersTools && last?.role === "user" && next < script.length) {
        const call = script[next++];
        parts = [{ functionCall: { name: call.name, args: call.args } }];
      } else {
        parts = [{ text: fr.length > 0 ? "done" : "ok" }];
      }
      const payload = candidate(parts);
      if (url.includes(":streamGenerateContent")) {
        res.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return api;
}
