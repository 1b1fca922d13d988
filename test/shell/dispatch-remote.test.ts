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
  // Another kubeconfig may name an exec credential plugin that kubectl runs (was approved as a read).
  ["kubectl --kubeconfig k.yaml get pods", ["unknown_effect: kubectl --kubeconfig: the file's exec credential plugin may run a command"]],
  ["kubectl get pods --kubeconfig=k.yaml", ["unknown_effect: kubectl --kubeconfig: the file's exec credential plugin may run a command"]],
  ["docker -H tcp://h:2375 ps", []],
  ["docker --debug container ls", [rw("docker --debug container ls")]],
  ["docker -D container inspect web", []],
  ["docker -- ps", []],
  ["gh pr view 1", []],
  ["gh pr merge 1", [rw("gh pr merge 1")]],
  ["kubectl -n", [rw("kubectl -n")]],
  // `--help`/`--version` print only among the command's own words: after an operand they may be an
  // argument of what it runs (was approved: the container's sh removes the mounted work tree).
  [`docker run -v "$PWD":/w alpine sh -c 'rm -rf /w/src' --help`, [rw(`docker run -v "$PWD":/w alpine sh -c 'rm -rf /w/src' --help`)]],
  ["docker run alpine rm -rf /w --version", [rw("docker run alpine rm -rf /w --version")]],
  ["docker container run alpine --help", [rw("docker container run alpine --help")]],
  ["kubectl exec pod -- sh -c 'rm -rf /data' --help", [rw("kubectl exec pod -- sh -c 'rm -rf /data' --help")]],
  ["kubectl -n ns delete pod x --help", [rw("kubectl -n ns delete pod x --help")]],
  ["gh pr create x --help", [rw("gh pr create x --help")]],
  ["docker $X --help", [rw("docker $X --help")]],
  ["docker --help", []],
  // `docker --config DIR` (as DOCKER_CONFIG=DIR): plugins and credential helpers its config.json names
  // run (`docker info` runs every plugin it finds; was approved as a read).
  ["docker --config ./cfg info", ["unknown_effect: docker --config: the folder's config.json may name plugins or credential helpers docker runs"]],
  ["docker -H h --config=./cfg ps", ["unknown_effect: docker --config: the folder's config.json may name plugins or credential helpers docker runs"]],
  ["docker run --config x alpine", [rw("docker run --config x alpine")]],
  ["kubectl --version", []],
  ["docker run --help", []],
  ["docker -H h run --rm --help", []],
  ["docker container run --help", []],
  ["gh pr create --help", []],
  ["kubectl -n ns delete --help", []],
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
  // `yarn` alone is `yarn install` (was approved as printing help).
  ["yarn", [env("yarn")]],
  ["yarn --version", []],
  ["pnpm", []],
  ["npm config set", [env("npm config set")]],
  ["npm config get registry --location=global", [env("npm config get registry --location=global")]],
  ["go env GOPATH -w", [env("go env GOPATH -w")]],
  ["go env $X", [env("go env $X")]],
  // go's build flags that run a program (were approved as reads).
  ["go vet -vettool=./x ./...", [runs("go vet")]],
  // `-mod=mod` lets go update go.mod and go.sum (was approved as a read).
  ["go list -mod=mod ./...", [env("go list -mod=mod ./...")]],
  ["go vet --mod mod ./...", [env("go vet --mod mod ./...")]],
  ["go list -mod=readonly -mod vendor ./...", []],
  ["go vet -toolexec ./x ./...", [runs("go vet")]],
  ["go list --toolexec=./x -export ./...", [runs("go list")]],
  ["go list -json ./...", []],
  ["GOFLAGS=-toolexec=./x go vet ./...", ["unknown_effect: go: GOFLAGS changes the code or configuration it loads"]],
  // A verb that is not the tool's own runs an external program or a package script of that name
  // (were approved as reads): cargo-vet, .cargo/config.toml's aliases, package.json's scripts, brew-x.
  ["cargo vet certify", [runs("cargo vet")]],
  ["cargo why x", [runs("cargo why")]],
  ["cargo search serde", []],
  ["cargo info serde", []],
  ["yarn doctor", [runs("yarn doctor")]],
  ["yarn show x", [runs("yarn show")]],
  ["yarn version", [runs("yarn version")]],
  ["yarn why x", []],
  ["yarn list --depth=0", []],
  ["pnpm show x", [runs("pnpm show")]],
  ["pnpm ls", []],
  ["brew whoami", [runs("brew whoami")]],
  ["brew list", []],
  ["npm doctor", []],
  // `pnpm audit --fix` writes overrides into package.json (was approved as a read).
  ["pnpm audit --fix", [env("pnpm audit --fix")]],
  ["pnpm audit --json", []],
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

// curl and wget: every file they write, under their output directory; downloads whose names the
// dispatcher cannot give, and options from a file, are asked. Each was judged as one file in the
// working directory, or not at all (`curl -o a U1 -o b U2` kept only b; `wget -P out U` wrote ./U's name).
const DOWNLOAD_CASES: Case[] = [
  ["curl -o a.txt https://x.test/1 -o b.txt https://x.test/2", ["fs_write path=@/a.txt", "fs_write path=@/b.txt"]],
  ["curl --output-dir out -o f https://x.test/1", ["fs_write path=@/out/f"]],
  ["curl --output-dir out -O https://x.test/f.tgz", ["fs_write path=@/out/f.tgz"]],
  ["curl -O https://x.test/a.tgz -O https://x.test/b.tgz", ["fs_write path=@/a.tgz", "fs_write path=@/b.tgz"]],
  ["curl --remote-name-all https://x.test/a https://x.test/b", ["fs_write path=@/a", "fs_write path=@/b"]],
  ["curl -O -x proxy:8080 https://x.test/f.tgz", ["fs_write path=@/f.tgz"]],
  ["curl -OJ https://x.test/get", ["unknown_effect: curl -J: reads options or writes files the dispatcher cannot name"]],
  ["curl -K opts.cfg https://x.test/", ["unknown_effect: curl -K: reads options or writes files the dispatcher cannot name"]],
  ["curl --libcurl code.c https://x.test/", ["fs_write path=@/code.c"]],
  ["curl -o - https://x.test/", []],
  ["curl https://x.test/", []],
  // `-w '%output{FILE}'` writes to FILE, `-w @FILE` reads the format from FILE (was approved as a read).
  ["curl -w '%output{a.txt}%{http_code}' https://x.test/", ["unknown_effect: curl '%output{a.txt}%{http_code}': a write-out format that may write a file the dispatcher does not name"]],
  ["curl --write-out=@fmt.txt https://x.test/", ["unknown_effect: curl --write-out=@fmt.txt: a write-out format that may write a file the dispatcher does not name"]],
  ["curl -sw \"$F\" https://x.test/", ["unknown_effect: curl \"$F\": a write-out format that may write a file the dispatcher does not name"]],
  ["curl -sw '%{http_code}' https://x.test/", []],
  // curl and wget take a unique prefix of a long option (checked: curl says `--ver` is ambiguous, wget
  // writes F for `--output-d=F`): each was approved as a read (a POST, a file written).
  ["curl --data-r x https://x.test/", ["unresolved_argument: curl --data-r: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["curl --wri '%output{a.txt}' https://x.test/", ["unresolved_argument: curl --wri: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["wget --output-d=a.txt https://x.test/", ["unresolved_argument: wget --output-d=a.txt: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["curl --head https://x.test/", []],
  ["curl --cookie c.txt -sSL --retry 3 https://x.test/", []],
  ["curl --write-out '%{http_code}' -o a.txt https://x.test/", ["fs_write path=@/a.txt"]],
  ["wget -P out https://x.test/f.tgz", ["fs_write path=@/out/f.tgz"]],
  // wget's -O ignores -P (wget 1.21: `wget -P out -O a.txt U` writes ./a.txt; was judged as out/a.txt, a
  // new file, while a.txt was overwritten); curl's --output-dir holds -o's files.
  ["wget -P out -O a.txt https://x.test/f", ["fs_write path=@/a.txt"]],
  ["wget --directory-prefix=out --output-document=b.txt https://x.test/f", ["fs_write path=@/b.txt"]],
  ["wget --directory-prefix=out https://x.test/", ["fs_write path=@/out/index.html"]],
  ["wget https://x.test/a.tgz https://x.test/b.tgz", ["fs_write path=@/a.tgz", "fs_write path=@/b.tgz"]],
  ["wget x.test/f.tgz", ["fs_write path=@/f.tgz"]],
  ["wget -O a.txt -O b.txt https://x.test/", ["fs_write path=@/a.txt", "fs_write path=@/b.txt"]],
  ["wget -r https://x.test/", ["unknown_effect: wget -r: reads options or writes files the dispatcher cannot name"]],
  // Each option of that kind, by its other name too (recursive, mirrored, server-named downloads; options from a file).
  ["curl --config c.cfg https://x.test/", ["unknown_effect: curl --config: reads options or writes files the dispatcher cannot name"]],
  ["curl --remote-header-name -O https://x.test/get", ["unknown_effect: curl --remote-header-name: reads options or writes files the dispatcher cannot name"]],
  ["wget --execute robots=off https://x.test/", ["unknown_effect: wget --execute: reads options or writes files the dispatcher cannot name"]],
  ["wget --config w.rc https://x.test/", ["unknown_effect: wget --config: reads options or writes files the dispatcher cannot name"]],
  ["wget --recursive https://x.test/", ["unknown_effect: wget --recursive: reads options or writes files the dispatcher cannot name"]],
  ["wget -m https://x.test/", ["unknown_effect: wget -m: reads options or writes files the dispatcher cannot name"]],
  ["wget -p https://x.test/", ["unknown_effect: wget -p: reads options or writes files the dispatcher cannot name"]],
  ["wget --page-requisites https://x.test/", ["unknown_effect: wget --page-requisites: reads options or writes files the dispatcher cannot name"]],
  ["wget -x https://x.test/f", ["unknown_effect: wget -x: reads options or writes files the dispatcher cannot name"]],
  ["wget --force-directories https://x.test/f", ["unknown_effect: wget --force-directories: reads options or writes files the dispatcher cannot name"]],
  ["wget --trust-server-names https://x.test/f", ["unknown_effect: wget --trust-server-names: reads options or writes files the dispatcher cannot name"]],
  ["wget --input-file=urls.txt", ["unknown_effect: wget --input-file: reads options or writes files the dispatcher cannot name"]],
  ["wget --mirror https://x.test/", ["unknown_effect: wget --mirror: reads options or writes files the dispatcher cannot name"]],
  ["wget --content-disposition https://x.test/get", ["unknown_effect: wget --content-disposition: reads options or writes files the dispatcher cannot name"]],
  ["wget -i urls.txt", ["unknown_effect: wget -i: reads options or writes files the dispatcher cannot name"]],
  ["wget -e robots=off https://x.test/", ["unknown_effect: wget -e: reads options or writes files the dispatcher cannot name"]],
  ["wget --save-cookies c.txt -O - https://x.test/", ["fs_write path=@/c.txt"]],
  ["wget -P $D https://x.test/f", ["unresolved_argument: $D: unset or unknown variable $D"]],
  ["wget https://x.test/f $U", ["unresolved_argument: wget: the file it writes is not known"]],
];

// Every option of curl and wget that takes a value takes the next word (a URL there is not downloaded);
// wget's -T is its timeout, not curl's upload (`wget -T 10 U` was asked as sending data).
const VALUE_OPTION_CASES: Case[] = [
  ["curl -H https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl --header https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl -u https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl --user https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl -A https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl -e https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl -m https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl --max-time https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl --connect-timeout https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl --retry https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl -w https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl --write-out https://v.test/v -O https://x.test/f", ["fs_write path=@/f"]],
  ["curl -X https://v.test/v -O https://x.test/f", ["remote_write command=curl -X https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --request https://v.test/v -O https://x.test/f", ["remote_write command=curl --request https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl -d https://v.test/v -O https://x.test/f", ["remote_write command=curl -d https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --data https://v.test/v -O https://x.test/f", ["remote_write command=curl --data https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --data-raw https://v.test/v -O https://x.test/f", ["remote_write command=curl --data-raw https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --data-binary https://v.test/v -O https://x.test/f", ["remote_write command=curl --data-binary https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl -F https://v.test/v -O https://x.test/f", ["remote_write command=curl -F https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --form https://v.test/v -O https://x.test/f", ["remote_write command=curl --form https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl -T https://v.test/v -O https://x.test/f", ["remote_write command=curl -T https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --upload-file https://v.test/v -O https://x.test/f", ["remote_write command=curl --upload-file https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["curl --json https://v.test/v -O https://x.test/f", ["remote_write command=curl --json https://v.test/v -O https://x.test/f","fs_write path=@/f"]],
  ["wget -U https://v.test/v https://x.test/f", ["fs_write path=@/f"]],
  ["wget -t https://v.test/v https://x.test/f", ["fs_write path=@/f"]],
  ["wget -T https://v.test/v https://x.test/f", ["fs_write path=@/f"]],
  ["wget --header https://v.test/v https://x.test/f", ["fs_write path=@/f"]],
  ["wget --method https://v.test/v https://x.test/f", ["remote_write command=wget --method https://v.test/v https://x.test/f","fs_write path=@/f"]],
  ["wget --post-data https://v.test/v https://x.test/f", ["remote_write command=wget --post-data https://v.test/v https://x.test/f","fs_write path=@/f"]],
  ["wget --post-file https://v.test/v https://x.test/f", ["remote_write command=wget --post-file https://v.test/v https://x.test/f","fs_write path=@/f"]],
];

describe("curl and wget: an option's value is not a URL they download", () => {
  it.each(VALUE_OPTION_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("curl and wget: every file they write, under their output directory", () => {
  it.each(DOWNLOAD_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// The name wget saves under when it is not the URL's last segment (checked with wget 1.21 against a local
// server): `-E` adds .html after the content type, `--default-page` names a URL ending in `/`, a query is
// kept (`a?q=1`), %-escapes are decoded (`a%20b` is `a b`), and a taken name gets the next number
// (`a.txt.1`). Each was approved as writing the URL's last segment (undo: remove it or put it back),
// which left the file wget wrote. Every operand is a URL, with a scheme or without.
const WGET_NAME_CASES: Case[] = [
  ["wget -E https://x.test/a", ["unknown_effect: wget -E: reads options or writes files the dispatcher cannot name"]],
  ["wget -qE https://x.test/a", ["unknown_effect: wget -E: reads options or writes files the dispatcher cannot name"]],
  ["wget --adjust-extension https://x.test/a", ["unknown_effect: wget --adjust-extension: reads options or writes files the dispatcher cannot name"]],
  ["wget --html-extension https://x.test/a", ["unknown_effect: wget --html-extension: reads options or writes files the dispatcher cannot name"]],
  ["wget --adjust-ext https://x.test/a", ["unresolved_argument: wget --adjust-ext: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["wget --default-page=i.htm https://x.test/", ["unknown_effect: wget --default-page: reads options or writes files the dispatcher cannot name"]],
  ["wget --restrict-file-names=ascii https://x.test/a", ["unknown_effect: wget --restrict-file-names: reads options or writes files the dispatcher cannot name"]],
  ["wget --backups=1 -O a.txt https://x.test/", ["unknown_effect: wget --backups: reads options or writes files the dispatcher cannot name"]],
  ["wget 'https://x.test/a?q=1'", ["unresolved_argument: wget: https://x.test/a?q=1: it saves under a name with the query, escaped its own way (write -O FILE)"]],
  ["wget https://x.test/a%20b", ["unresolved_argument: wget: https://x.test/a%20b: it saves under the name with its %-escapes decoded (write -O FILE)"]],
  ["wget https://x.test/a.txt", ["unresolved_argument: wget: @/a.txt is taken: it saves under @/a.txt.1 or the next free number (write -O FILE)"]],
  ["wget -P src https://x.test/x.ts", ["unresolved_argument: wget: @/src/x.ts is taken: it saves under @/src/x.ts.1 or the next free number (write -O FILE)"]],
  ["wget https://x.test/n https://y.test/n", ["unresolved_argument: wget: @/n is taken: it saves under @/n.1 or the next free number (write -O FILE)"]],
  ["wget x.test/n y.test/m", ["fs_write path=@/n", "fs_write path=@/m"]],
  ["wget x.test/n https://y.test/m", ["fs_write path=@/n", "fs_write path=@/m"]],
  // -N, -nc and -c say what happens to a file that is there: it keeps its name.
  ["wget -N https://x.test/a.txt", ["fs_write path=@/a.txt"]],
  ["wget -c https://x.test/a.txt", ["fs_write path=@/a.txt"]],
  ["wget -O a.txt https://x.test/a.txt", ["fs_write path=@/a.txt"]],
  ["wget -nd https://x.test/n#part", ["fs_write path=@/n"]],
  ["curl -O 'https://x.test/a?q=1'", ["fs_write path=@/a"]],
  // curl --no-clobber saves beside a file that is there (a.txt.1); --create-dirs makes the output's folders.
  ["curl --no-clobber -o a.txt https://x.test/a", ["unknown_effect: curl --no-clobber: reads options or writes files the dispatcher cannot name"]],
  ["curl --create-dirs -o n/m/f https://x.test/a", ["unknown_effect: curl --create-dirs: reads options or writes files the dispatcher cannot name"]],
  ["curl --no-clob -O https://x.test/a", ["unresolved_argument: curl --no-clob: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
];

describe("wget (and curl --no-clobber): a name it saves under that is not the URL's last segment is not known", () => {
  it.each(WGET_NAME_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

// scp and rsync: a program run locally for the transfer, sources removed, files named elsewhere (each
// was judged as writing the destination only).
const TRANSFER_CASES: Case[] = [
  ["scp -o ProxyCommand='rm a.txt' h:f .", ["unknown_effect: scp -o: runs a program or changes files the dispatcher cannot name"]],
  ["scp -S ./x h:f out", ["unknown_effect: scp -S: runs a program or changes files the dispatcher cannot name"]],
  ["scp -F cfg h:f out", ["unknown_effect: scp -F: runs a program or changes files the dispatcher cannot name"]],
  ["rsync -e 'rm a.txt' a.txt h:b", ["unknown_effect: rsync -e: runs a program or changes files the dispatcher cannot name"]],
  ["rsync --rsh=./x a.txt h:b", ["unknown_effect: rsync --rsh: runs a program or changes files the dispatcher cannot name"]],
  ["rsync --remove-source-files a.txt out", ["unknown_effect: rsync --remove-source-files: runs a program or changes files the dispatcher cannot name"]],
  ["rsync --files-from=list . out", ["unknown_effect: rsync --files-from: runs a program or changes files the dispatcher cannot name"]],
  ["rsync --log-file=log a.txt out", ["unknown_effect: rsync --log-file: runs a program or changes files the dispatcher cannot name"]],
  // rsync's older name of --remove-source-files and its own --del (--delete-during) (were approved).
  ["rsync --remove-sent-files a.txt out", ["unknown_effect: rsync --remove-sent-files: runs a program or changes files the dispatcher cannot name"]],
  ["rsync -a --del src/ out/", ["unknown_effect: rsync --delete removes files the dispatcher cannot list"]],
  ["rsync -av a.txt out", ["fs_write path=@/out"]],
  ["scp a.txt h:b", ["remote_write command=scp a.txt h:b"]],
  ["scp -P 22 h:f out", ["fs_write path=@/out"]],
  // scp writes through a link to a file (was judged as writing the link: approved with an undo that put
  // the link back while its target's uncommitted work was lost); rsync replaces the link itself.
  ["scp h:f link", ["fs_write path=@/a.txt"]],
  ["rsync h:f link", ["fs_write path=@/link"]],
];

// What the remote() range's run showed unstated (7 Dec): the verb after `--`, a short option written with
// `=` (not read: asked), a node named like a read verb, a file:// URL's name, operands that are not URLs,
// rsync's batch and backup files, a directory not known, `--help` after `--`, yarn with an option only,
// `go env` with a word that is not a variable, a trailing `-mod`, `fix` as an operand of another verb.
const REMOTE_RANGE_CASES: Case[] = [
  ["docker -- ps -a", []],
  ["docker -H=tcp://h ps", ["remote_write command=docker -H=tcp://h ps"]],
  ["kubectl cordon top", ["remote_write command=kubectl cordon top"]],
  ["curl -O file:///tmp/f.txt", ["fs_write path=@/f.txt"]],
  // wget takes every operand as a URL, with a scheme or without: notaurl is http://notaurl/ (index.html).
  ["wget https://x.test/a.tgz notaurl", ["fs_write path=@/a.tgz", "fs_write path=@/index.html"]],
  ["wget $U https://x.test/f", ["unresolved_argument: wget: the file it writes is not known"]],
  ["rsync --write-batch=b a.txt out", ["unknown_effect: rsync --write-batch: runs a program or changes files the dispatcher cannot name"]],
  ["rsync --only-write-batch=b a.txt out", ["unknown_effect: rsync --only-write-batch: runs a program or changes files the dispatcher cannot name"]],
  ["rsync -b --backup-dir=old a.txt out", ["unknown_effect: rsync --backup-dir: runs a program or changes files the dispatcher cannot name"]],
  ["cd $X; rsync a.txt out", ["unresolved_argument: out: relative to a directory that is not known (cd)"]],
  ["docker -- --help", ["remote_write command=docker -- --help"]],
  ["yarn --silent", ["unresolved_argument: yarn: the subcommand is not known"]],
  ["go env GOPATH foo", ["env_change command=go env GOPATH foo"]],
  ["go list ./... -mod", []],
  ["npm ls fix", []],
];

describe("remote and environment commands: what the range's run showed unstated", () => {
  it.each(REMOTE_RANGE_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("scp and rsync: programs run for the transfer and files changed elsewhere are asked", () => {
  it.each(TRANSFER_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
