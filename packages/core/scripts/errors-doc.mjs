// Regenerate the table of errors.md from src/error-facts.ts (after `npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import { errorTableMarkdown } from '../dist/error-facts.js';

const file = new URL('../errors.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const next = text.replace(/(<!-- error-table:begin -->\n)[\s\S]*?(\n?<!-- error-table:end -->)/, (_, begin, end) => `${begin}${errorTableMarkdown()}\n${end.trimStart()}`);
writeFileSync(file, next);
