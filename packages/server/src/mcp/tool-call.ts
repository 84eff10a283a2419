/**
 * The tool-call record (server README "Who wrote it"): a transition an MCP tool call writes
 * carries, in `meta.writer`, the tool's name and a digest of its arguments — `tool:
 * "patch_state"`, `args: "sha256:<16 hex>"` — never the arguments themselves (they are the
 * patch already, or what an agent asked, which the log need not keep twice). The call runs in an
 * `AsyncLocalStorage` scope, so whatever stamps the writer (the server's request scope, the
 * in-process `stateflow mcp` on PostgreSQL) adds it from there; concurrent calls each see their own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The tool call a transition was written by. */
export interface ToolCall {
  tool: string;
  /** `sha256:` and the first 16 hex digits of sha256 over the arguments' RFC 8785 canonical JSON. */
  args: string;
}

const calls = new AsyncLocalStorage<ToolCall>();

/** The digest of a tool call's arguments (`sha256:` + 16 hex: 64 bits, enough to tell calls apart). */
export function argumentsDigest(args: unknown): string {
  const text = canonicalize(args) ?? 'null';
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

/** Run `fn` as the call of `tool` with `args`. */
export function withToolCall<T>(tool: string, args: unknown, fn: () => Promise<T>): Promise<T> {
  return calls.run({ tool, args: argumentsDigest(args) }, fn);
}

/** The tool call running now, if any. */
export function currentToolCall(): ToolCall | undefined {
  return calls.getStore();
}
