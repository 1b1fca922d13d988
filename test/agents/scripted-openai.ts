// A scripted OpenAI Responses API on loopback, for the real Codex CLI offline (a custom model provider
// with `base_url` here). A request that offers tools gets the next scripted function call (streamed as
// server-sent events); once function outputs come back, text. Every function output is kept.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface OpenAiCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ScriptedOpenAi {
  url: string;
  outputs: Array<{ callId: string; output: string }>;
  paths: string[];
  toolNames: string[];
  reset(script: OpenAiCall[]): void;
  close(): Promise<void>;
}

function sse(data: Record<string, unknown>): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function startScriptedOpenAi(): Promise<ScriptedOpenAi> {
  let script: OpenAiCall[] = [];
  let next = 0;
  let ids = 0;
  const api: ScriptedOpenAi = {
    url: "",
    outputs: [],
    paths: [],
    toolNames: [],
    reset(s) {
      script = s;
      next = 0;
      api.outputs = [];
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      api.paths.push(`${req.method} ${req.url}`);
      if (req.method !== "POST" || !(req.url ?? "").includes("/responses")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [], models: [] }));
        return;
      }
      let r: { input?: Array<Record<string, unknown>>; tools?: Array<Record<string, unknown>> } = {};
      try {
        r = JSON.parse(body);
      } catch {
        // answered with text
      }
      api.toolNames = (r.tools ?? []).map((t) => String(t.name ?? t.type));
      const input = r.input ?? [];
      const outs = input.filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output");
      // Outputs of earlier requests are sent again with every request: keep each call id once.
      for (const o of outs) {
        const callId = String(o.call_id);
        if (!api.outputs.some((x) => x.callId === callId)) api.outputs.push({ callId, output: typeof o.output === "string" ? o.output : JSON.stringify(o.output) });
      }
      const id = `resp_${++ids}`;
      let out = sse({ type: "response.created", response: { id } });
      if ((r.tools ?? []).length > 0 && next < script.length) {
        const call = script[next++];
        const item = { type: "function_call", id: `fc_${ids}`, call_id: `call_${ids}`, name: call.name, arguments: JSON.stringify(call.arguments) };
        out += sse({ type: "response.output_item.done", output_index: 0, item });
      } else {
        const item = { type: "message", id: `msg_${ids}`, role: "assistant", content: [{ type: "output_text", text: "done", annotations: [] }] };
        out += sse({ type: "response.output_item.done", output_index: 0, item });
      }
      out += sse({ type: "response.completed", response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 } } });
      res.writeHead(200, { "content-type": "text/event-stream" }).end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  api.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return api;
}
