/**
 * A chain of shapes for a package manifest (the real eslint history of ../shared/data/histories
 * is one): four versions whose reads from version 1 take three upcast steps — `version` moved
 * under `release`, each dependency range wrapped as `{ range }`, a `private` default and the
 * name copied to `title`. The store test on LevelDB and `bench/shapes.mjs` use the same chain.
 */
// Structural copies of core's JsonObject and UpcastOperation (those used here): the test kit
// depends on no package, since every package's tests depend on it.
type Json = string | number | boolean | Json[] | { [key: string]: Json };
// (`version: false` in properties: the boolean schema that forbids the member.)
type JsonObject = { [key: string]: Json };
type UpcastOperation =
  | { op: 'move' | 'copy'; from: string; path: string }
  | { op: 'default'; path: string; value: Json }
  | { op: 'wrap'; path: string; key?: string }
  | { op: 'each'; path: string; ops: UpcastOperation[] };

const deps = (value: JsonObject): JsonObject => ({ type: 'object', additionalProperties: value });

/** Version k of the chain at index k − 1: `{ schema, upcast? }` (what `setShape` takes, without `streams`). */
export const PACKAGE_JSON_SHAPES: readonly { schema: JsonObject; upcast?: UpcastOperation[] }[] = [
  {
    schema: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, version: { type: 'string' }, dependencies: deps({ type: 'string' }), keywords: { type: 'array', items: { type: 'string' } } },
    },
  },
  {
    schema: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, version: false, release: { type: 'object', required: ['version'], properties: { version: { type: 'string' } } }, dependencies: deps({ type: 'string' }) },
    },
    upcast: [{ op: 'move', from: '/version', path: '/release/version' }],
  },
  {
    schema: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, version: false, dependencies: deps({ type: 'object', required: ['range'], properties: { range: { type: 'string' } }, additionalProperties: false }) },
    },
    upcast: [{ op: 'each', path: '/dependencies', ops: [{ op: 'wrap', path: '', key: 'range' }] }],
  },
  {
    schema: {
      type: 'object',
      required: ['name', 'title', 'private'],
      properties: { name: { type: 'string' }, title: { type: 'string' }, version: false, private: { type: 'boolean' }, dependencies: deps({ type: 'object', required: ['range'], properties: { range: { type: 'string' } } }) },
    },
    upcast: [
      { op: 'default', path: '/private', value: false },
      { op: 'copy', from: '/name', path: '/title' },
    ],
  },
];
