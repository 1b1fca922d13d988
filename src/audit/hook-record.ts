// The format tag of a coding-agent hook's audit record (src/hooks/engine.ts writes them; ./verify.ts
// replays the core decisions inside them and checks that the hook's answer follows from them).
export const HOOK_RECORD_FORMAT = "polar-hook/1";
