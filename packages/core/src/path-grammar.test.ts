import { describe, expect, it } from 'vitest';
import { MAX_PATH_LENGTH, formatPath, isPathKey, parsePath } from './path-grammar.js';
import { PATH_ECHO_LIMIT, elidePath } from './path-echo.js';
import type { ParsedPath } from './path-grammar.js';
import { errorOf } from '@stateflow/test-kit';

describe('parsePath: every example path of the seed', () => {
  const cases: [string, Omit<ParsedPath, 'text'>][] = [
    ['effective.lazy', { root: 'effective', at: null, steps: [{ kind: 'key', key: 'lazy', column: 10 }] }],
    [
      'effective.tactics.nextAction',
      {
        root: 'effective',
        at: null,
        steps: [
          { kind: 'key', key: 'tactics', column: 10 },
          { kind: 'key', key: 'nextAction', column: 18 },
        ],
      },
    ],
    [
      'cwd.lazy.memory',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 4 },
          { kind: 'key', key: 'memory', column: 9 },
        ],
      },
    ],
    [
      'cwd.lazy.memory[4]',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 4 },
          { kind: 'key', key: 'memory', column: 9 },
          { kind: 'index', index: 4, column: 16 },
        ],
      },
    ],
    [
      'cwd.lazy.memory[10:20]',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 4 },
          { kind: 'key', key: 'memory', column: 9 },
          { kind: 'range', start: 10, end: 20, column: 16 },
        ],
      },
    ],
    [
      'session[3].lazy.investigation',
      {
        root: 'session',
        at: 3,
        steps: [
          { kind: 'key', key: 'lazy', column: 11 },
          { kind: 'key', key: 'investigation', column: 16 },
        ],
      },
    ],
    [
      'cwd.lazy.memory[0..10]',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 4 },
          { kind: 'key', key: 'memory', column: 9 },
          { kind: 'range', start: 0, end: 10, column: 16 },
        ],
      },
    ],
    [
      'effective.lazy.rules',
      {
        root: 'effective',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 10 },
          { kind: 'key', key: 'rules', column: 15 },
        ],
      },
    ],
    [
      'session.tactics.nextAction',
      {
        root: 'session',
        at: null,
        steps: [
          { kind: 'key', key: 'tactics', column: 8 },
          { kind: 'key', key: 'nextAction', column: 16 },
        ],
      },
    ],
    [
      'cwd[1].lazy.memory',
      {
        root: 'cwd',
        at: 1,
        steps: [
          { kind: 'key', key: 'lazy', column: 7 },
          { kind: 'key', key: 'memory', column: 12 },
        ],
      },
    ],
    [
      'cwd[3].lazy.memory',
      {
        root: 'cwd',
        at: 3,
        steps: [
          { kind: 'key', key: 'lazy', column: 7 },
          { kind: 'key', key: 'memory', column: 12 },
        ],
      },
    ],
    [
      'cwd.lazy.memory[0..3]',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 4 },
          { kind: 'key', key: 'memory', column: 9 },
          { kind: 'range', start: 0, end: 3, column: 16 },
        ],
      },
    ],
    [
      'effective.lazy.memory[7]',
      {
        root: 'effective',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 10 },
          { kind: 'key', key: 'memory', column: 15 },
          { kind: 'index', index: 7, column: 22 },
        ],
      },
    ],
    [
      'cwd.lazy.plan',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 4 },
          { kind: 'key', key: 'plan', column: 9 },
        ],
      },
    ],
    [
      'lazy.plan',
      {
        root: null,
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 1 },
          { kind: 'key', key: 'plan', column: 5 },
        ],
      },
    ],
    [
      'cwd.tactics.note',
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'key', key: 'tactics', column: 4 },
          { kind: 'key', key: 'note', column: 12 },
        ],
      },
    ],
    [
      'session.lazy.plans.x',
      {
        root: 'session',
        at: null,
        steps: [
          { kind: 'key', key: 'lazy', column: 8 },
          { kind: 'key', key: 'plans', column: 13 },
          { kind: 'key', key: 'x', column: 19 },
        ],
      },
    ],
    [
      'tactics.draft',
      {
        root: null,
        at: null,
        steps: [
          { kind: 'key', key: 'tactics', column: 1 },
          { kind: 'key', key: 'draft', column: 8 },
        ],
      },
    ],
    ['global.lazy', { root: 'global', at: null, steps: [{ kind: 'key', key: 'lazy', column: 7 }] }],
    ['session.lazy', { root: 'session', at: null, steps: [{ kind: 'key', key: 'lazy', column: 8 }] }],
    ['effective[12]', { root: 'effective', at: 12, steps: [] }],
    ['cwd', { root: 'cwd', at: null, steps: [] }],
    ['cwd[@before-cleanup].lazy', { root: 'cwd', at: null, tag: 'before-cleanup', steps: [{ kind: 'key', key: 'lazy', column: 21 }] }],
    ['effective[@burst.local.cli]', { root: 'effective', at: null, tag: 'burst.local.cli', steps: [] }],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(parsePath(text)).toEqual({ text, tag: null, ...expected });
  });

  it('gives [a..b] exactly the meaning of [a:b]', () => {
    expect(parsePath('cwd.lazy.memory[0..10]').steps).toEqual(parsePath('cwd.lazy.memory[0:10]').steps);
    expect(parsePath('x[3..3]').steps).toEqual(parsePath('x[3:3]').steps);
  });

  it('accepts the whole key grammar, including $, _, - and prototype-like keys', () => {
    expect(parsePath('$ref._a-b.$x9.__proto__.constructor.prototype').steps.map((s) => (s.kind === 'key' ? s.key : '')))
      .toEqual(['$ref', '_a-b', '$x9', '__proto__', 'constructor', 'prototype']);
  });

  it('reads a root name in a deeper position as an ordinary key, and a root-like prefix as a key', () => {
    expect(parsePath('cwd.lazy.session')).toMatchObject({ root: 'cwd', steps: [{ key: 'lazy' }, { key: 'session' }] });
    expect(parsePath('cwdx.y')).toMatchObject({ root: null, steps: [{ key: 'cwdx' }, { key: 'y' }] });
    expect(parsePath('effective-2')).toMatchObject({ root: null, steps: [{ key: 'effective-2' }] });
  });

  it('parses nested indices, zero and the largest safe index', () => {
    expect(parsePath('a[0][9007199254740991]').steps).toEqual([
      { kind: 'key', key: 'a', column: 1 },
      { kind: 'index', index: 0, column: 2 },
      { kind: 'index', index: 9007199254740991, column: 5 },
    ]);
    expect(parsePath('cwd[0]')).toMatchObject({ root: 'cwd', at: 0, steps: [] });
  });
});

describe('parsePath: malformed paths fail with PATH_SYNTAX at the column at fault', () => {
  const cases: [string, number, RegExp][] = [
    ['cwd[@]', 6, /tag starts with a letter/],
    ['cwd[@1x]', 6, /tag starts with a letter/],
    ['cwd[@a b]', 7, /whitespace/],
    ['cwd[@a/b]', 7, /not allowed in a tag/],
    ['cwd[@abc', 4, /unclosed/],
    ['cwd.lazy[@a]', 10, /predicates/],
    ['lazy[@a]', 6, /predicates/],
    [`cwd[@${'a'.repeat(129)}]`, 134, /at most 128/],
    ['', 1, /empty/],
    ['.lazy', 1, /cannot start with "\."/],
    ['cwd.', 4, /trailing "\."/],
    ['cwd.lazy.', 9, /trailing "\."/],
    ['cwd..lazy', 5, /empty segment/],
    ['cwd.lazy memory', 9, /whitespace/],
    [' cwd', 1, /whitespace/],
    ['cwd.lazy.memory[ 1]', 17, /whitespace/],
    ['cwd.lazy.memory[-1]', 17, /negative/],
    ['cwd.lazy.memory[0:-1]', 19, /negative/],
    ['cwd.lazy.memory[:10]', 17, /open-ended/],
    ['cwd.lazy.memory[10:]', 20, /open-ended/],
    ['cwd.lazy.memory[..10]', 17, /open-ended/],
    ['cwd.lazy.memory[10..]', 21, /open-ended/],
    ['cwd.lazy.memory[0:10:2]', 21, /steps are not allowed/],
    ['cwd.lazy.memory[0..10..2]', 22, /steps are not allowed/],
    ['cwd.lazy.memory[?(@.a)]', 17, /predicates/],
    ['cwd.lazy.memory[*]', 17, /wildcards/],
    ['cwd.lazy.*', 10, /wildcards/],
    ['cwd.lazy*', 9, /wildcards/],
    ['cwd.lazy.memory[0,1]', 18, /unions/],
    ['cwd.lazy|session.lazy', 9, /unions/],
    ['cwd.lazy.1abc', 10, /cannot start with a digit/],
    ['cwd.lazy.café', 13, /"é" is not allowed/],
    ['cwd.lazy.a/b', 11, /"\/" is not allowed/],
    ['cwd.lazy["plan"]', 10, /quoted keys/],
    ["cwd.lazy['plan']", 10, /quoted keys/],
    ['cwd.lazy[plan]', 10, /indices only/],
    ['cwd.lazy.memory[01]', 17, /leading zeros/],
    ['cwd.lazy.memory[+1]', 17, /signed/],
    ['cwd.lazy.memory[1.0]', 18, /fractional/],
    ['cwd.lazy.memory[1e3]', 18, /"e" is not allowed in brackets/],
    ['cwd.lazy.memory[]', 17, /empty brackets/],
    ['cwd.lazy.memory[3', 16, /unclosed/],
    ['cwd.lazy.memory[3:5', 16, /unclosed/],
    ['cwd.lazy.memory[', 16, /unclosed/],
    ['cwd.lazy.memory]', 16, /without a matching/],
    ['cwd.lazy.memory[5:3]', 16, /greater than its end/],
    ['cwd.lazy.memory[0:2].text', 21, /range must be the last step/],
    ['cwd.lazy.memory[0:2][1]', 21, /range must be the last step/],
    ['cwd.lazy.memory[99999999999999999999]', 17, /too large/],
    ['cwd.lazy.[0]', 10, /"\." must be followed by a key/],
    ['[3].lazy', 1, /historical selector follows a scope root/],
    ['cwd[1:2].lazy', 4, /historical selector of "cwd" is one revision/],
    ['effective[0..2]', 10, /historical selector of "effective" is one revision/],
    ['cwd[-1].lazy', 5, /negative/],
    ['cwd.lazy.plan ', 14, /whitespace/],
    ['cwd.lazy.plan\n', 14, /whitespace/],
  ];
  it.each(cases)('%j → column %i', (text, column, message) => {
    const err = errorOf(() => parsePath(text));
    expect(err.code).toBe('PATH_SYNTAX');
    expect(err.details).toEqual({ path: text, column });
    expect(err.message).toMatch(message);
    expect(err.message).toContain(`at column ${column}:`);
  });

  it('covers at least 30 malformed paths', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it('says what is wrong and where in the message', () => {
    expect(errorOf(() => parsePath('cwd.lazy.memory[-1]')).message).toBe(
      'Invalid path "cwd.lazy.memory[-1]" at column 17: negative indices are not allowed; indices are zero-based from the start.',
    );
  });

  it('rejects a non-string path', () => {
    const err = errorOf(() => parsePath(42 as unknown as string));
    expect(err.code).toBe('PATH_SYNTAX');
    expect(err.details).toEqual({ path: '42', column: 1 });
  });
});

describe('formatPath', () => {
  it.each([
    'effective.lazy',
    'cwd[3].lazy.memory',
    'session[3].lazy.investigation',
    'cwd.lazy.memory[10:20]',
    'lazy.plan',
    'effective[12]',
    'a[0][1].b',
    'cwd[@before-cleanup].lazy',
  ])('round-trips %s', (text) => {
    expect(formatPath(parsePath(text))).toBe(text);
  });

  it('writes ranges canonically with ":"', () => {
    expect(formatPath(parsePath('cwd.lazy.memory[0..10]'))).toBe('cwd.lazy.memory[0:10]');
  });

  it('refuses parts that cannot be written as a path', () => {
    const bad = [
      { root: null, at: null, steps: [] },
      { root: null, at: 3, steps: [{ kind: 'key', key: 'a', column: 1 }] },
      { root: 'cwd', at: null, steps: [{ kind: 'key', key: 'has space', column: 0 }] },
      { root: 'cwd', at: null, steps: [{ kind: 'key', key: 'a.b', column: 0 }] },
      { root: 'cwd', at: -1, steps: [] },
      { root: 'cwd', at: null, steps: [{ kind: 'index', index: 1.5, column: 0 }] },
      { root: 'cwd', at: null, steps: [{ kind: 'range', start: 3, end: 2, column: 0 }] },
      {
        root: 'cwd',
        at: null,
        steps: [
          { kind: 'range', start: 0, end: 2, column: 0 },
          { kind: 'index', index: 0, column: 0 },
        ],
      },
      { root: null, at: null, steps: [{ kind: 'index', index: 0, column: 0 }] },
    ] as const;
    for (const parts of bad) {
      expect(() => formatPath(parts as never), JSON.stringify(parts)).toThrow(
        expect.objectContaining({ code: 'PATH_SYNTAX' }),
      );
    }
  });

  it('reports the column of the unwritable key in the text rendered so far', () => {
    const err = errorOf(() => formatPath({ root: 'cwd', at: null, steps: [{ kind: 'key', key: 'lazy', column: 4 }, { kind: 'key', key: 'x y', column: 9 }] }));
    expect(err.details).toEqual({ path: 'cwd.lazy', column: 9 });
  });
});

describe('isPathKey', () => {
  it('follows [A-Za-z_$][A-Za-z0-9_$-]*', () => {
    expect(['a', '_', '$', 'a-b', 'A9', '__proto__'].every(isPathKey)).toBe(true);
    expect(['', '1a', '-a', 'a b', 'a.b', 'é', '[0]'].some(isPathKey)).toBe(false);
  });
});

describe('parsePath: path length and bounded echo', () => {
  it('accepts exactly 4096 characters and rejects 4097 at column 4097', () => {
    const longest = `cwd.${'a'.repeat(MAX_PATH_LENGTH - 4)}`;
    expect(parsePath(longest).steps).toHaveLength(1);
    const err = errorOf(() => parsePath(`${longest}b`));
    expect(err.code).toBe('PATH_SYNTAX');
    expect(err.details).toEqual({ path: elidePath(`${longest}b`), column: 4097 });
    expect(err.message).toBe(`Invalid path ${JSON.stringify(elidePath(`${longest}b`))} at column 4097: path is longer than 4096 characters.`);
  });

  it('a 1 MB path answers with a message and details of bounded size', () => {
    const huge = `cwd.lazy.${'x'.repeat(1_000_000)}`;
    const err = errorOf(() => parsePath(huge));
    expect(err.details.column).toBe(MAX_PATH_LENGTH + 1);
    expect((err.details.path as string).length).toBe(PATH_ECHO_LIMIT);
    expect(err.message.length).toBeLessThan(PATH_ECHO_LIMIT + 100);
    expect(err.message.startsWith('Invalid path "cwd.lazy.xxx')).toBe(true);
  });

  it('a long path with a fault near its end echoes its head and tail, the column counts the original text', () => {
    const text = `cwd.${'k'.repeat(3000)}.bad*`;
    const err = errorOf(() => parsePath(text));
    expect(err.details.column).toBe(text.length);
    const shown = err.details.path as string;
    expect(shown).toHaveLength(PATH_ECHO_LIMIT);
    expect(shown.startsWith('cwd.kkk')).toBe(true);
    expect(shown.endsWith('kkk.bad*')).toBe(true);
    expect(shown).toContain('…');
    expect(err.message).toBe(`Invalid path ${JSON.stringify(shown)} at column ${text.length}: wildcards ("*") are not allowed; name the member or index.`);
  });

  it('short paths are echoed unchanged', () => {
    expect(errorOf(() => parsePath('cwd.*')).details).toEqual({ path: 'cwd.*', column: 5 });
    expect(elidePath('a'.repeat(PATH_ECHO_LIMIT))).toBe('a'.repeat(PATH_ECHO_LIMIT));
  });
});
