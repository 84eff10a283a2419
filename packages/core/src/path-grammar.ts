/**
 * The `read_state` path grammar (DESIGN.md "Paths"; seed "Path and range model").
 *
 * ```
 * path     := [ root [ '[' uint ']' | '[' '@' tag ']' ] ] step*   unscoped paths alias current effective state
 * root     := 'effective' | 'global' | 'cwd' | 'session'
 * tag      := [A-Za-z][A-Za-z0-9_.-]*                  at most 128 characters (store README "Tags")
 * step     := '.' key | '[' uint ']' | '[' uint ':' uint ']' | '[' uint '..' uint ']'
 * key      := [A-Za-z_$][A-Za-z0-9_$-]*
 * uint     := '0' | [1-9][0-9]*                        canonical, at most Number.MAX_SAFE_INTEGER
 * ```
 *
 * An unscoped path starts with its first key without a leading dot (`lazy.plan`). Decisions
 * where the grammar is silent (README "Paths"): a range is always the last step (no
 * cross-array expressions such as `a[0:2].b`); a range needs `start <= end`; a root's
 * historical selector is a single revision, never a range.
 *
 * A root's selector may name a tag instead of a number: `cwd[@before-cleanup]` is the cwd stream
 * as of the tag's seq, `effective[@before-cleanup]` the overlay as of it. Unambiguous: `@` has no
 * other meaning in the grammar (a `[@` after a step stays a refused predicate), a tag starts
 * with a letter so it is never a number, and the bracket closes it, so `.` may appear inside.
 */
import { StateflowError } from './errors.js';
import { elidePath, quotePath } from './path-echo.js';

/** The explicit scope roots of a path. */
export type ScopeRoot = 'effective' | 'global' | 'cwd' | 'session';

/** Every scope root, in overlay order after `effective` (global → cwd → session). */
export const SCOPE_ROOTS: readonly ScopeRoot[] = ['effective', 'global', 'cwd', 'session'];

/**
 * One step of a parsed path. `column` is the 1-based column of the step's first character
 * (its `.` or `[`; 1 for the first key of an unscoped path) in the path text.
 */
export type PathStep =
  | { kind: 'key'; key: string; column: number }
  | { kind: 'index'; index: number; column: number }
  | { kind: 'range'; start: number; end: number; column: number };

/**
 * A parsed path.
 * - `text`: the path exactly as given.
 * - `root`: the explicit scope root, or `null` for an unscoped path (alias of current effective state).
 * - `at`: the historical selector of the root (`cwd[3]` → 3: the cwd stream at revision 3;
 *   `effective[12]` → 12: the effective overlay as of global transition 12), or `null` for current.
 * - `tag`: the tag the root's selector names instead (`cwd[@before-cleanup]` → `before-cleanup`:
 *   the stream as of the tag's seq), or `null`; `at` is then `null`.
 * - `steps`: members, indices and (last only) a half-open range.
 */
export interface ParsedPath {
  text: string;
  root: ScopeRoot | null;
  at: number | null;
  tag: string | null;
  steps: PathStep[];
}

/** The parts of a path that {@link formatPath} renders (a {@link ParsedPath} without `text`). */
export interface PathParts {
  root: ScopeRoot | null;
  at: number | null;
  /** A tag as the root's selector (instead of `at`); absent or `null` for none. */
  tag?: string | null;
  steps: readonly PathStep[];
}

/**
 * The longest path text {@link parsePath} accepts, in UTF-16 code units (JavaScript string
 * length): 4,096. Longer text is `PATH_SYNTAX` at column 4,097 before anything else is read.
 */
export const MAX_PATH_LENGTH = 4096;

const KEY_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const TAG_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const TAG_PART = /[A-Za-z0-9_.-]/;

/** The longest tag name, in characters. */
export const MAX_TAG_LENGTH = 128;

/** True when `name` is a tag name: `[A-Za-z][A-Za-z0-9_.-]*`, at most {@link MAX_TAG_LENGTH} characters. */
export function isTagName(name: string): boolean {
  return typeof name === 'string' && name.length <= MAX_TAG_LENGTH && TAG_PATTERN.test(name);
}
const KEY_START = /[A-Za-z_$]/;
const KEY_PART = /[A-Za-z0-9_$-]/;
const DIGIT = /[0-9]/;
const WHITESPACE = /\s/;
const KEY_RULE = 'keys match [A-Za-z_$][A-Za-z0-9_$-]*';

/** True when `key` can be written as a path member (`[A-Za-z_$][A-Za-z0-9_$-]*`). */
export function isPathKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** True when `name` is one of the {@link SCOPE_ROOTS}. */
export function isScopeRoot(name: string): name is ScopeRoot {
  return (SCOPE_ROOTS as readonly string[]).includes(name);
}

/**
 * Parses `read_state` path text.
 *
 * @example parsePath('cwd.lazy.memory[0..10]')
 * // → { text, root: 'cwd', at: null, steps: [key lazy, key memory, range 0..10] }
 * @example parsePath('session[3].lazy.investigation') // root 'session', at 3
 * @example parsePath('lazy.plan') // root null (unscoped: current effective state)
 * @example parsePath('cwd[@before-cleanup].lazy') // root 'cwd', tag 'before-cleanup'
 * @throws StateflowError `PATH_SYNTAX` with details `{ path, column }` (1-based column of the
 *   first character at fault) for empty text, whitespace, leading/trailing/double dots, keys
 *   outside the key grammar, quoted keys, negative or non-canonical integers, open-ended
 *   ranges, range steps, reversed ranges, steps after a range, wildcards, predicates, unions,
 *   a selector without a root, a range used as a root's historical selector, and text longer
 *   than {@link MAX_PATH_LENGTH} (4,096) characters (column 4,097). Messages and
 *   `details.path` repeat at most 200 characters of the text (the middle elided, see
 *   `elidePath`); `column` counts the original text.
 */
export function parsePath(text: string): ParsedPath {
  if (typeof text !== 'string') {
    throw syntaxError(String(text), 0, `a path must be a string, got ${typeof text}`);
  }
  return new PathParser(text).parse();
}

/**
 * Renders path parts as canonical text: ranges as `[a:b]`, no leading dot on an unscoped
 * first key. `parsePath(formatPath(p))` has the same root, selector and steps as `p`.
 *
 * @example formatPath({ root: 'cwd', at: null, steps: [...] }) // 'cwd.lazy.memory[0:10]'
 * @throws StateflowError `PATH_SYNTAX` (details `{ path, column }` into the text rendered so far)
 *   when the parts cannot be written: a key outside the key grammar, a negative or
 *   non-integer index, a reversed range, a step after a range, a selector without a root, or
 *   an unscoped path that does not start with a key.
 */
export function formatPath(parts: PathParts): string {
  let text = '';
  if (parts.root !== null) {
    if (!isScopeRoot(parts.root)) throw syntaxError(parts.root, 0, `"${parts.root}" is not a scope root`);
    text = parts.root;
    if (parts.at !== null) {
      assertUint(text, parts.at, 'a historical selector');
      text += `[${parts.at}]`;
    } else if (parts.tag !== undefined && parts.tag !== null) {
      if (!isTagName(parts.tag)) throw syntaxError(text, text.length, `tag ${quotePath(parts.tag)} cannot be written in a path; tags match [A-Za-z][A-Za-z0-9_.-]*`);
      text += `[@${parts.tag}]`;
    }
  } else if (parts.at !== null || (parts.tag !== undefined && parts.tag !== null)) {
    throw syntaxError(parts.at !== null ? `[${parts.at}]` : `[@${parts.tag}]`, 0, 'a historical selector needs a scope root');
  }
  parts.steps.forEach((step, n) => {
    const previous = n > 0 ? parts.steps[n - 1] : undefined;
    if (previous?.kind === 'range') throw syntaxError(text, text.length, 'a range must be the last step');
    switch (step.kind) {
      case 'key':
        if (!isPathKey(step.key)) {
          throw syntaxError(text, text.length, `key ${quotePath(step.key)} cannot be written in a path; ${KEY_RULE}`);
        }
        text += text === '' ? step.key : `.${step.key}`;
        break;
      case 'index':
        if (text === '') throw syntaxError('', 0, 'an unscoped path must start with a key');
        assertUint(text, step.index, 'an index');
        text += `[${step.index}]`;
        break;
      case 'range':
        if (text === '') throw syntaxError('', 0, 'an unscoped path must start with a key');
        assertUint(text, step.start, 'a range start');
        assertUint(text, step.end, 'a range end');
        if (step.start > step.end) {
          throw syntaxError(text, text.length, `range start ${step.start} is greater than its end ${step.end}`);
        }
        text += `[${step.start}:${step.end}]`;
        break;
    }
  });
  if (text === '') throw syntaxError('', 0, 'the path is empty');
  return text;
}

function assertUint(text: string, n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw syntaxError(text, text.length, `${what} must be a non-negative integer, got ${n}`);
  }
}

function syntaxError(path: string, offset: number, what: string): StateflowError<'PATH_SYNTAX'> {
  const column = offset + 1;
  return new StateflowError('PATH_SYNTAX', `Invalid path ${quotePath(path)} at column ${column}: ${what}.`, {
    path: elidePath(path),
    column,
  });
}

/** Explains a character that cannot continue a path. */
function unexpected(c: string, where: { inBrackets?: boolean } = {}): string {
  const { inBrackets = false } = where;
  switch (c) {
    case '*':
      return 'wildcards ("*") are not allowed; name the member or index';
    case '?':
    case '(':
    case '@':
      return 'predicates (filters) are not allowed; select a member or index';
    case ',':
    case '|':
      return 'unions are not allowed; list several paths instead';
    case '"':
    case "'":
      return 'quoted keys are not allowed; write a member as ".key"';
    case '-':
      return 'negative indices are not allowed; indices are zero-based from the start';
    case '+':
      return 'signed numbers are not allowed; write indices as plain non-negative integers such as [1]';
    case ']':
      return 'unexpected "]" without a matching "["';
    default:
      return inBrackets
        ? `character ${JSON.stringify(c)} is not allowed in brackets; indices are non-negative integers`
        : `character ${JSON.stringify(c)} is not allowed; ${KEY_RULE}`;
  }
}

class PathParser {
  private i = 0;
  private readonly steps: PathStep[] = [];

  constructor(private readonly text: string) {}

  parse(): ParsedPath {
    const { text } = this;
    if (text === '') throw this.fail(0, 'the path is empty; start with a root (effective, global, cwd, session) or a key');
    if (text.length > MAX_PATH_LENGTH) throw this.fail(MAX_PATH_LENGTH, `path is longer than ${MAX_PATH_LENGTH} characters`);
    const space = text.search(WHITESPACE);
    if (space >= 0) throw this.fail(space, 'whitespace is not allowed in a path');

    let root: ScopeRoot | null = null;
    let at: number | null = null;
    let tag: string | null = null;
    const first = text[0] as string;
    if (first === '.') throw this.fail(0, 'a path cannot start with "."; start with a root (effective, global, cwd, session) or a key');
    if (first === '[') {
      throw this.fail(0, 'a selector needs something to select from; a historical selector follows a scope root, as in cwd[3]');
    }
    const name = this.readKey();
    if (isScopeRoot(name)) {
      root = name;
      if (text[this.i] === '[' && text[this.i + 1] === '@') {
        tag = this.readTag();
      } else if (text[this.i] === '[') {
        const selector = this.readBracket();
        if (selector.kind === 'range') {
          throw this.fail(selector.column - 1, `the historical selector of "${name}" is one revision, as in ${name}[3]; ranges select array items`);
        }
        at = selector.index;
      }
    } else {
      this.steps.push({ kind: 'key', key: name, column: 1 });
    }

    while (this.i < text.length) {
      const c = text[this.i] as string;
      const last = this.steps[this.steps.length - 1];
      if (last?.kind === 'range' && (c === '.' || c === '[')) {
        throw this.fail(this.i, 'a range must be the last step; read the range, or select one item with [N] before going deeper');
      }
      if (c === '.') {
        const column = this.i + 1;
        this.i++;
        if (this.i === text.length) throw this.fail(this.i - 1, 'trailing "." with no key after it');
        const key = this.readKey();
        this.steps.push({ kind: 'key', key, column });
      } else if (c === '[') {
        this.steps.push(this.readBracket());
      } else {
        throw this.fail(this.i, unexpected(c));
      }
    }
    return { text, root, at, tag, steps: this.steps };
  }

  private fail(offset: number, what: string): StateflowError<'PATH_SYNTAX'> {
    return syntaxError(this.text, offset, what);
  }

  /** Reads a key at `this.i`; the next character must be `.`, `[` or the end. */
  private readKey(): string {
    const { text } = this;
    const start = this.i;
    const c = text[start] as string;
    if (!KEY_START.test(c)) {
      if (c === '.') throw this.fail(start, 'empty segment (".."); a key is expected between dots');
      if (DIGIT.test(c)) throw this.fail(start, `a key cannot start with a digit; select array items with [N], not ".${c}"`);
      if (c === '[') throw this.fail(start, 'a "." must be followed by a key; write an index as [N] without a dot');
      throw this.fail(start, unexpected(c));
    }
    this.i++;
    while (this.i < text.length && KEY_PART.test(text[this.i] as string)) this.i++;
    const next = text[this.i];
    if (next !== undefined && next !== '.' && next !== '[') throw this.fail(this.i, unexpected(next));
    return text.slice(start, this.i);
  }

  /** Reads `[@tag]` starting at the `[` at `this.i`. */
  private readTag(): string {
    const open = this.i;
    const start = open + 2;
    this.i = start;
    if (!/[A-Za-z]/.test(this.text[start] ?? '')) throw this.fail(start, 'a tag starts with a letter, as in cwd[@before-cleanup]');
    while (this.i < this.text.length && TAG_PART.test(this.text[this.i] as string)) this.i++;
    const close = this.text[this.i];
    if (close === undefined) throw this.fail(open, 'unclosed "["; expected "]" after the tag');
    if (close !== ']') throw this.fail(this.i, `character ${JSON.stringify(close)} is not allowed in a tag; tags match [A-Za-z][A-Za-z0-9_.-]*`);
    const tag = this.text.slice(start, this.i);
    if (tag.length > MAX_TAG_LENGTH) throw this.fail(start + MAX_TAG_LENGTH, `a tag is at most ${MAX_TAG_LENGTH} characters`);
    this.i++;
    return tag;
  }

  /** Reads `[uint]`, `[uint:uint]` or `[uint..uint]` starting at the `[` at `this.i`. */
  private readBracket(): Exclude<PathStep, { kind: 'key' }> {
    const open = this.i;
    const column = open + 1;
    this.i++;
    const start = this.readUint(open, 'start');
    const sep = this.text[this.i];
    if (sep === ']') {
      this.i++;
      return { kind: 'index', index: start, column };
    }
    let separator: string;
    if (sep === ':') separator = ':';
    else if (sep === '.' && this.text[this.i + 1] === '.') separator = '..';
    else if (sep === '.') throw this.fail(this.i, 'fractional indices are not allowed; indices are non-negative integers');
    else if (sep === undefined) throw this.fail(open, 'unclosed "["; expected "]"');
    else throw this.fail(this.i, `${unexpected(sep, { inBrackets: true })}; expected "]", ":" or ".." after ${start}`);
    this.i += separator.length;
    const end = this.readUint(open, 'end');
    const close = this.text[this.i];
    if (close === ':' || (close === '.' && this.text[this.i + 1] === '.')) {
      throw this.fail(this.i, 'range steps are not allowed; a range is [start:end]');
    }
    if (close === undefined) throw this.fail(open, 'unclosed "["; expected "]"');
    if (close !== ']') throw this.fail(this.i, `${unexpected(close, { inBrackets: true })}; expected "]" after ${end}`);
    this.i++;
    if (start > end) throw this.fail(open, `range start ${start} is greater than its end ${end}; ranges are half-open [start:end] with start <= end`);
    return { kind: 'range', start, end, column };
  }

  /** Reads a canonical non-negative integer at `this.i` (inside the bracket opened at `open`). */
  private readUint(open: number, role: 'start' | 'end'): number {
    const { text } = this;
    const first = text[this.i];
    if (first === undefined) throw this.fail(open, 'unclosed "["; expected an index');
    if (!DIGIT.test(first)) {
      if (first === ']' && role === 'start') throw this.fail(this.i, 'empty brackets; expected an index [N] or a range [start:end]');
      if (first === ':' || first === '.' || first === ']') {
        throw this.fail(this.i, `open-ended ranges are not allowed; a range needs both ends, as in [0:10]`);
      }
      if (role === 'start' && /[A-Za-z_$]/.test(first)) {
        throw this.fail(this.i, 'brackets hold indices only; select a member as ".key"');
      }
      throw this.fail(this.i, unexpected(first, { inBrackets: true }));
    }
    const start = this.i;
    while (this.i < text.length && DIGIT.test(text[this.i] as string)) this.i++;
    const digits = text.slice(start, this.i);
    if (digits.length > 1 && digits.startsWith('0')) {
      throw this.fail(start, `leading zeros are not allowed; write ${Number(digits)}`);
    }
    const value = Number(digits);
    if (!Number.isSafeInteger(value)) throw this.fail(start, `index ${digits} is too large`);
    return value;
  }
}
