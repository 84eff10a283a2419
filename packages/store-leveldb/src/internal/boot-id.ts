/**
 * Which boot of the machine this process runs in (README "Durability contract": a process crash
 * and an OS crash leave different damage). Linux names each boot with a random UUID in
 * `/proc/sys/kernel/random/boot_id`; elsewhere the boot time to the minute stands in for it (a
 * clock change of over a minute then reads as a reboot, which only makes the open apply the
 * power-loss rule: never a lost synced transition). `STATEFLOW_BOOT_ID` overrides both, so crash
 * tests can write a store "before a reboot" in a child process.
 */
import { readFileSync } from 'node:fs';
import { uptime } from 'node:os';

/** This process's boot id (read at each call: a store reads it once per open). */
export function bootId(): string {
  return process.env.STATEFLOW_BOOT_ID ?? kernelBootId() ?? `boot-at-minute-${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
}

function kernelBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}
