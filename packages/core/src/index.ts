export { ErrorCode, StateflowError, isStateflowError } from './errors.js';
export type { ErrorDetails, ErrorDetailsByCode } from './errors.js';
export { isJsonObject, kindOf, hasOwn, jsonEqual } from './json.js';
export type { JsonValue, JsonObject, JsonArray, JsonScalar, JsonKind } from './json.js';
