// A scripted Anthropic Messages API on loopback, for running the real Claude Code CLI offline. The
// "model" answers a conversation that offers tools with the next scripted tool call (streamed as
// server-sent events, as the API does), and once a tool result comes back, ends the turn with text.
// Requests without tools (titles, summaries) get a short text. Every tool result is kept for the test.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
  /** Runs just before the model sends this call (e.g. kill the daemon mid-session). */
  before?: () => void;
}

export interface ToolResultSeen {
  toolUseId: string;
  isError: boolean;
  text: string;
}

export interface ScriptedApi {
  url: string;
  /** The tool calls the model makes, one per user prompt, in order. */
  script: ScriptedCall[];
  results: ToolResultSeen[];
  requests: number;
  /** A new script for the next session: the model starts again at its first call. */
  reset(script: ScriptedCall[]): void;
  close(): Promise<void>;
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

function streamMessage(model: string, blocks: Block[], stop: string): string {
  let out = sse("message_start", {
    type: "message_start",
    message: { id: `msg_${Math.random().toString(36).slice(2)}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
  });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      out += sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      out += sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
    } else {
      out += sse("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      out += sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    out += sse("content_block_stop", { type: "content_block_stop", index });
  });
  out += sse("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  out += sse("message_stop", { type: "message_stop" });
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === "object" && c !== null && "text" in c ? String((c as { text: unknown }).text) : "")).join("");
  return "";
}

export async function startScriptedApi(script: ScriptedCall[] = []): Promise<ScriptedApi> {
  let next = 0;
  let ids = 0;
  const api: ScriptedApi = {
    url: "",
    script,
    results: [],
    requests: 0,
    reset(next2) {
      api.script = next2;
      api.results = [];
      next = 0;
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      api.requests++;
      if (!(req.url ?? "").startsWith("/v1/messages") || req.method !== "POST") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not scripted" } }));
        return;
      }
      if ((req.url ?? "").startsWith("/v1/messages/count_tokens")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      const r = JSON.parse(body) as { model: string; stream?: boolean; tools?: unknown[]; messages: Array<{ role: string; content: unknown }> };
      // Newer clients append `system` entries to the messages: the turn is the last user/assistant one.
      const turns = r.messages.filter((m) => m.role === "user" || m.role === "assistant");
      const last = turns[turns.length - 1];
      const toolResults = Array.isArray(last?.content) ? (last.content as Array<Record<string, unknown>>).filter((c) => c.type === "tool_result") : [];
      let blocks: Block[];
      let stop = "end_turn";
      for (const t of toolResults) api.results.push({ toolUseId: String(t.tool_use_id), isError: t.is_error === true, text: textOf(t.content) });
      if (Array.isArray(r.tools) && r.tools.length > 0 && last?.role === "user" && next < api.script.length) {
        // The script goes on call after call in one session; then the turn ends.
        const call = api.script[next++];
        call.before?.();
        blocks = [{ type: "tool_use", id: `toolu_${String(++ids).padStart(4, "0")}`, name: call.name, input: call.input }];
        stop = "tool_use";
      } else {
        blocks = [{ type: "text", text: toolResults.length > 0 ? "done" : "ok" }];
      }
      if (r.stream === true) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(streamMessage(r.model, blocks, stop));
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ id: "msg_x", type: "message", role: "assistant", model: r.model, content: blocks, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return api;
}
