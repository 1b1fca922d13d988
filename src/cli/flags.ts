// Flag names as the commands read them. cac camel-cases a flag only where a `-` stands between two
// lower-case letters (`--audit-log` → `auditLog`), so `--tau2-src` reached a command as `tau2-src` and
// `flags.tau2Src` stayed undefined. Every option gets its full camelCase name as an alias: the parser then
// delivers the value under the key the command reads, whatever digits or dashes the flag has.
import type { CAC } from "cac";

/** `tau2-src` → `tau2Src`, `audit-log` → `auditLog`, `x--y` → `xY`: every `-` run followed by a letter or digit. */
export function flagKey(name: string): string {
  return name.replace(/-+([\p{L}\p{N}])/gu, (_, c: string) => c.toUpperCase());
}

/** Adds each option's full camelCase name to its names (after every command is registered). */
export function camelCaseFlags(cli: CAC): void {
  for (const command of [cli.globalCommand, ...cli.commands]) {
    for (const option of command.options) {
      for (const name of [...option.names]) {
        const key = flagKey(name);
        if (!option.names.includes(key)) option.names.push(key);
      }
      option.name = flagKey(option.name);
    }
  }
}
