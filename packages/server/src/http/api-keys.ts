/**
 * API keys → user ids (server README "Users and keys"): `--keys FILE` or `STATEFLOW_API_KEYS`, both a JSON
 * object `{ "<key>": "<user id>" }`, sent as `Authorization: Bearer <key>`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { StateflowError, isJsonObject } from '@stateflow/core';

/** User id of the single local user served when no API keys are configured. */
export const LOCAL_USER = 'local';

/** Where keys come from; the first one given wins (explicit map, file, environment). */
export interface ApiKeySources {
  /** Keys given directly. */
  keys?: Record<string, string>;
  /** Path of a JSON file `{ "<key>": "<user id>" }`. */
  keysFile?: string;
  /** Raw value of `STATEFLOW_API_KEYS`. */
  env?: string;
}

/**
 * Load the key map, or `null` when no source is configured (single local user).
 * @throws USAGE when the file cannot be read, is not JSON, or is not an object of non-empty
 *   strings to non-empty strings.
 */
export function loadApiKeys(sources: ApiKeySources): ReadonlyMap<string, string> | null {
  if (sources.keys !== undefined) return checkKeys(sources.keys, 'the keys option');
  if (sources.keysFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(sources.keysFile, 'utf8');
    } catch (cause) {
      throw new StateflowError('USAGE', `Cannot read API keys file "${sources.keysFile}"`, {}, { cause });
    }
    return checkKeys(parse(text, `API keys file "${sources.keysFile}"`), `API keys file "${sources.keysFile}"`);
  }
  if (sources.env !== undefined && sources.env.trim() !== '') {
    return checkKeys(parse(sources.env, 'STATEFLOW_API_KEYS'), 'STATEFLOW_API_KEYS');
  }
  return null;
}

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new StateflowError('USAGE', `${where} is not JSON; expected {"<key>": "<user id>"}`, {}, { cause });
  }
}

function checkKeys(value: unknown, where: string): ReadonlyMap<string, string> {
  if (!isJsonObject(value)) throw new StateflowError('USAGE', `${where} must be a JSON object {"<key>": "<user id>"}`, {});
  const map = new Map<string, string>();
  for (const [key, user] of Object.entries(value)) {
    if (key === '' || typeof user !== 'string' || user === '') {
      throw new StateflowError('USAGE', `${where}: every key and user id must be a non-empty string (bad entry "${key}")`, {});
    }
    map.set(key, user);
  }
  if (map.size === 0) throw new StateflowError('USAGE', `${where} has no keys; remove it to serve one local user`, {});
  return map;
}

/** An authenticated API key: its user, and an id of the key for per-key limits (never the key itself). */
export interface KeyHolder {
  user: string;
  /** The first 16 hex characters of the key's SHA-256: names the key in limiters without holding it. */
  keyId: string;
}

/**
 * The key holder of a request's `Authorization` header value (`Bearer <key>`).
 * @throws UNAUTHORIZED when the header is missing, not `Bearer`, or carries an unknown key.
 */
export function authenticateKey(keys: ReadonlyMap<string, string>, header: string | undefined): KeyHolder {
  const key = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  const user = key === undefined ? undefined : keys.get(key);
  if (key === undefined || user === undefined) {
    throw new StateflowError('UNAUTHORIZED', 'Missing or unknown API key; send "Authorization: Bearer <key>"', {});
  }
  return { user, keyId: createHash('sha256').update(key).digest('hex').slice(0, 16) };
}

/**
 * The user id for a request's `Authorization` header value (`local` without keys).
 * @throws UNAUTHORIZED when keys are configured and the header is missing, not `Bearer`, or
 *   carries an unknown key.
 */
export function authenticate(keys: ReadonlyMap<string, string> | null, header: string | undefined): string {
  return keys === null ? LOCAL_USER : authenticateKey(keys, header).user;
}
