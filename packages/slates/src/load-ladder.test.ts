import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { loadLadder, loadLadderFile, validateLadder, validateLadderFile } from './load-ladder.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-fixtures');

describe('seed examples load', () => {
  const files = readdirSync(fixtures).filter((f) => f.endsWith('.yaml'));
  it('has a fixture for every seed example', () => {
    expect(files.length).toBe(15);
  });
  for (const file of files) {
    it(file, async () => {
      expect(await validateLadderFile(path.join(fixtures, file))).toEqual([]);
      const ladder = await loadLadderFile(path.join(fixtures, file));
      expect(ladder.config.steps.length).toBeGreaterThan(0);
    });
  }
});

/** A valid base config; each rule test breaks one thing. */
function base(): any {
  return {
    name: 'rules',
    slates: [
      {
        title: 'Project Memory',
        folders: [
          {
            name: 'facts',
            tokenLimit: 100,
            metatags: [{ name: 'summary', type: 'string' }],
            files: [{ name: 'core.md', metatags: [{ name: 'score', type: 'number' }] }, { name: 'other.md' }],
          },
          { name: 'ref', tokenLimit: 100, access: 'read', files: [{ name: 'manual.md', init: 'Read me.' }] },
          { name: 'archive', tokenLimit: 100, files: [], metatags: [{ name: 'log', type: 'string[]' }] },
        ],
      },
    ],
    steps: [
      { id: 'draft', systemPrompt: 'Draft.' },
      {
        id: 'generate',
        fields: [{ name: 'Core', type: 'slateRead', from: { slate: 'Project Memory', folder: 'facts', file: 'core.md' } }],
      },
    ],
  };
}

function problemsOf(mutate: (c: any) => void): string[] {
  const c = base();
  mutate(c);
  return validateLadder(c);
}

const read = (from: object, name = 'PriorArt') => (c: any) => {
  c.steps[1].fields.push({ name, type: 'slateRead', from });
};

describe('load-time validation: slateRead (exact seed wording)', () => {
  it('base config is valid', () => {
    expect(validateLadder(base())).toEqual([]);
  });
  it.each([
    ['#80', 'op', 'contains'],
    ['#80', 'value', 'calculus'],
    ['#81', 'orderBy', 'modified'],
    ['#81', 'limit', 3],
  ])('%s "slateRead does NOT support server-side filtering (op, value, orderBy, limit)": "%s" in from is refused', (_id, key, value) => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', metatag: 'summary', [key]: value }, 'WinsIndex'))).toEqual([
      `Step "generate": slateRead field "WinsIndex" from has unknown key "${key}"; slateRead does not support server-side filtering ` +
        '(op, value, orderBy, limit): it reads these fields only; use retrieve: for dynamic filtering at runtime',
    ]);
  });
  it('non-existent slate', () => {
    const c = base();
    c.slates[0].title = 'Other';
    c.steps[1].fields[0].name = 'PriorArt';
    expect(validateLadder(c)).toEqual([
      'Step "generate": slateRead field "PriorArt" references non-existent slate "Project Memory"',
    ]);
  });
  it('non-existent folder', () => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'lesson' }, 'Lessons')))
      .toEqual(['Step "generate": slateRead field "Lessons" references non-existent folder "lesson" in slate "Project Memory"']);
  });
  it('undeclared metatag on a file', () => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'core.md', metatag: 'confidence' }, 'Confidence')))
      .toEqual(['Step "generate": slateRead field "Confidence" references undeclared metatag "confidence" on file "core.md"']);
  });
  it('file-level metatag is only in that file’s effective schema', () => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'other.md', metatag: 'score' })))
      .toEqual(['Step "generate": slateRead field "PriorArt" references undeclared metatag "score" on file "other.md"']);
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'core.md', metatag: 'score' }))).toEqual([]);
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'other.md', metatag: 'summary' }))).toEqual([]);
  });
  it('non-existent file', () => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'nope.md' })))
      .toEqual(['Step "generate": slateRead field "PriorArt" references non-existent file "nope.md" in folder "facts" of slate "Project Memory"']);
  });
  it('metatag across a folder must be in at least one file’s schema', () => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', metatag: 'tags' })))
      .toEqual(['Step "generate": slateRead field "PriorArt" references undeclared metatag "tags" in folder "facts" of slate "Project Memory"']);
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', metatag: 'score' }))).toEqual([]);
  });
  it('a folder-level metatag of a folder with no files is in no file’s schema: rule 5 is not satisfied', () => {
    const empty = (c: any) => {
      c.slates[0].folders.push({ name: 'empty', tokenLimit: 100, metatags: [{ name: 'tags', type: 'string[]' }] });
      c.steps[1].fields.push({ name: 'PriorArt', type: 'slateRead', from: { slate: 'Project Memory', folder: 'empty', metatag: 'tags' } });
    };
    expect(problemsOf(empty)).toEqual(['Step "generate": slateRead field "PriorArt" references undeclared metatag "tags" in folder "empty" of slate "Project Memory"']);
  });
  it('structural slateRead problems name the step and the field, not fields[N]', () => {
    expect(problemsOf(read({ slate: 'Project Memory', file: 'core.md' }))).toEqual(['Step "generate": slateRead field "PriorArt" from is missing required key "folder"']);
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'core.md', fle: 'x' }))).toEqual([
      'Step "generate": slateRead field "PriorArt" from has unknown key "fle"',
    ]);
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', metatag: 'tree', depth: -1 }))).toEqual([
      'Step "generate": slateRead field "PriorArt" from.depth must be >= 0',
    ]);
  });
  it('system metatags are always allowed', () => {
    for (const metatag of ['index', 'tree', 'created', 'modified', 'size']) {
      expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', metatag }))).toEqual([]);
      expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', file: 'core.md', metatag }))).toEqual([]);
    }
  });
  it('needs a file or a metatag; depth only with tree', () => {
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts' })))
      .toEqual(['Step "generate": slateRead field "PriorArt" must name a file or a metatag']);
    expect(problemsOf(read({ slate: 'Project Memory', folder: 'facts', metatag: 'index', depth: 2 })))
      .toEqual(['Step "generate": slateRead field "PriorArt" sets depth, which only applies to metatag "tree"']);
  });
});

const sw = (slateWrite: object) => (c: any) => {
  c.steps[1].slateWrite = slateWrite;
};
const match = { type: 'object', required: ['fact'], properties: { fact: { type: 'string' } } };
const to = { slate: 'Project Memory', folder: 'facts', file: 'core.md' };

describe('load-time validation: slateWrite', () => {
  it('to.slate must be declared', () => {
    expect(problemsOf(sw({ to: { ...to, slate: 'Memory' }, match })))
      .toEqual(['Step "generate": slateWrite references non-existent slate "Memory"']);
  });
  it('to.folder must be declared', () => {
    expect(problemsOf(sw({ to: { ...to, folder: 'fact' }, match })))
      .toEqual(['Step "generate": slateWrite references non-existent folder "fact" in slate "Project Memory"']);
  });
  it('mergeByKey requires key', () => {
    expect(problemsOf(sw({ to, on: 'mergeByKey', match })))
      .toEqual(['Step "generate": slateWrite on: mergeByKey requires key']);
  });
  it('key only with mergeByKey (explicit and default policy)', () => {
    expect(problemsOf(sw({ to, on: 'overwrite', key: 'id', match })))
      .toEqual(['Step "generate": slateWrite key is only valid with on: mergeByKey, not on: overwrite']);
    expect(problemsOf(sw({ to, key: 'id', match })))
      .toEqual(['Step "generate": slateWrite key is only valid with on: mergeByKey, not on: append']);
  });
  it('match must be a non-empty valid JSON Schema (ajv strict)', () => {
    expect(problemsOf(sw({ to, match: {} }))).toEqual(['Step "generate": slateWrite match must be a non-empty JSON Schema']);
    expect(problemsOf(sw({ to, match: { type: 'object', properties: { n: { type: 'number', minimun: 1 } } } })))
      .toEqual(['Step "generate": slateWrite match is not a valid JSON Schema: strict mode: unknown keyword: "minimun"']);
    expect(problemsOf(sw({ to, match: { type: 'string', format: 'emale' } })))
      .toEqual(['Step "generate": slateWrite match is not a valid JSON Schema: unknown format "emale" ignored in schema at path "#"']);
    expect(problemsOf(sw({ to, match: { type: 'strnig' } }))[0]).toMatch(/^Step "generate": slateWrite match is not a valid JSON Schema: /);
    expect(problemsOf(sw({ to, match: { type: 'string', format: 'email' } }))).toEqual([]);
  });
  it('writes to an access: read folder are rejected', () => {
    expect(problemsOf(sw({ to: { ...to, folder: 'ref', file: 'manual.md' }, match })))
      .toEqual(['Step "generate": slateWrite writes to read-only folder "ref" in slate "Project Memory"']);
  });
  it('to.metatag must be declared and not a system metatag; mergeByKey needs a json metatag', () => {
    expect(problemsOf(sw({ to: { ...to, metatag: 'confidence' }, match })))
      .toEqual(['Step "generate": slateWrite references undeclared metatag "confidence" on file "core.md"']);
    expect(problemsOf(sw({ to: { ...to, metatag: 'modified' }, match })))
      .toEqual(['Step "generate": slateWrite cannot write system metatag "modified"']);
    expect(problemsOf(sw({ to: { ...to, metatag: 'summary' }, on: 'mergeByKey', key: 'id', match })))
      .toEqual(['Step "generate": slateWrite on: mergeByKey needs a json metatag, but "summary" is string']);
  });
  it('an undeclared target file is created on write and readable', () => {
    expect(problemsOf((c) => {
      sw({ to: { ...to, file: 'latest.md' }, match })(c);
      read({ slate: 'Project Memory', folder: 'facts', file: 'latest.md', metatag: 'summary' })(c);
    })).toEqual([]);
  });
});

const gate = (g: object) => (c: any) => {
  c.steps[1].if = g;
};
const write = (w: object) => ({ write: { to, from: 'previous', on: 'append', ...w } });

describe('load-time validation: gates and gated writes', () => {
  it('to.slate and to.folder must be declared, naming the branch', () => {
    expect(problemsOf(gate({ equals: 'X', then: write({ to: { ...to, slate: 'Nope' } }), else: write({ to: { ...to, folder: 'nope' } }) })))
      .toEqual([
        'Step "generate": gated write (then) references non-existent slate "Nope"',
        'Step "generate": gated write (else) references non-existent folder "nope" in slate "Project Memory"',
      ]);
  });
  it('from must be a valid source spec', () => {
    expect(problemsOf(gate({ equals: 'X', then: write({ from: 42 }) })))
      .toEqual([
        'Step "generate": gated write (then) has an invalid from: expected previous, output, input.<key>, a literal string, { stepId, nodeRef?: current|previous|accumulate } or { stepId, node: N }, or { slate, folder, file, metatag? }',
      ]);
    expect(problemsOf(gate({ equals: 'X', then: write({ from: { stepId: 'draft', nodeRef: 'sideways' } }) })))
      .toEqual(['Step "generate": gated write (then) has an invalid from: nodeRef must be current, previous or accumulate, not "sideways"']);
    expect(problemsOf(gate({ equals: 'X', else: write({ from: { stepId: 'draft', nodeRef: 'current', node: 1 } }) })))
      .toEqual(['Step "generate": gated write (else) has an invalid from: nodeRef and node cannot both be set']);
    expect(problemsOf(gate({ equals: 'X', then: write({ from: { stepId: 'draft', node: -1 } }) })))
      .toEqual(['Step "generate": gated write (then) has an invalid from: node must be a non-negative integer, not -1']);
    expect(problemsOf(gate({ equals: 'X', then: write({ from: { slate: 'Project Memory', folder: 'facts' } }) })))
      .toEqual(['Step "generate": gated write (then) has an invalid from: a slate reference needs file (a non-empty string)']);
    expect(problemsOf(gate({ equals: 'X', then: write({ from: { stepId: 'ghost' } }) })))
      .toEqual(['Step "generate": gated write (then) references non-existent step "ghost"']);
    expect(problemsOf(gate({ equals: 'X', then: write({ from: { slate: 'Project Memory', folder: 'facts', file: 'core.md', metatag: 'nope' } }) })))
      .toEqual(['Step "generate": gated write (then) references undeclared metatag "nope" on file "core.md"']);
  });
  it('every source form is accepted', () => {
    for (const from of [
      'previous', 'output', 'Literal text to write.', { stepId: 'draft' },
      { stepId: 'draft', nodeRef: 'current' }, { stepId: 'draft', nodeRef: 'previous' },
      { stepId: 'draft', nodeRef: 'accumulate' }, { stepId: 'draft', node: 3 },
      { slate: 'Project Memory', folder: 'facts', file: 'core.md' },
      { slate: 'Project Memory', folder: 'facts', file: 'core.md', metatag: 'score' },
    ]) {
      expect(problemsOf(gate({ equals: 'X', then: write({ from }) }))).toEqual([]);
    }
  });
  it('previous after a group step is ambiguous', () => {
    expect(problemsOf((c) => {
      c.steps[0].type = 'group';
      gate({ equals: 'X', then: write({}) })(c);
    })).toEqual([
      'Step "draft": type "group" is not supported by this runtime',
      'Step "generate": gated write (then) uses from: previous after group step "draft", which is ambiguous; name a stepId',
    ]);
  });
  it('gate needs exactly one condition; actions are continue, abort or write', () => {
    expect(problemsOf(gate({ then: 'continue' }))).toEqual(['Step "generate": if needs exactly one of equals or jsonMatches']);
    expect(problemsOf(gate({ equals: 'X', jsonMatches: { type: 'object' } })))
      .toEqual(['Step "generate": if needs exactly one of equals or jsonMatches']);
    expect(problemsOf(gate({ equals: 'X', then: 'stop' })))
      .toEqual(['Step "generate": if.then must be continue, abort or { write: { to, from, on } }, not stop']);
    const { from: _absent, ...withoutFrom } = write({}).write;
    expect(problemsOf(gate({ equals: 'X', then: { write: withoutFrom } })))
      .toEqual(['Step "generate": gated write (then) needs from']);
    expect(problemsOf(gate({ equals: 'X', then: write({ on: 'prepend' }) })))
      .toEqual(['Step "generate": gated write (then) on must be append, overwrite or mergeByKey, not "prepend"']);
    expect(problemsOf(gate({ equals: 'X', then: { write: { to: { slate: 'Project Memory', folder: 'facts' }, from: 'output' } } })))
      .toEqual(['Step "generate": gated write (then) to needs file (a non-empty string)']);
  });
  it('gated writes obey the write rules (read-only, key, mergeByKey)', () => {
    expect(problemsOf(gate({ equals: 'X', then: write({ to: { ...to, folder: 'ref', file: 'manual.md' } }), else: write({ on: 'mergeByKey' }) })))
      .toEqual([
        'Step "generate": gated write (then) writes to read-only folder "ref" in slate "Project Memory"',
        'Step "generate": gated write (else) on: mergeByKey requires key',
      ]);
  });
  it('jsonMatches is compiled strictly', () => {
    expect(problemsOf(gate({ jsonMatches: { type: 'object', propertys: {} } })))
      .toEqual(['Step "generate": if.jsonMatches is not a valid JSON Schema: strict mode: unknown keyword: "propertys"']);
    expect(problemsOf(gate({ jsonMatches: {} }))).toEqual(['Step "generate": if.jsonMatches must be a non-empty JSON Schema']);
  });
});

describe('load-time validation: other rules', () => {
  it('text fields, retrieve, duplicates, exit', () => {
    expect(problemsOf((c) => {
      c.steps[1].fields.push({ name: 'Core', type: 'text', from: 'output' });
      c.steps[1].retrieve = { to: { slate: 'Project Memory', folder: 'nope' }, as: 'Core', maxRounds: 2, requestMatch: { type: 'object' } };
      c.steps.push({ id: 'draft' });
      c.exit = 'final';
      c.slates[0].folders[0].metatags.push({ name: 'index', type: 'string' }, { name: 'summary', type: 'json' });
    })).toEqual([
      'Slate "Project Memory": folder "facts": metatag "index" is a system metatag and cannot be declared',
      'Slate "Project Memory": folder "facts": metatag "summary" is declared more than once',
      'Step "generate": field "Core" is declared more than once',
      'Step "generate": text field "Core" cannot read from output: the step\'s own output does not exist before it runs',
      'Step "generate": retrieve references non-existent folder "nope" in slate "Project Memory"',
      'Step "generate": retrieve as "Core" clashes with field "Core"',
      'Step "draft" is declared more than once',
      'exit references non-existent step "final"',
    ]);
  });
  it('structure problems name the step and are reported with the reference problems', () => {
    expect(problemsOf((c) => {
      c.steps[0].slateWrite = { to, on: 'prepend', match, extra: 1 };
      c.steps[1].fields[0].from.slate = 'Nope';
      c.steps[1].nodes = 0;
      c.knobs = { temperature: 0.2 };
      c.allowedTargets = { strategy: 'universal' };
      c.bogus = true;
    })).toEqual([
      'Config: has unknown key "bogus"',
      'Step "draft": slateWrite has unknown key "extra"',
      'Step "draft": slateWrite.on must be one of append, overwrite, mergeByKey',
      'Step "generate": nodes must be >= 1',
    ]);
    expect(problemsOf((c) => {
      c.slates[0].folders[0].tokenLimit = 'lots';
      c.slates[0].folders[0].evictionPolicy = 'LIFO';
      c.slates[0].folders[0].metatags[0].type = 'date';
    })).toEqual([
      'Slate "Project Memory": folders[0].tokenLimit must be integer',
      'Slate "Project Memory": folders[0].evictionPolicy must be one of FIFO, LRU, reject',
      'Slate "Project Memory": folders[0].metatags[0].type must be one of string, number, boolean, string[], number[], json',
    ]);
  });
  it('YAML errors carry line and column; loadLadder throws CONFIG_INVALID with every problem', () => {
    expect(validateLadder('name: x\nsteps: [\n')[0]).toMatch(/^YAML: .* at line \d+, column \d+$/);
    const text = readFileSync(path.join(fixtures, 'reads-extract.yaml'), 'utf8').replace('folder: facts, file', 'folder: fact, file');
    try {
      loadLadder(text.replace('slate: "Memory"', 'slate: "Memroy"').replace('minimum: 0.7', 'minimum: 0.7, maximun: 1'));
      expect.unreachable();
    } catch (err) {
      expect(isStateflowError(err, 'CONFIG_INVALID')).toBe(true);
      const problems = (err as any).details.problems;
      expect(problems).toEqual([
        'Step "extract": slateWrite references non-existent slate "Memroy"',
        'Step "extract": slateWrite match is not a valid JSON Schema: strict mode: unknown keyword: "maximun"',
      ]);
      expect((err as Error).message).toBe(`Ladder config has 2 problems:\n${problems.join('\n')}`);
    }
  });
});
