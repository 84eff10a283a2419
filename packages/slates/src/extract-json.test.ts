import { describe, expect, it } from 'vitest';
import { extractJson, extractJsonBlock, parseJsonText } from './extract-json.js';

const F = '```';

/** [description, model output, expected first JSON value or undefined]. */
const cases: Array<[string, string, unknown]> = [
  ['whole output is an object', '{"fact": "Water boils at 100C", "confidence": 0.9}', { fact: 'Water boils at 100C', confidence: 0.9 }],
  ['whole output with surrounding whitespace', '\n  {"a": 1}\n\n', { a: 1 }],
  ['whole output is an array', '[{"id": "a", "name": "Ada"}]', [{ id: 'a', name: 'Ada' }]],
  ['whole output is a number', '42', 42],
  ['prose with embedded object (seed example)', 'The answer is {"score": 4}.', { score: 4 }],
  ['fence with json tag', `Here is the result:\n${F}json\n{"verdict": "accept", "score": 5}\n${F}\nThanks!`, { verdict: 'accept', score: 5 }],
  ['fence with JSON tag in capitals', `${F}JSON\n{"ok": true}\n${F}`, { ok: true }],
  ['fence without language tag falls to balanced scan', `Result:\n${F}\n{"ok": false}\n${F}`, { ok: false }],
  ['json fence wins over earlier prose braces', `I considered {draft} first.\n${F}json\n{"final": 1}\n${F}`, { final: 1 }],
  ['non-json fence skipped for the json fence', `${F}python\nx = {"a": 1}\n${F}\n${F}json\n{"b": 2}\n${F}`, { b: 2 }],
  ['tilde fence with json tag', '~~~json\n{"t": "tilde"}\n~~~', { t: 'tilde' }],
  ['braces inside strings', 'Output: {"text": "use {curly} and [square] ]] }}", "n": 1} done', { text: 'use {curly} and [square] ]] }}', n: 1 }],
  ['escaped quotes inside strings', 'Result {"quote": "she said \\"hi {there}\\"", "k": 2} end', { quote: 'she said "hi {there}"', k: 2 }],
  ['escaped backslash before closing quote', '{"path": "C:\\\\dir\\\\"} trailing', { path: 'C:\\dir\\' }],
  ['two JSON blocks: first wins', 'Thinking: {"step": 1}\nFinal: {"step": 2}', { step: 1 }],
  ['two json fences: first wins', `${F}json\n{"n": 1}\n${F}\n${F}json\n{"n": 2}\n${F}`, { n: 1 }],
  ['array embedded in prose', 'Entities found: [{"id": "b", "name": "Bob"}, {"id": "c", "name": "Cy"}] — that is all.', [{ id: 'b', name: 'Bob' }, { id: 'c', name: 'Cy' }]],
  ['bracketed citation that is valid JSON comes first', 'See [1] and {"a": 1}', [1]],
  ['bracketed prose skipped, later object used', 'As noted [citation needed], result: {"a": 1}', { a: 1 }],
  ['nested object inside unparseable outer braces', '{draft: {"inner": true}}', { inner: true }],
  ['broken JSON (trailing comma) is not repaired', 'Result: {"a": 1,}', undefined],
  ['broken JSON (single quotes) is not repaired', "{'a': 1}", undefined],
  ['unbalanced braces', 'Result: {"a": {"b": 1}', { b: 1 }],
  ['no JSON at all', 'RECORD', undefined],
  ['plain prose answer', 'The capital of France is Paris.', undefined],
  ['empty output', '', undefined],
  ['malformed json fence then a valid balanced block', `${F}json\n{"a": }\n${F}\nFallback {"b": 2}`, { b: 2 }],
  ['mismatched closer is not a block', '[1, 2} and then {"ok": 1}', { ok: 1 }],
  ['unicode and emoji content', 'Résumé: {"name": "Zoë 🚀", "ok": true}', { name: 'Zoë 🚀', ok: true }],
  ['JSON null whole output is not a value', 'null', undefined],
  ['multi-line pretty JSON inside prose', 'Sure!\n{\n  "request": {\n    "files": ["calculus.md"]\n  }\n}\nLet me know.', { request: { files: ['calculus.md'] } }],
  ['retrieval request as whole output', '{"request": {"metatag": {"name": "tags", "contains": "calculus"}}}', { request: { metatag: { name: 'tags', contains: 'calculus' } } }],
];

describe('extractJson (seeds/ladr-reads-and-writes.txt extraction rules)', () => {
  it('covers at least 25 realistic outputs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });
  for (const [name, output, expected] of cases) {
    it(name, () => {
      expect(extractJson(output)).toEqual(expected);
    });
  }
});

describe('extractJsonBlock: the first block must be JSON by core snapshotJson', () => {
  it('a block that parses to a non-JSON value is returned as notJson (pointer and problem)', () => {
    expect(extractJsonBlock('{"a":1e999}')).toEqual({ notJson: { pointer: '/a', problem: 'Infinity is not a JSON number' } });
    expect(extractJsonBlock('x ["\\udc00"] y')).toEqual({
      notJson: { pointer: '/0', problem: 'a string with a lone surrogate is not valid Unicode text' },
    });
    const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
    expect(extractJsonBlock(deep)).toMatchObject({ notJson: { problem: 'containers are nested more than 512 levels deep' } });
  });

  it('first block wins: a later valid block does not replace a non-JSON first block', () => {
    expect(extractJsonBlock('{"a": 1e999} then {"b": 1}')).toEqual({ notJson: { pointer: '/a', problem: 'Infinity is not a JSON number' } });
  });

  it('extractJson sees a non-JSON first block as no JSON; values are deeply frozen core JSON', () => {
    expect(extractJson('{"a":1e999}')).toBeUndefined();
    const v = extractJson('ok {"a": {"b": [1, -0]}}') as { a: { b: number[] } };
    expect(v).toEqual({ a: { b: [1, 0] } });
    expect(Object.is(v.a.b[1], 0)).toBe(true);
    expect(Object.isFrozen(v.a.b)).toBe(true);
    expect(extractJsonBlock('no json here')).toBeUndefined();
  });

  it('parseJsonText reads a whole text with the same definition', () => {
    expect(parseJsonText('[1, 2]')).toEqual({ value: [1, 2] });
    expect(parseJsonText('[1e999]')).toEqual({ notJson: { pointer: '/0', problem: 'Infinity is not a JSON number' } });
    expect(parseJsonText('[1,]')).toBeUndefined();
  });
});

describe('extractJson: fenced blocks', () => {
  it('a fence closes only with the same fence, so an unclosed longer fence does not swallow a json block', () => {
    expect(extractJson('intro\n````\n```json\n{"a": 1}\n```\nprose {draft}')).toEqual({ a: 1 });
  });

  it('many unclosed openers before a json block are scanned in one pass and still find it', () => {
    const output = '```\n'.repeat(10_000).replace(/```\n$/, '') + 'text\n' + '```json\n'.repeat(20_000) + '{"found": true}\n```\n';
    // 10,000 plain fences pair up with each other; the last ```json opener's block is the first json one that closes.
    expect(extractJson(output)).toEqual({ found: true });
  });
});
