/**
 * The one translation of Node's "module not found" for an optional package (a peer dependency
 * marked optional, loaded only when a feature needs it) into `PACKAGE_NOT_INSTALLED`, so a
 * feature whose package is absent answers a typed error that names what to install instead of
 * an `INTERNAL` failure.
 */
import { StateflowError } from './errors.js';

/** Node's message for an ESM import of a package that is not installed: `Cannot find package 'x' imported from …`. */
const CANNOT_FIND = /Cannot find package '([^']+)'/;

/**
 * `PACKAGE_NOT_INSTALLED` `{ package, feature }` when `err` is Node's failure to find a package
 * (`ERR_MODULE_NOT_FOUND` — the optional package itself, or one it needs); `undefined` for any
 * other error, which the caller rethrows as it is.
 * @param feature what needed the package, for the message (`the LangGraph steps view`)
 */
export function missingPackage(err: unknown, feature: string): StateflowError<'PACKAGE_NOT_INSTALLED'> | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const name = CANNOT_FIND.exec(err instanceof Error ? err.message : '')?.[1];
  if (name === undefined) return undefined;
  return new StateflowError(
    'PACKAGE_NOT_INSTALLED',
    `${feature} needs the package ${name}, which is not installed: npm install ${name} where Stateflow is installed.`,
    { package: name, feature },
    { cause: err },
  );
}
