import { mutationVitestConfig } from "./base.js";

// src/mcp/shell-dispatch.ts (the shell guard as the gateway's dispatcher): in-process with a scripted
// shell module (test/mcp/shell-dispatch.test.ts runs `polar mcp` as a child process, which a mutant
// cannot reach).
export default mutationVitestConfig(["test/mcp/shell-dispatchers.test.ts"]);
