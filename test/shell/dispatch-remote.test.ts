// Network commands and package managers: their verb is read after their global options only (an option
// that is not listed may take the verb as its value), and the read-only verbs that change the environment
// or the project with more words are read as changes. Each case marked "was approved" was read-only before.
import { describe, expect, it } from "vitest";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const rw = (line: string): string => `remote_write command=${line}`;
const env = (line: string): string => `env_change command=${line}`;
const runs = (what: string): string => `unknown_effect: ${what} runs code whose effect is not known`;

const REMOTE_VERB_CASES: Case[] = [
  // A namespace or context named like a read verb (was approved).
  ["kubectl -n logs delete pod x", [rw("kubectl -n logs delete pod x")]],
  ["kubectl --context top delete ns prod", [rw("kubectl --context top delete ns prod")]],
  ["docker -H ps rm web", [rw("docker -H ps rm web")]],
  ["docker --context=logs rm web", [rw("docker --context=logs rm web")]],
  // An option that is not listed before the verb: the verb is not known (was approved).
  ["kubectl --selector get delete pods", [rw("kubectl --selector get delete pods")]],
  ["gh -x view pr merge", [rw("gh -x view pr merge")]],
  ["docker $OPT ps", [rw("docker $OPT ps")]],
  // Listed global options before a read verb still read.
  ["kubectl -n prod get pods", []],
  ["kubectl --namespace=prod logs web", []],
  ["kubectl --insecure-skip-tls-verify get pods", []],
  ["kubectl --kubeconfig k.yaml config view", []],
  ["docker -H tcp://h:2375 ps", []],
  ["docker --debug container ls", [rw("docker --debug container ls")]],
  ["docker -D container inspect web", []],
  ["docker -- ps", []],
  ["gh pr view 1", []],
  ["gh pr merge 1", [rw("gh pr merge 1")]],
  ["kubectl -n", [rw("kubectl -n")]],
];

const ENVIRONMENT_VERB_CASES: Case[] = [
  // Read-only verbs with the words that change things (each was approved).
  ["npm config set registry http://evil", [env("npm config set registry http://evil")]],
  ["npm config delete proxy", [env("npm config delete proxy")]],
  ["pip config set global.index-url http://evil", [env("pip config set global.index-url http://evil")]],
  ["conda config --add channels evil", [env("conda config --add channels evil")]],
  ["poetry config virtualenvs.in-project true", [env("poetry config virtualenvs.in-project true")]],
  ["go env -w GOPROXY=http://evil", [env("go env -w GOPROXY=http://evil")]],
  ["conda env create -f env.yml", [env("conda env create -f env.yml")]],
  ["conda env remove -n x", [env("conda env remove -n x")]],
  ["pnpm env use --global 18", [env("pnpm env use --global 18")]],
  ["npm version patch", [env("npm version patch")]],
  ["poetry version minor", [env("poetry version minor")]],
  ["go fmt ./...", [runs("go fmt")]],
  ["cargo fmt", [runs("cargo fmt")]],
  ["cargo check", [runs("cargo check")]],
  ["npm -w ls install lodash", [env("npm -w ls install lodash")]],
  ["npm --prefix view install x", [env("npm --prefix view install x")]],
  // Their reading forms still read.
  ["npm config get registry", []],
  ["npm config list", []],
  ["npm config ls --json", []],
  ["conda config --show", []],
  ["poetry config --list", []],
  ["brew config", []],
  ["go env", []],
  ["go env GOPATH GOROOT", []],
  ["go env --json", []],
  ["conda env list", []],
  ["conda env export", []],
  ["npm version", []],
  ["npm version --json", []],
  ["pip check", []],
  ["npm -g ls", []],
  ["npm ls -g --depth 0", []],
  ["npm --json outdated", []],
  ["go vet ./...", []],
  ["npm config set", [env("npm config set")]],
  ["npm config get registry --location=global", [env("npm config get registry --location=global")]],
  ["go env GOPATH -w", [env("go env GOPATH -w")]],
  ["go env $X", [env("go env $X")]],
];

describe("gh, docker, kubectl: the verb after the global options", () => {
  it.each(REMOTE_VERB_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("package managers: read-only verbs only with the words that keep them reads", () => {
  it.each(ENVIRONMENT_VERB_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
