/**
 * Sets `key` as an own enumerable data property, so that keys such as `__proto__` stay data
 * and never reach a prototype (DESIGN.md "Decisions": keys).
 */
export function defineData<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
