import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isStateflowError } from './errors.js';
import { missingPackage } from './missing-package.js';

/** The error Node itself gives an ESM import of `specifier` (vitest's loader words it otherwise). */
function nodeImportError(specifier: string): Error {
  const script = `import(${JSON.stringify(specifier)}).catch((e) => process.stdout.write(JSON.stringify({ code: e.code, message: e.message })))`;
  const { code, message } = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { code: string; message: string };
  return Object.assign(new Error(message), { code });
}

describe('missingPackage', () => {
  it("turns Node's failure to find a package into PACKAGE_NOT_INSTALLED naming the package and the feature", () => {
    const err = missingPackage(nodeImportError('@stateflow/no-such-package/sub/path.js'), 'The LangGraph steps view');
    expect(isStateflowError(err, 'PACKAGE_NOT_INSTALLED') && err.details).toEqual({ package: '@stateflow/no-such-package', feature: 'The LangGraph steps view' });
    expect(err?.message).toBe('The LangGraph steps view needs the package @stateflow/no-such-package, which is not installed: npm install @stateflow/no-such-package where Stateflow is installed.');
    expect(missingPackage(nodeImportError('unscoped-no-such'), 'Tracing')?.details.package).toBe('unscoped-no-such');
  });

  it('leaves every other error alone', () => {
    expect(missingPackage(new Error('boom'), 'x')).toBeUndefined();
    expect(missingPackage(Object.assign(new Error("Cannot find module '/abs/file.js'"), { code: 'ERR_MODULE_NOT_FOUND' }), 'x')).toBeUndefined();
    expect(missingPackage(null, 'x')).toBeUndefined();
  });
});
