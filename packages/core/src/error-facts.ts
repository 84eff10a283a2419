/**
 * The facts of every error code, in one table (CONVENTIONS.md "Errors"): what it means, whether
 * retrying the same request unchanged can succeed, the HTTP status the server answers with, the
 * exit code the CLI ends with, and the shape of its details in words. The server's status table
 * and `x-should-retry` header, the CLI's exit codes, and `errors.md` are derived from it; the
 * compiler makes every code have a row.
 */
import type { ErrorCode } from './errors.js';

/** Process exit codes of `stateflow`: success, any other failure, usage/bad input, not found, conflict, corrupt. */
export const ExitCode = { OK: 0, FAILURE: 1, USAGE: 2, NOT_FOUND: 3, CONFLICT: 4, CORRUPT: 5 } as const;

/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The HTTP statuses an error code can have (RFC 9110 §15.5, §15.6; 429 and 431: RFC 6585):
 * each is the status of at least one code, and every transport's status table is over these.
 */
export const HTTP_ERROR_STATUSES = [400, 401, 403, 404, 408, 409, 410, 413, 415, 422, 429, 431, 500, 501, 502, 503] as const;

/** One of {@link HTTP_ERROR_STATUSES}. */
export type HttpErrorStatus = (typeof HTTP_ERROR_STATUSES)[number];

/** The facts of one error code. */
export interface ErrorFacts {
  /** What the code means, for a person (one or two sentences; errors.md's "meaning"). */
  meaning: string;
  /** The shape of its details, in words (errors.md's "details"). */
  details: string;
  /** Whether retrying the same request unchanged can succeed (the failure is transient). */
  retryable: boolean;
  /** HTTP status of a response carrying this code. */
  httpStatus: HttpErrorStatus;
  /** Exit code of a `stateflow` command failing with this code. */
  exitCode: ExitCode;
}

const { FAILURE, USAGE, NOT_FOUND, CONFLICT, CORRUPT } = ExitCode;

/** Every code's facts (see {@link ErrorFacts}). */
export const ERROR_FACTS: { readonly [C in ErrorCode]: Readonly<ErrorFacts> } = {
  PATH_SYNTAX: {
    meaning:
      'A path is malformed: longer than 4,096 characters (column 4,097), empty, whitespace, leading/trailing/double dot, key outside `[A-Za-z_$][A-Za-z0-9_$-]*`, quoted key, negative or non-canonical index, open-ended range, range step, reversed range, step after a range, wildcard, predicate, union, selector without a root.',
    details: '`{ path, column }` (column of the first character at fault)',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  PATH_NOT_FOUND: {
    meaning: 'A path names an object member that does not exist (or a step below an absent plane). Inherited members such as `toString` never exist.',
    details: '`{ path, at? }` (`at`: the path through the missing member)',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  PATH_KIND: {
    meaning: 'A step does not fit the kind of value it meets: a member of an array or scalar, an index or range of an object or scalar.',
    details: "`{ path, expected: 'object' \\| 'array', actual, at? }`",
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  INDEX_OUT_OF_RANGE: {
    meaning:
      'An index or range does not fit the array (`[i]` needs `i < length`; `[a:b]` needs `b <= length`), in a path or a `"[N]"` patch key: like `PATH_NOT_FOUND`, the address names nothing that exists (404, exit 3).',
    details: '`{ path, index, length, at? }` (`index` is `"a:b"` for a range)',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  OWNER_NOT_SELECTED: {
    meaning: 'A path or patch names an owner (scope) that the caller did not select; selection is never widened.',
    details: '`{ path?, owner }`',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  PATCH_INVALID: {
    meaning:
      'A patch is not a valid recursive semantic patch: empty top-level patch, `null` inside a written value, `"[N]"` mixed with ordinary keys, `"[N]"` on a non-array, non-canonical index key, non-JSON value, or a result that is not a valid state. Nothing is applied.',
    details: '`{ reason, at, index?, length?, problem? }` (`reason`: a `PatchInvalidReason` slug; `at`: RFC 6901 pointer into the patch; `problem`: the message without its location prefix)',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  INPUT_INVALID: {
    meaning: 'A tool, API or store input does not have the required shape (for example an empty `paths` list, a rejected top-level `offset`/`scope`).',
    details: '`{ field?, reason? }` (`field`: dotted location in the input)',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  RESPONSE_TOO_LARGE: {
    meaning:
      "A read's answer would pass a transport ceiling, so nothing is returned (never a truncated answer): more paths in one `read_state` batch than the cap (checked before anything is read), or results larger than the response cap in bytes (counted while they are assembled). Read fewer or smaller paths.",
    details: "`{ cap: 'paths', limit, requested }` or `{ cap: 'bytes', limit, index }` (`index`: the path at which the cap was crossed)",
    retryable: false,
    httpStatus: 422,
    exitCode: USAGE,
  },
  CONFLICT: {
    meaning: 'CAS failed: a stream is not at the expected revision (its head moved past the captured basis); nothing was published. Re-read, then publish against the new revision.',
    details: '`{ stream, expected, actual }`',
    retryable: false,
    httpStatus: 409,
    exitCode: CONFLICT,
  },
  REVISION_NOT_FOUND: {
    meaning: 'A historical read asks for a stream revision above its head.',
    details: '`{ stream, rev, head }`',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  TRANSITION_NOT_FOUND: {
    meaning: 'A historical read asks for a global transition above the last one.',
    details: '`{ seq, lastSeq }`',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  HISTORY_NOT_RETAINED: {
    meaning: "A historical read asks for a revision before the stream's retained origin (compacted).",
    details: '`{ stream, rev, origin }`',
    retryable: false,
    httpStatus: 410,
    exitCode: NOT_FOUND,
  },
  STREAM_INVALID: {
    meaning: 'A stream id is malformed (empty, control characters, too long, unknown kind).',
    details: '`{ stream }`',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  STORE_CORRUPT: {
    meaning:
      'A stored record does not decode, breaks the hash chain, or holds invalid state (the affected stream fails closed), or a store file is damaged (`file`, byte `offset`: the store does not open); nothing is rewritten.',
    details: '`{ detail, stream?, key?, file?, offset? }`',
    retryable: false,
    httpStatus: 500,
    exitCode: CORRUPT,
  },
  STORE_LOCKED: {
    meaning: 'The store directory is locked by another process (`pid` when the platform tells).',
    details: '`{ dir, pid? }`',
    retryable: true,
    httpStatus: 503,
    exitCode: CONFLICT,
  },
  STORE_VERSION: {
    meaning: "The store's format version is not supported by this build.",
    details: '`{ found, supported }`',
    retryable: false,
    httpStatus: 500,
    exitCode: CORRUPT,
  },
  STORE_CLOSED: {
    meaning: 'An operation was attempted on a closed store.',
    details: '`{}`',
    retryable: false,
    httpStatus: 503,
    exitCode: FAILURE,
  },
  STORE_IO: {
    meaning: 'The storage backend failed (disk, LevelDB); `cause` holds the foreign error.',
    details: "`{ location, code, reason? }` (`code`: the foreign error's code; `reason: 'no-write-access'`)",
    retryable: true,
    httpStatus: 500,
    exitCode: FAILURE,
  },
  REOPEN_REQUIRED: {
    meaning: 'An earlier write of this open store failed (`failure` is its code): the store accepts no write until it is closed and reopened, which checks its files; reads keep working.',
    details: '`{ location, failure }`',
    retryable: false,
    httpStatus: 503,
    exitCode: FAILURE,
  },
  STORE_UNAVAILABLE: {
    meaning:
      "The store cannot be reached: its server (a `stateflow serve` or a PostgreSQL database) refused the connection, stopped mid-request or did not answer in time (a PostgreSQL writer that waited longer than its lock timeout for the store's lock: `holderPid` is the backend that held it, where PostgreSQL reports one), or (`reason: 'server-unverified'`) the process on a discovery file's address could not prove it holds the file's token and was sent nothing. `outcome: 'not-sent'`: nothing changed; `'unknown'`: a write may or may not have been applied, so retry it with its idempotency id, or read before retrying.",
    details: "`{ url?, dir?, outcome, reason?, holderPid? }` (`outcome`: `'not-sent'` or `'unknown'`; `reason`: `'server-unverified'`)",
    retryable: true,
    httpStatus: 503,
    exitCode: FAILURE,
  },
  MERGE_CONFLICT: {
    meaning:
      'A merge found paths both streams changed differently since their merge base and was not told how to settle every one (`resolve`, `prefer`): nothing was published. Resolve each listed path (ours, theirs or a value) and merge again, guarded by the same head.',
    details: '`{ from, into, fromRev, intoRev, base: { stream, rev }, conflicts }` (`conflicts`: every `{ path, base, ours, theirs, resolution? }`, `null` = absent)',
    retryable: false,
    httpStatus: 409,
    exitCode: CONFLICT,
  },
  MERGE_UNRELATED: {
    meaning:
      'Two streams were asked to merge but share no origin: no fork or merge record leads from one to a revision of the other or of a common ancestor. Fork one from the other first, or publish the change by hand.',
    details: '`{ from, into }`',
    retryable: false,
    httpStatus: 422,
    exitCode: USAGE,
  },
  UNDO_CONFLICT: {
    meaning:
      "An undo found paths that another writer changed after the undone writer's transitions changed them, and was not told how to settle every one (`resolve`, `prefer`): nothing was published. Resolve each listed stream and path (ours keeps the later writes, theirs takes the state without the undone writes, or a value) and undo again.",
    details: '`{ since, through, undone, conflicts }` (`conflicts`: every `{ stream, path, base, ours, theirs, resolution? }`, `null` = absent)',
    retryable: false,
    httpStatus: 409,
    exitCode: CONFLICT,
  },
  TAG_NOT_FOUND: {
    meaning: 'A read, undo or tag command named a tag that is not declared (now, in `stateflow:tags`). List the tags with `stateflow tag list`.',
    details: '`{ tag }`',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  TAG_INVALID: {
    meaning:
      'A tag declaration is not well-formed: a name outside `[A-Za-z][A-Za-z0-9_.-]*` (at most 128 characters), a record that is not `{ seq, stream?, rev? }`, a seq or revision the log does not hold yet, or a tag set again without `move`. Nothing was written.',
    details: "`{ tag, reason: 'name' \\| 'record' \\| 'future' \\| 'exists' }`",
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  SHAPE_INVALID: {
    meaning:
      'A shape declaration is not well-formed: a name outside the tag grammar, a record that is not `{ streams, versions }`, a stream pattern that is bad or changed after version 1, a schema ajv does not compile in strict mode, a bad upcast operation list, a version removed or rewritten, or (`heads`) a new version some stream head would not validate under, declared without `force`. Nothing was written.',
    details: "`{ shape, reason: 'name' \\| 'record' \\| 'streams' \\| 'schema' \\| 'upcast' \\| 'history' \\| 'heads' }`",
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  RETENTION_INVALID: {
    meaning:
      'A retention policy declaration is not well-formed: a pattern that is not a stream family pattern, or a policy that is not `{ maxAgeMs?, maxRevisions?, maxBytes?, idleMs? }` with at least one limit, each an integer ≥ 1. Nothing was written.',
    details: "`{ pattern, reason: 'pattern' \\| 'policy' }`",
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  SHAPE_NOT_FOUND: {
    meaning: 'A read or command named a shape that is not declared (now, in `stateflow:shapes`), or a version it does not have. List the shapes with `stateflow shape list`.',
    details: '`{ shape, version? }`',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  SHAPE_VIOLATION: {
    meaning:
      "A write would leave a stream's state invalid under the current version of its shape (`path`, the schema `rule` and `schemaPath` say where and why), or the stream's head is not in that version yet (`rule: 'version'`: an upgrade is running; retry after it). Nothing was written.",
    details: '`{ stream, shape, version, path, rule, schemaPath }`',
    retryable: false,
    httpStatus: 422,
    exitCode: USAGE,
  },
  SHAPE_UPCAST_FAILED: {
    meaning:
      'A read in a shape other than `stored` could not upcast a revision: a version step missing, a registered upcast function missing in this process or throwing, an operation that cannot apply, or a result the schema refuses. The stored state is never passed off as upcast; read with `shape: stored`, or register the function.',
    details: "`{ stream, rev, shape, step, op, reason }`",
    retryable: false,
    httpStatus: 422,
    exitCode: USAGE,
  },
  CONFIG_INVALID: {
    meaning: 'A ladder configuration fails validation at load time (schema, unknown keyword or format, bad reference).',
    details: '`{ problems }` (one line per problem)',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  SOURCE_UNRESOLVED: {
    meaning:
      "A ladder step names a source that does not resolve, when the call runs, to a known step, survivor, slate or input value: bad input (the ladder's `from:` or the call's input), as `CONFIG_INVALID` is (400, exit 2).",
    details: '`{ who }` (the step and field)',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  BUDGET_EXCEEDED: {
    meaning:
      "Reserved for a single slate write larger than its folder's whole token budget. No call raises it: a ladder call reports such a write as refused in its result (`refused[].reason`, nothing evicted) and goes on. Well-formed input the budget cannot hold, as `RESPONSE_TOO_LARGE` is (422, exit 2).",
    details: '`{ folder, budget, tokens }`',
    retryable: false,
    httpStatus: 422,
    exitCode: USAGE,
  },
  SESSION_NOT_FOUND: {
    meaning: 'No session has this id.',
    details: '`{ session }`',
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  SESSION_CLOSED: {
    meaning: 'The session is closed or expired and accepts no more calls.',
    details: '`{ session, status }`',
    retryable: false,
    httpStatus: 410,
    exitCode: CONFLICT,
  },
  SESSION_PAUSED: {
    meaning: 'The session is paused; resume it before calling it.',
    details: '`{ session }`',
    retryable: false,
    httpStatus: 409,
    exitCode: CONFLICT,
  },
  MODEL_UNAVAILABLE: {
    meaning: 'The model endpoint could not be reached.',
    details: '`{ url }`',
    retryable: true,
    httpStatus: 503,
    exitCode: FAILURE,
  },
  MODEL_NOT_CONFIGURED: {
    meaning:
      'No model is configured for ladder calls (no `--model`, no `OPENAI_BASE_URL` / `OPENAI_API_KEY`), or a request named the ladder as its model and no default upstream model (`--upstream-model`) is set.',
    details: "`{ missing: 'upstream' }` or `{ missing: 'upstream-model', model }` (the request's model name)",
    retryable: false,
    httpStatus: 503,
    exitCode: FAILURE,
  },
  MODEL_FAILED: {
    meaning: 'The model call completed but its answer could not be used.',
    details: '`{ step }`, `{ url, status }` (the upstream answered an error) or `{ origin, calls }` (a scripted model ran out of outputs)',
    retryable: false,
    httpStatus: 502,
    exitCode: FAILURE,
  },
  USAGE: {
    meaning: 'A command, option or server setting is used wrongly.',
    details: '`{ at?, stream?, mode?, reason?, dir?, model?, path?, errno? }` (the option or path at fault, where there is one)',
    retryable: false,
    httpStatus: 400,
    exitCode: USAGE,
  },
  NOT_FOUND: {
    meaning: 'A transport-level resource (store, database, route, ladder, model, file, stream, repository) does not exist.',
    details: "`{ dir }`, `{ url }`, `{ url, database }` (a PostgreSQL database that does not exist), `{ file }`, `{ stream }`, `{ repo }`, `{ route }`, `{ ladder }` or `{ ladder, model }` (a model a ladder's base URL does not serve)",
    retryable: false,
    httpStatus: 404,
    exitCode: NOT_FOUND,
  },
  UNAUTHORIZED: {
    meaning: 'A request carries no valid credential: no or an unknown API key on a server with keys, no server token on a server that requires it.',
    details: '`{}`',
    retryable: false,
    httpStatus: 401,
    exitCode: FAILURE,
  },
  FORBIDDEN: {
    meaning:
      "A request is refused whatever its key: on a keyless loopback server, a `Host` that is not a loopback name or address, or an `Origin` that is not a loopback origin (DNS rebinding, cross-site requests); on a server with API keys, a `local/` ladder (its one slate stream would be shared across users), a route served to the store's owner only, a write to a stream the key's user may not write (session records and slates are written by the ladder runtime alone), or an undo of another user's writes.",
    details: "`{ header, value }` (the value shortened), `{ ladder, reason: 'local-ladder' }`, `{ route, access: 'owner' }`, `{ stream, reason: 'runtime-stream' }` or `{ user, reason: 'others-writes' }`",
    retryable: false,
    httpStatus: 403,
    exitCode: FAILURE,
  },
  BODY_TOO_LARGE: {
    meaning: 'A request body is larger than the transport accepts.',
    details: '`{ limit }` (bytes)',
    retryable: false,
    httpStatus: 413,
    exitCode: USAGE,
  },
  HEADERS_TOO_LARGE: {
    meaning: "A request's header section is larger than the transport accepts (HTTP 431).",
    details: '`{ limit }` (bytes)',
    retryable: false,
    httpStatus: 431,
    exitCode: USAGE,
  },
  REQUEST_TIMEOUT: {
    meaning: 'A request did not arrive completely in time (HTTP 408).',
    details: '`{}`',
    retryable: true,
    httpStatus: 408,
    exitCode: FAILURE,
  },
  RATE_LIMITED: {
    meaning:
      "An API key is over one of its limits: its request rate, its number of model calls running at once, or its open watch streams — or the server holds all the watch streams it may. The answer's `Retry-After` header says how many seconds to wait (OpenAI clients wait that long and retry).",
    details: "`{ limit: 'requests' \\| 'model-calls' \\| 'watches' \\| 'server-watches', max, windowMs?, retryAfterSeconds }`",
    retryable: true,
    httpStatus: 429,
    exitCode: FAILURE,
  },
  MEDIA_TYPE_UNSUPPORTED: {
    meaning: 'A request body is not of a media type the transport accepts (the HTTP API takes `application/json`).',
    details: '`{ contentType }`',
    retryable: false,
    httpStatus: 415,
    exitCode: USAGE,
  },
  PACKAGE_NOT_INSTALLED: {
    meaning:
      'A feature needs an optional package that is not installed beside the server or the CLI (LangGraph views: `@stateflow/langgraph`; exporting traces: the OpenTelemetry SDK). Install the package named in `details.package` where Stateflow is installed, or leave the feature unused.',
    details: '`{ package, feature }`',
    retryable: false,
    httpStatus: 501,
    exitCode: FAILURE,
  },
  INTERNAL: {
    meaning: 'An unexpected failure; `cause` holds the original error. Report it: the HTTP server logs it to stderr with the request id the answer carries.',
    details: '`{ requestId?, operation? }`',
    retryable: false,
    httpStatus: 500,
    exitCode: FAILURE,
  },
};

/**
 * The rows of `errors.md`'s table, derived from {@link ERROR_FACTS} (a test keeps the file equal
 * to them): `| code | meaning | details | retryable | HTTP | exit |`.
 */
export function errorTableMarkdown(): string {
  const rows = (Object.keys(ERROR_FACTS) as ErrorCode[]).map((code) => {
    const f = ERROR_FACTS[code];
    return `| \`${code}\` | ${f.meaning} | ${f.details} | ${f.retryable ? 'yes' : 'no'} | ${f.httpStatus} | ${f.exitCode} |`;
  });
  return ['| code | meaning | details | retryable | HTTP | exit |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}
