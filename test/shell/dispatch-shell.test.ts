// `sh -c` and scripts: the command string is the first operand after the shell's own options; an operand
// before any `-c` is a script file, whose effect is not known (each "before" case was approved before).
import { describe, expect, it } from "vitest";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const SHELL_INVOCATION_CASES: Case[] = [
  // A script file runs; the `-c` after it is an argument of the script (before: judged `ls`, approved).
  ["bash ./evil.sh -c ls", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["sh x.sh -c 'echo hi'", ["unknown_effect: sh runs a script whose effect is not known"]],
  ["bash x.sh --version", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["zsh x.sh --help", ["unknown_effect: zsh runs a script whose effect is not known"]],
  ["bash -- -c 'rm a.txt'", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["bash - -c 'rm a.txt'", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["bash", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["bash -s", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["bash -x", ["unknown_effect: bash runs a script whose effect is not known"]],
  ["bash --norc x.sh", ["unknown_effect: bash runs a script whose effect is not known"]],
  // Options that take a value: the value is not the command string.
  ["bash -o posix -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash -O extglob -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash +O extglob -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash -eo pipefail -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash --rcfile ls -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash --init-file ls -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash +x -c 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  // The command string is the first operand after every option, `-c` anywhere among them.
  ["bash -c -e 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash -c -- 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  // `-` ends the options as `--` does (bash(1)): the next word is the command string.
  ["bash -c - 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash -c 'rm a.txt' name b.txt", ["fs_remove path=@/a.txt"]],
  ["bash -c 'ls' $X", []],
  ["bash -xc 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash -cx 'rm a.txt'", ["fs_remove path=@/a.txt"]],
  ["bash -c -x", ["unresolved_argument: bash -c with a string that is not known"]],
  // An unknown word before the command string may be the script itself.
  ["bash $X -c 'ls'", ["unresolved_argument: bash: an argument $X is not known"]],
  ["bash -c $X 'rm a.txt'", ["unresolved_argument: bash -c with a string that is not known"]],
  // Version and help among the options print and exit.
  ["bash --version", []],
  ["bash --help -c 'rm a.txt'", []],
  ["dash --version x.sh", []],
];

describe("sh/bash/zsh/dash: the command string after the shell's options, a script otherwise", () => {
  it.each(SHELL_INVOCATION_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// A function the line defines runs its body when called (the body is judged where it is defined): a call
// of its name is never the command or builtin of that name. Before: `:(){ :|:& };:` (a fork bomb) and
// `true(){ :; }; true` were judged as the builtins and approved read-only.
const FUNCTION_CALL_CASES: Case[] = [
  [":(){ :|:& };:", [
    "unresolved_argument: the command name : is not known: a function this line defines (`:`): what a call of it runs is not followed",
    "unresolved_argument: the command name : is not known: a function this line defines (`:`): what a call of it runs is not followed",
    "unresolved_argument: the command name : is not known: a function this line defines (`:`): what a call of it runs is not followed",
  ]],
  ["true(){ :; }; true", ["unresolved_argument: the command name true is not known: a function this line defines (`true`): what a call of it runs is not followed"]],
  ["cat() { ls; }; cat a.txt", ["unresolved_argument: the command name cat is not known: a function this line defines (`cat`): what a call of it runs is not followed"]],
  // The builtin itself, and a definition that is never called: judged as before.
  ["true(){ :; }; builtin true; command true", []],
  ["f() { ls; }", []],
  ["f() { rm a.txt; }", ["unresolved_argument: a.txt: relative to a directory that is not known (cd)"]],
];

describe("a call of a function the line defines", () => {
  it.each(FUNCTION_CALL_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
