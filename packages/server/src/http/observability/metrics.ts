/**
 * The server's Prometheus metrics (server README "Observability"), on one prom-client registry
 * per server, served by `GET /metrics`. Each metric is fed through a hook, never from route
 * code: the store's {@link StoreObserver} (publishes, commits, reads), fastify's `onResponse`
 * (HTTP), the MCP server's operation hook, the ladder runner's step hook and the model wrapper
 * (model calls, tokens), and collectors that read the current value at scrape time (streams,
 * store bytes, sessions, watchers and their lag).
 *
 * Labels are bounded: durabilities, outcomes, read kinds, route patterns (not URLs), status
 * codes, MCP methods and the two tools, ladder ids and step ids of the served ladder files, session
 * statuses. No stream id, session id, user or model name (a request may name any model) is a label.
 * MCP and model-call metrics carry the OpenTelemetry semantic-convention names
 * (`mcp.server.operation.duration`, `gen_ai.client.operation.duration`,
 * `gen_ai.client.token.usage`, `http.server.request.duration`), in Prometheus form.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolUse, RetainReport, StoreObserver } from '@stateflow/store';
import type { LadderObserver } from '@stateflow/slates';
import { StoreHistogram } from './store-histogram.js';
import type { Observe } from './store-histogram.js';

/** Latency buckets, in seconds: 0.1 ms … 10 s. */
const SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Transitions per commit. */
const COUNTS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Bytes per commit: 256 B … 16 MiB. */
const BYTES = [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216];
/** Tokens per model call. */
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16_384, 65_536, 262_144];

/** What the scrape-time collectors read. */
export interface MetricSources {
  /** Streams that have a revision. */
  streams(): Promise<number>;
  /** Bytes of the store's files, or `null` when the store is not a directory this server opened. */
  storeBytes(): Promise<number | null>;
  /** Ladder sessions by status. */
  sessions(): Promise<Record<string, number>>;
  /** Session lifecycle requests of this server waiting on a call, by request (`pause`, `resume`, `close`). */
  sessionRequestsWaiting(): Record<string, number>;
  /** The store's last seq (the watch lag is measured against it). */
  lastSeq(): number;
  /** The use of the storage's connection pools (PostgreSQL's; none for LevelDB). */
  connections(): readonly PoolUse[];
}

/** One open watch stream, for the subscriber gauge and its lag. */
export interface WatchTracker {
  /** The seq of the transition just sent (or the position the stream started at). */
  sent(seq: number): void;
  /** The stream ended. */
  close(): void;
}

/** An MCP operation, for `mcp_server_operation_duration_seconds`. */
export interface McpOperation {
  /** JSON-RPC method (`tools/call`, `tools/list`, `resources/read`, …). */
  method: string;
  /** The tool of a `tools/call` (`read_state`, `patch_state`; anything else is `other`). */
  tool?: string;
  /** `mcp-http` or `mcp-stdio` (the stdio proxy, through `/mcp`). */
  surface: string;
  /** `tool_error` for an `isError` result, a JSON-RPC error's code, or absent. */
  error?: string;
  ms: number;
}

const TOOLS = new Set(['read_state', 'patch_state']);

/** The sources of a registry no server attached yet. */
const NO_SOURCES: MetricSources = { streams: async () => 0, storeBytes: async () => null, sessions: async () => ({}), sessionRequestsWaiting: () => ({}), lastSeq: () => 0, connections: () => [] };

/**
 * `stateflow_storage_pool_connections{pool, state}` (state `total`, `idle`, `waiting`: callers
 * waiting for a connection) and `stateflow_storage_pool_max{pool}`, read at scrape time; a store
 * without pools (LevelDB) has no series. `pool` is one of a few fixed names (`store`,
 * `named-lock`, `replica-N`).
 */
function poolGauges(registry: Registry, sources: MetricSources): void {
  new Gauge({
    name: 'stateflow_storage_pool_connections',
    help: "Connections of the storage's pools (PostgreSQL): open (total), idle, and callers waiting for one.",
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const use of sources.connections()) for (const state of ['total', 'idle', 'waiting'] as const) this.set({ pool: use.pool, state }, use[state]);
    },
  });
  new Gauge({
    name: 'stateflow_storage_pool_max',
    help: "The most connections each of the storage's pools opens.",
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const use of sources.connections()) this.set({ pool: use.pool }, use.max);
    },
  });
}

/** `histogram`'s observers, one per tuple of `values` (label name → its values), keyed by the values joined with `|`. */
function children(histogram: StoreHistogram, values: Record<string, string[]>): Record<string, Observe> {
  let tuples: Array<Record<string, string>> = [{}];
  for (const [name, options] of Object.entries(values)) tuples = tuples.flatMap((tuple) => options.map((option) => ({ ...tuple, [name]: option })));
  return Object.fromEntries(tuples.map((labels) => [Object.values(labels).join('|'), histogram.child(labels)]));
}

/**
 * The metrics of one server and the hooks that feed them. `startServer` makes one, or uses the
 * one in its `metrics` option: an embedder that opens the store itself passes
 * {@link ServerMetrics.storeObserver} as the store's `observer` and the same object to the server.
 * @example
 * const metrics = new ServerMetrics();
 * const store = await openStore(dir, { observer: metrics.storeObserver });
 * const server = await startServer({ store, metrics });
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #conflicts = new Counter({ name: 'stateflow_cas_conflicts_total', help: 'Publishes refused with CONFLICT (an expected revision was not the head).', registers: [this.registry] });
  readonly #http = new Histogram({ name: 'http_server_request_duration_seconds', help: 'HTTP request duration (OTel http.server.request.duration).', labelNames: ['http_request_method', 'http_route', 'http_response_status_code'], buckets: SECONDS, registers: [this.registry] });
  readonly #mcp = new Histogram({ name: 'mcp_server_operation_duration_seconds', help: 'MCP operation duration (OTel mcp.server.operation.duration).', labelNames: ['mcp_method_name', 'gen_ai_tool_name', 'error_type', 'stateflow_surface'], buckets: SECONDS, registers: [this.registry] });
  readonly #step = new Histogram({ name: 'stateflow_ladder_step_duration_seconds', help: 'Ladder step duration (its nodes, gate and slate writes).', labelNames: ['ladder', 'step'], buckets: SECONDS, registers: [this.registry] });
  readonly #model = new Histogram({ name: 'gen_ai_client_operation_duration_seconds', help: 'Model call duration (OTel gen_ai.client.operation.duration).', labelNames: ['gen_ai_operation_name', 'ladder', 'error_type'], buckets: SECONDS, registers: [this.registry] });
  readonly #tokens = new Histogram({ name: 'gen_ai_client_token_usage', help: 'Tokens per model call (OTel gen_ai.client.token.usage).', labelNames: ['gen_ai_operation_name', 'gen_ai_token_type', 'ladder'], buckets: TOKENS, registers: [this.registry] });
  /** The store's histograms (hot path: `store-histogram.ts`), written after the registry's metrics. */
  readonly #store = {
    publish: new StoreHistogram('stateflow_publish_duration_seconds', 'Publish latency per input, queueing and commit included.', SECONDS),
    commitSize: new StoreHistogram('stateflow_commit_transitions', 'Transitions per storage commit (group commit).', COUNTS),
    commitBytes: new StoreHistogram('stateflow_commit_bytes', 'Bytes written per storage commit.', BYTES),
    commitTime: new StoreHistogram('stateflow_commit_duration_seconds', 'Storage commit latency; synced="true" is the synced (fsync) batch latency.', SECONDS),
    read: new StoreHistogram('stateflow_read_duration_seconds', 'Store read latency by kind.', SECONDS),
  };
  readonly #familyBytes = new Gauge({
    name: 'stateflow_stream_family_bytes',
    help: "Net-patch bytes (JSON) of the readable revisions of each retention policy's stream family, as of this server's last retention run (scheduled or over HTTP, dry runs too); absent before the first.",
    labelNames: ['family'],
    registers: [this.registry],
  });
  readonly #watchers = new Set<{ seq: number }>();
  #sources: MetricSources = NO_SOURCES;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const watchers = this.#watchers;
    const sources: MetricSources = {
      streams: () => this.#sources.streams(),
      storeBytes: () => this.#sources.storeBytes(),
      sessions: () => this.#sources.sessions(),
      sessionRequestsWaiting: () => this.#sources.sessionRequestsWaiting(),
      lastSeq: () => this.#sources.lastSeq(),
      connections: () => this.#sources.connections(),
    };
    poolGauges(this.registry, sources);
    new Gauge({ name: 'stateflow_streams', help: 'Streams with at least one revision.', registers: [this.registry], async collect() { this.set(await sources.streams()); } });
    new Gauge({
      name: 'stateflow_store_bytes',
      help: "Bytes of the store's files on disk (absent for a store the server did not open from a directory).",
      registers: [this.registry],
      async collect() {
        const bytes = await sources.storeBytes();
        if (bytes !== null) this.set(bytes);
      },
    });
    new Gauge({
      name: 'stateflow_sessions',
      help: 'Ladder sessions by status.',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [status, count] of Object.entries(await sources.sessions())) this.set({ status }, count);
      },
    });
    new Gauge({
      name: 'stateflow_session_requests_waiting',
      help: 'Pause, resume and close requests of this server waiting on a call in flight (a pause it has not reached yet, a resume or close of a call in another server).',
      labelNames: ['request'],
      registers: [this.registry],
      collect() {
        for (const [request, count] of Object.entries(sources.sessionRequestsWaiting())) this.set({ request }, count);
      },
    });
    new Gauge({ name: 'stateflow_watch_subscribers', help: 'Open watch streams (GET /v1/watch).', registers: [this.registry], collect() { this.set(watchers.size); } });
    new Gauge({
      name: 'stateflow_watch_lag_transitions',
      help: 'Largest lag of an open watch stream: transitions accepted since the last one it was sent (0 with none open).',
      registers: [this.registry],
      collect() {
        const last = sources.lastSeq();
        let lag = 0;
        for (const watcher of watchers) lag = Math.max(lag, last - watcher.seq);
        this.set(lag);
      },
    });
  }

  /** Every metric in the Prometheus text format 0.0.4 (`registry.contentType`): what `GET /metrics` answers. */
  async text(): Promise<string> {
    const histograms = Object.values(this.#store).map((histogram) => histogram.text());
    return `${await this.registry.metrics()}\n${histograms.join('\n')}`;
  }

  /** Read the scrape-time gauges from `sources` (until then they read 0). `startServer` attaches its own. */
  attach(sources: MetricSources): void {
    this.#sources = sources;
  }

  /**
   * The store hooks ({@link StoreObserver}) that feed the publish, commit and read metrics. They
   * run on every publish: every label set's observer is made up front (`StoreHistogram`: plain
   * bucket arrays, no label hashing per observation), so every label set shows from the first scrape.
   */
  readonly storeObserver: StoreObserver = (() => {
    const synced = { synced: ['false', 'true'] };
    const publish = children(this.#store.publish, { durability: ['buffered', 'fsync'], outcome: ['accepted', 'duplicate', 'noop', 'conflict', 'error'] });
    const commitSize = children(this.#store.commitSize, synced);
    const commitBytes = children(this.#store.commitBytes, synced);
    const commitTime = children(this.#store.commitTime, synced);
    const read = children(this.#store.read, { kind: ['state', 'stateAt', 'transitions', 'audit'], outcome: ['ok', 'error'] });
    return {
      published: ({ durability, outcome, ms }) => {
        publish[`${durability}|${outcome}`]?.observe(ms / 1000);
        if (outcome === 'conflict') this.#conflicts.inc();
      },
      committed: ({ transitions, bytes, synced: wasSynced, ms }) => {
        const label = wasSynced ? 'true' : 'false';
        commitSize[label]?.observe(transitions);
        commitBytes[label]?.observe(bytes);
        commitTime[label]?.observe(ms / 1000);
      },
      read: ({ kind, outcome, ms }) => read[`${kind}|${outcome}`]?.observe(ms / 1000),
    };
  })();

  /** One HTTP request answered: `route` is the route's pattern (`/v1/store/publish`), never the URL. */
  httpRequest(method: string, route: string, status: number, ms: number): void {
    this.#http.observe({ http_request_method: method, http_route: route, http_response_status_code: String(status) }, ms / 1000);
  }

  /** One MCP operation. */
  mcpOperation(operation: McpOperation): void {
    const tool = operation.tool === undefined ? '' : TOOLS.has(operation.tool) ? operation.tool : 'other';
    this.#mcp.observe({ mcp_method_name: operation.method, gen_ai_tool_name: tool, error_type: operation.error ?? '', stateflow_surface: operation.surface }, operation.ms / 1000);
  }

  /** The ladder runner's hook for `ladder`'s steps (`stateflow_ladder_step_duration_seconds`). */
  ladderObserver(ladder: string): LadderObserver {
    return { step: ({ step, ms }) => this.#step.observe({ ladder, step }, ms / 1000) };
  }

  /** One model call of a ladder, with its token counts when the model reported them. */
  modelCall(ladder: string, ms: number, outcome: { error?: string; usage?: { promptTokens: number; completionTokens: number } }): void {
    this.#model.observe({ gen_ai_operation_name: 'chat', ladder, error_type: outcome.error ?? '' }, ms / 1000);
    if (outcome.usage === undefined) return;
    this.#tokens.observe({ gen_ai_operation_name: 'chat', gen_ai_token_type: 'input', ladder }, outcome.usage.promptTokens);
    this.#tokens.observe({ gen_ai_operation_name: 'chat', gen_ai_token_type: 'output', ladder }, outcome.usage.completionTokens);
  }

  /**
   * A retention run of this server, scheduled or over HTTP: `stateflow_stream_family_bytes` per
   * declared family from its report (a run's figures come with it, no scan at scrape time).
   */
  retentionRun(report: RetainReport): void {
    this.#familyBytes.reset();
    for (const family of report.families) this.#familyBytes.set({ family: family.pattern }, report.dryRun ? family.kept.bytes + family.bytes : family.kept.bytes);
  }

  /** A watch stream opened at `from`. */
  watch(from: number): WatchTracker {
    const watcher = { seq: from };
    this.#watchers.add(watcher);
    return {
      sent: (seq) => void (watcher.seq = seq),
      close: () => void this.#watchers.delete(watcher),
    };
  }
}
