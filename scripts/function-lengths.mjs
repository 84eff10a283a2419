#!/usr/bin/env node
/**
 * Lines of every function in source trees (function declarations and expressions, arrows,
 * methods, accessors, constructors), measured with the TypeScript compiler's parser: from the
 * line of the function's first token to the line of its last (the whole body, nested functions
 * included). Prints the longest first; exits 1 when one exceeds the limit. `npm run
 * check:functions` (part of `npm test`) runs it over every package's sources, tests left out
 * (`*.test.ts`, `test-support/`: a test file's describe block is a list, not a function's job).
 *
 *   node scripts/function-lengths.mjs <dir>... [--limit 80] [--top 15] [--skip-tests]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : Number(args.splice(i, 2)[1]);
};
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const limit = option('--limit', 80);
const top = option('--top', 15);
const skipTests = flag('--skip-tests');
const roots = args.length > 0 ? args : ['src'];
const isTest = (name) => /\.test\.(ts|tsx|mts)$/.test(name) || name === 'test-support';

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (skipTests && isTest(name)) continue;
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

function nameOf(node, source) {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isJsxExpression(parent) && ts.isJsxAttribute(parent.parent)) return `${parent.parent.name.getText(source)}=…`;
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

const found = [];
for (const file of roots.flatMap((root) => [...files(root)])) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: relative(process.cwd(), file), line: first + 1, name: nameOf(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
found.sort((a, b) => b.lines - a.lines);
console.log('| lines | function | where |\n| ---: | --- | --- |');
for (const f of found.slice(0, top)) console.log(`| ${f.lines} | ${f.name} | ${f.file}:${f.line} |`);
const over = found.filter((f) => f.lines > limit);
console.log(`\n${found.length} functions; ${over.length} over ${limit} lines.`);
process.exit(over.length > 0 ? 1 : 0);
