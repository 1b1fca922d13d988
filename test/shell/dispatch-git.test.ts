// git and the variables set for a command: what makes a reading command run a program or write a file,
// and the git forms that were read as something else. Each case marked "approved" or "read as" was so
// before its fix.
import { describe, expect, it } from "vitest";
import { dispatch, useWorkspace, type Case } from "./dispatch-cases.js";

useWorkspace();

const GIT_CASES: Case[] = [
  // `git -c` settings run commands in any subcommand (approved as reads).
  ["git -c diff.external=./x diff", ["unknown_effect: git -c diff.external=./x: a setting that may run a command"]],
  ["git -c core.fsmonitor=./x status", ["unknown_effect: git -c core.fsmonitor=./x: a setting that may run a command"]],
  ["git -c core.pager='rm a.txt' log", ["unknown_effect: git -c core.pager=rm a.txt: a setting that may run a command"]],
  ["git -c alias.x='!rm a.txt' x", ["unknown_effect: git -c alias.x=!rm a.txt: a setting that may run a command"]],
  ["git -c \"$S\" log", ["unknown_effect: git -c \"$S\": a setting that may run a command"]],
  ["git -c a=b commit -m x", ["unknown_effect: git -c a=b: a setting that may run a command"]],
  ["git -c color.ui=never -c core.quotepath=off -c User.Email=x@y log", []],
  ["git -c safe.directory='*' status", []],
  ["git -c", []],
  // Reading commands' options that write a file or run a program (approved as reads).
  ["git diff --output=a.txt", ["unknown_effect: git diff --output=a.txt: writes a file or runs a program"]],
  ["git log --output a.txt", ["unknown_effect: git log --output: writes a file or runs a program"]],
  ["git grep -O./x foo", ["unknown_effect: git grep -O./x: writes a file or runs a program"]],
  ["git grep --open-files-in-pager=./x foo", ["unknown_effect: git grep --open-files-in-pager=./x: writes a file or runs a program"]],
  ["git ls-remote --upload-pack=./x .", ["unknown_effect: git ls-remote --upload-pack=./x: writes a file or runs a program"]],
  ["git format-patch -1", ["unknown_effect: git format-patch writes patch files"]],
  ["git format-patch -o out -1", ["unknown_effect: git format-patch -o: writes a file or runs a program"]],
  ["git format-patch --output-directory=out -1", ["unknown_effect: git format-patch --output-directory=out: writes a file or runs a program"]],
  ["git format-patch --stdout -1", []],
  ["git log $X", ["unknown_effect: git log $X: writes a file or runs a program"]],
  ["git log --oneline -5", []],
  ["git diff --stat HEAD", []],
  // `git checkout TREE PATH…` writes the paths from TREE (read as switching to TREE).
  ["git checkout HEAD~1 a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]", "git_stage paths=[\"@/a.txt\"] dir=@"]],
  ["git checkout main a.txt b.txt", ["fs_write path=@/a.txt tracked=[\"main\"]", "fs_write path=@/b.txt tracked=[\"main\"]", "git_stage paths=[\"@/a.txt\",\"@/b.txt\"] dir=@"]],
  ["git checkout main $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
  ["git checkout main", ["git_switch target=main dir=@"]],
  // `git reset TREE PATH…` sets the paths' index entries (was read as moving HEAD to TREE).
  ["git reset HEAD~1 a.txt", ["git_stage paths=[\"a.txt\"] dir=@"]],
  ["git reset main a.txt b.txt", ["git_stage paths=[\"a.txt\",\"b.txt\"] dir=@"]],
  ["git reset main $X", ["git_stage paths=[\"\"] dir=@", "unresolved_argument: git reset: a path is not known"]],
  ["git reset HEAD~1", ["git_move_head target=HEAD~1 dir=@"]],
  ["git reset --soft HEAD~1", ["git_move_head target=HEAD~1 dir=@"]],
  // Throwing away a resolution in progress; a rebase that runs a command (read as moving HEAD).
  ["git merge --abort", ["unknown_effect: git merge --abort: discards the work tree's resolution in progress"]],
  ["git rebase --skip", ["unknown_effect: git rebase --skip: discards the work tree's resolution in progress"]],
  ["git cherry-pick --quit", ["unknown_effect: git cherry-pick --quit: discards the work tree's resolution in progress"]],
  ["git rebase -x 'rm a.txt' HEAD~3", ["unknown_effect: git rebase --exec runs a command whose effect is not known"]],
  ["git rebase --exec=make main", ["unknown_effect: git rebase --exec runs a command whose effect is not known"]],
  ["git merge --continue", ["git_move_head target=HEAD dir=@"]],
  ["git rebase main", ["git_move_head target=main dir=@"]],
  // The transfer's own command, a template's hooks, settings (a clone was read as a new folder).
  ["git clone -u ./x ./repo dest", ["unknown_effect: git clone -u: runs a command or hook whose effect is not known"]],
  ["git clone --template=./t ./repo dest", ["unknown_effect: git clone --template: runs a command or hook whose effect is not known"]],
  ["git clone -c core.fsmonitor=./x ./repo dest", ["unknown_effect: git clone -c: runs a command or hook whose effect is not known"]],
  ["git clone ./repo dest", ["fs_write path=@/dest"]],
  ["git fetch --upload-pack=./x origin", ["unknown_effect: git fetch --upload-pack runs a command whose effect is not known"]],
  ["git pull --upload-pack ./x origin", ["unknown_effect: git pull --upload-pack runs a command whose effect is not known"]],
  ["git fetch origin", ["git_fetch dir=@"]],
  // The upstream and description are configuration (read as a listing).
  ["git branch --set-upstream-to=origin/x", ["unknown_effect: git branch: changes the branch's configuration (upstream, description)"]],
  ["git branch --unset-upstream", ["unknown_effect: git branch: changes the branch's configuration (upstream, description)"]],
  ["git branch -vv", []],
  // A copy creates the new name (it was read as creating the old one); -M and -C replace an existing one.
  ["git branch -c main copy", ["git_ref_add ref=refs/heads/copy dir=@"]],
  ["git branch -C main copy", ["git_ref_delete ref=refs/heads/copy dir=@", "git_ref_add ref=refs/heads/copy dir=@"]],
  ["git branch --copy new", ["git_ref_add ref=refs/heads/new dir=@"]],
  ["git branch -M old main", ["git_ref_delete ref=refs/heads/old dir=@", "git_ref_delete ref=refs/heads/main dir=@", "git_ref_add ref=refs/heads/main dir=@"]],
  ["git branch -m old new", ["git_ref_delete ref=refs/heads/old dir=@", "git_ref_add ref=refs/heads/new dir=@"]],
  ["git branch -c", ["unresolved_argument: git branch -c: the old or new name is not known (the current branch)"]],
  // `git config -e` edits the file (was read-only).
  ["git config -e", ["unknown_effect: git config : changes configuration or refs the ontology does not model"]],
  ["git config --global --edit", ["unknown_effect: git config : changes configuration or refs the ontology does not model"]],
  ["git config --list", []],
  // A refspec whose destination is a local ref moves or overwrites that branch (was approved as a fetch,
  // which only moves the remote-tracking refs: nothing to undo).
  ["git fetch origin +main:main", ["unknown_effect: git fetch +main:main: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch . HEAD~3:feature", ["unknown_effect: git fetch HEAD~3:feature: updates a local ref, not only the remote-tracking ones"]],
  ["git pull origin x:y", ["unknown_effect: git pull x:y: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch --refmap='+refs/heads/*:refs/heads/*' origin", ["unknown_effect: git fetch --refmap: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch origin $B", ["unknown_effect: git fetch $B: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch origin main:refs/remotes/origin/main", ["git_fetch dir=@"]],
  ["git fetch git@github.com:o/r.git main:", ["git_fetch dir=@"]],
  ["git pull origin main", ["git_fetch dir=@", "git_move_head target=FETCH_HEAD dir=@"]],
  // A write into .git's config or hooks is code git runs later (was approved: a new hook is undone by
  // removing it, but the commit after it runs it).
  ["cp a.txt .git/hooks/pre-commit", ["fs_write path=@/.git/hooks/pre-commit", "unknown_effect: @/.git/hooks/pre-commit: git runs the settings and hooks there in later commands (a commit its hooks, `git status` a core.fsmonitor)"]],
  ["mv a.txt .git/hooks/post-checkout", ["fs_move source=@/a.txt destination=@/.git/hooks/post-checkout", "unknown_effect: @/.git/hooks/post-checkout: git runs the settings and hooks there in later commands (a commit its hooks, `git status` a core.fsmonitor)"]],
  ["sed -i s/a/b/ .git/config", ["fs_write path=@/.git/config", "unknown_effect: @/.git/config: git runs the settings and hooks there in later commands (a commit its hooks, `git status` a core.fsmonitor)"]],
  ["echo '[core]' >> src/.git/config.worktree", ["fs_write path=@/src/.git/config.worktree", "unknown_effect: @/src/.git/config.worktree: git runs the settings and hooks there in later commands (a commit its hooks, `git status` a core.fsmonitor)"]],
  ["cp -r out .git", ["fs_write path=@/.git", "unknown_effect: @/.git: git runs the settings and hooks there in later commands (a commit its hooks, `git status` a core.fsmonitor)"]],
  ["echo x > .gitignore", ["fs_write path=@/.gitignore"]],
  ["echo x > .github/config", ["fs_write path=@/.github/config"]],
  ["rm .git/hooks/pre-commit", ["fs_remove path=@/.git/hooks/pre-commit"]],
  // `-p`/`--patch`: the hunks chosen (`yes |` takes every one) are written from the index or a tree;
  // without paths, of the whole tree (approved as reads; `git checkout -p TREE` was read as a switch,
  // `git reset -p TREE` as moving HEAD).
  ["yes | git checkout -p", ["fs_write path=@ tracked=[]"]],
  ["git checkout --patch", ["fs_write path=@ tracked=[]"]],
  ["git checkout -p HEAD~1", ["fs_write path=@ tracked=[\"HEAD~1\"]", "git_stage paths=[\"@\"] dir=@"]],
  ["git checkout -p HEAD~1 --", ["fs_write path=@ tracked=[\"HEAD~1\"]", "git_stage paths=[\"@\"] dir=@"]],
  ["git checkout -p HEAD~1 a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]", "git_stage paths=[\"@/a.txt\"] dir=@"]],
  ["git checkout -p a.txt b.txt", ["fs_write path=@/a.txt tracked=[]", "fs_write path=@/b.txt tracked=[]"]],
  ["git checkout -p -- a.txt", ["fs_write path=@/a.txt tracked=[]"]],
  ["git checkout -p $X", ["fs_write path=@", "git_stage paths=[\"@\"] dir=@"]],
  ["git checkout -p main $X", ["unresolved_argument: $X: unset or unknown variable $X"]],
  ["yes | git restore -p", ["fs_write path=@ tracked=[]"]],
  ["git restore --patch --staged", ["git_stage paths=[\"@\"] dir=@"]],
  ["git restore -p -s HEAD~1 a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]"]],
  ["git reset -p HEAD~1", ["git_stage paths=[\".\"] dir=@"]],
  ["git reset -p", ["git_stage paths=[\".\"] dir=@"]],
  ["git add -p", ["git_stage paths=[\".\"] dir=@"]],
  ["git add --interactive", ["git_stage paths=[\".\"] dir=@"]],
  ["git add -e", ["git_stage paths=[\".\"] dir=@"]],
  ["git add -p a.txt", ["git_stage paths=[\"a.txt\"] dir=@"]],
  // `--pathspec-from-file`: the paths written, removed or staged are in a file (checkout, restore and
  // rm were approved as reads or as staging nothing).
  ["git checkout --pathspec-from-file=list.txt", ["unresolved_argument: git checkout --pathspec-from-file: the paths are read from a file"]],
  ["git checkout HEAD~1 --pathspec-from-file list.txt", ["unresolved_argument: git checkout --pathspec-from-file: the paths are read from a file"]],
  ["git restore --pathspec-from-file=list.txt", ["unresolved_argument: git restore --pathspec-from-file: the paths are read from a file"]],
  ["git rm --pathspec-from-file=list.txt", ["unresolved_argument: git rm --pathspec-from-file: the paths are read from a file"]],
  ["git add --pathspec-from-file=- --pathspec-file-nul", ["unresolved_argument: git add --pathspec-from-file: the paths are read from a file"]],
  ["git reset --pathspec-from-file=list.txt", ["unresolved_argument: git reset --pathspec-from-file: the paths are read from a file"]],
  // git reads path operands as pathspecs: a pattern matches in every folder and `:` is magic
  // (`git checkout -- '*.txt'` and `git restore '*.txt'` were approved as creating a file named *.txt
  // while every .txt file's changes were discarded; `git checkout '*.txt'` was read as a switch).
  ["git checkout -- '*.txt'", ["unresolved_argument: git checkout '*.txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git restore '*.txt'", ["unresolved_argument: git restore '*.txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git restore -- *.md", ["unresolved_argument: git restore *.md: git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git restore --staged '*.txt'", ["unresolved_argument: git restore '*.txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git checkout ':/'", ["unresolved_argument: git checkout ':/': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git checkout -- ':!b.txt'", ["unresolved_argument: git checkout ':!b.txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git checkout -f 'src/*'", ["unresolved_argument: git checkout 'src/*': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git checkout main '*.txt'", ["unresolved_argument: git checkout '*.txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git checkout -p -- 'a?txt'", ["unresolved_argument: git checkout 'a?txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git checkout -- 'a\\b'", ["unresolved_argument: git checkout 'a\\b': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git rm -r 'src/[xy].ts'", ["unresolved_argument: git rm 'src/[xy].ts': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  // A shell glob that matched hands git the names it matched; --literal-pathspecs makes git read none.
  ["git restore *.txt", ["fs_write path=@/a.txt tracked=[]", "fs_write path=@/b.txt tracked=[]"]],
  ["git --literal-pathspecs checkout -- '*.txt'", ["fs_write path=@/*.txt tracked=[]"]],
  ["git clean -f '*.log'", ["git_clean ignored=false dir=@"]],
  // `-v`, `--sort` and `--format` do not make `git branch` a listing: `-v -f x HEAD~3` moves x (was
  // approved as a read); `-r` deletes a remote-tracking branch.
  ["git branch -v -f feature HEAD~3", ["git_ref_delete ref=refs/heads/feature dir=@", "git_ref_add ref=refs/heads/feature dir=@"]],
  ["git branch --sort=refname x", ["git_ref_add ref=refs/heads/x dir=@"]],
  ["git branch -v", []],
  ["git branch --no-contains HEAD x", []],
  ["git branch --all x", []],
  ["git branch --remotes", []],
  ["git branch -dr origin/x", ["git_ref_delete ref=refs/remotes/origin/x dir=@"]],
  ["git branch -D x", ["git_ref_delete ref=refs/heads/x dir=@"]],
  // `git commit PATH…` (`-i`, `--only`) sets the paths' index entries from the work tree (what was staged
  // there is replaced: approved with an undo that gave a different index back); `-p` stages hunks.
  ["git commit a.txt", ["git_stage paths=[\"a.txt\"] dir=@", "git_commit dir=@"]],
  ["git commit -i a.txt b.txt", ["git_stage paths=[\"a.txt\",\"b.txt\"] dir=@", "git_commit dir=@"]],
  ["git commit -m 'x' -- a.txt", ["git_stage paths=[\"a.txt\"] dir=@", "git_commit dir=@"]],
  ["git commit -p", ["git_stage paths=[\".\"] dir=@", "git_commit dir=@"]],
  ["git commit --interactive", ["git_stage paths=[\".\"] dir=@", "git_commit dir=@"]],
  ["git commit -p a.txt", ["git_stage paths=[\"a.txt\"] dir=@", "git_commit dir=@"]],
  ["git commit $X a.txt", ["git_stage paths=[\"\",\"a.txt\"] dir=@", "git_commit dir=@", "unresolved_argument: git commit: a path is not known"]],
  ["git commit -am x", ["git_stage paths=[\".\"] dir=@", "git_commit dir=@"]],
  ["git commit -m x", ["git_commit dir=@"]],
  // Local tags a fetch deletes or moves (approved as a fetch, which changes nothing to undo).
  ["git fetch -p -P origin", ["unknown_effect: git fetch --prune-tags: updates a local ref, not only the remote-tracking ones"]],
  ["git pull --prune-tags", ["unknown_effect: git pull --prune-tags: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch --tags --force origin", ["unknown_effect: git fetch --tags --force: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch -tf", ["unknown_effect: git fetch --tags --force: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch origin tag v1", ["unknown_effect: git fetch tag: updates a local ref, not only the remote-tracking ones"]],
  ["git fetch --tags origin", ["git_fetch dir=@"]],
  ["git fetch --force origin", ["git_fetch dir=@"]],
  ["git fetch --prune origin", ["git_fetch dir=@"]],
  // `git init --template` copies hooks in (approved as making folders); `--bare` writes into the folder.
  ["git init --template=./t", ["unknown_effect: git init --template: copies hooks from a template or moves the repository"]],
  ["git init --separate-git-dir ../g x", ["unknown_effect: git init --separate-git-dir: copies hooks from a template or moves the repository"]],
  ["git init --bare", ["fs_mkdir path=@", "unknown_effect: git init --bare: writes the repository's files into @, which exists"]],
  ["git --bare init", ["fs_mkdir path=@", "unknown_effect: git init --bare: writes the repository's files into @, which exists"]],
  ["git init --bare new.git", ["fs_mkdir path=@/new.git"]],
  ["git init x", ["fs_mkdir path=@/x", "fs_mkdir path=@/x/.git"]],
  // The folder a clone makes without one named (`--bare`: x.git; after `:`; judged on another name).
  ["git clone --bare https://h/o/x.git", ["fs_write path=@/x.git"]],
  ["git clone --mirror git@h:o/x", ["fs_write path=@/x.git"]],
  ["git clone git@h:x.git", ["fs_write path=@/x"]],
  ["git clone /r/x/.git", ["fs_write path=@/x"]],
  ["git clone https://h/x/", ["fs_write path=@/x"]],
  ["git clone x.bundle", ["fs_write path=@/x"]],
  ["git clone h:", ["unresolved_argument: git clone: the destination is not known"]],
  // `git grep -nO./x`: the pager in a bundle of short options (approved as a read).
  ["git grep -nO./x foo", ["unknown_effect: git grep -nO./x: writes a file or runs a program"]],
  ["git grep -iOvim foo", ["unknown_effect: git grep -iOvim: writes a file or runs a program"]],
  ["git grep -eOops", []],
  ["git grep -A3O foo", []],
  ["git log -nO", []],
  // An option's value read as the verb (`git config -f list x y` sets x in the file list: approved).
  ["git config -f list x y", ["unknown_effect: git config x: changes configuration or refs the ontology does not model"]],
  ["git config --file get a b", ["unknown_effect: git config a: changes configuration or refs the ontology does not model"]],
  ["git config -f x.cfg --list", []],
  ["git config --type bool --get core.bare", []],
  ["git notes --ref show add -m x", ["unknown_effect: git notes add: changes configuration or refs the ontology does not model"]],
  ["git notes --ref x list", []],
  // A shell glob that matched gives git the names: `git checkout *.txt` discards a.txt's and b.txt's
  // changes (was read as switching to a branch named *.txt); `git reset $X`, `git reset --hard $X` and
  // `git merge $X` go to a commit that is not known (were judged as going to HEAD).
  ["git checkout *.txt", ["fs_write path=@/a.txt tracked=[]", "fs_write path=@/b.txt tracked=[]"]],
  ["git checkout -p *.txt", ["fs_write path=@/a.txt tracked=[]", "fs_write path=@/b.txt tracked=[]"]],
  ["git reset *.txt", ["git_stage paths=[\"*.txt\"] dir=@"]],
  ["git reset $X", ["unresolved_argument: git reset: the commit is not known"]],
  ["git reset --hard $X", ["unresolved_argument: git reset: the commit is not known"]],
  ["git merge $X", ["unresolved_argument: git merge: the commit is not known"]],
  ["git checkout .", ["fs_write path=@ tracked=[]"]],
  ["git checkout -p src", ["fs_write path=@/src tracked=[]"]],
  ["cd $X; git restore *.md", ["unresolved_argument: git restore *.md: git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["cd $X; git checkout .", ["unresolved_argument: git runs in a directory that is not known (cd)"]],
  ["cd $X; git checkout -- /tmp/a.txt", ["unresolved_argument: git runs in a directory that is not known (cd)"]],
  // The global options other than --literal-pathspecs and --bare change neither rule.
  ["git --no-pager restore '*.txt'", ["unresolved_argument: git restore '*.txt': git reads it as a pattern (a pathspec), and the paths it matches are not known"]],
  ["git --no-pager init", ["fs_mkdir path=@", "fs_mkdir path=@/.git"]],
  // Reading commands: their writing options are matched from a word's start; `git grep -o` (only the
  // matching part) is not format-patch's `-o`.
  ["git log feature--output", []],
  ["git log fix-O2", []],
  ["git grep -niO./x foo", ["unknown_effect: git grep -niO./x: writes a file or runs a program"]],
  ["git grep x-O", []],
  ["git grep -o foo", []],
  ["git checkout --patc", ["unresolved_argument: git checkout --patc: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  // Branches: long names of the options; a copy or move with two names and --force.
  ["git branch --delete --remotes origin/x", ["git_ref_delete ref=refs/remotes/origin/x dir=@"]],
  ["git branch --copy main copy", ["git_ref_add ref=refs/heads/copy dir=@"]],
  ["git branch -m -f old new", ["git_ref_delete ref=refs/heads/old dir=@", "git_ref_delete ref=refs/heads/new dir=@", "git_ref_add ref=refs/heads/new dir=@"]],
  ["git branch -c --force main copy", ["git_ref_delete ref=refs/heads/copy dir=@", "git_ref_add ref=refs/heads/copy dir=@"]],
  ["git branch --edit-description", ["unknown_effect: git branch: changes the branch's configuration (upstream, description)"]],
  ["git branch --remotes 'origin/*'", []],
  // The tree of `git checkout TREE -- PATH…` with options before it and several paths.
  ["git checkout -q HEAD~1 -- a.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]", "git_stage paths=[\"@/a.txt\"] dir=@"]],
  ["git checkout HEAD~1 -- a.txt b.txt", ["fs_write path=@/a.txt tracked=[\"HEAD~1\"]", "fs_write path=@/b.txt tracked=[\"HEAD~1\"]", "git_stage paths=[\"@/a.txt\",\"@/b.txt\"] dir=@"]],
  ["git mv a.txt b.txt sub", ["fs_move source=@/a.txt destination=@/sub/a.txt", "fs_move source=@/b.txt destination=@/sub/b.txt", "git_stage paths=[\"@/a.txt\",\"@/b.txt\",\"@/sub\"] dir=@"]],
  // A dry run with -f removes nothing; the interactive and edit forms of add stage the whole tree.
  ["git clean -fn", []],
  ["git clean --dry-run -f", []],
  ["git stash foo-", ["unknown_command: git stash foo-"]],
  ["git add -i", ["git_stage paths=[\".\"] dir=@"]],
  ["git add --edit", ["git_stage paths=[\".\"] dir=@"]],
  ["git rebase -q --abort", ["unknown_effect: git rebase --abort: discards the work tree's resolution in progress"]],
  ["git cherry-pick -x main", ["git_move_head target=main dir=@"]],
  ["git fetch origin main:FETCH_HEAD", ["git_fetch dir=@"]],
  ["git clone --upload-pack=./x r d", ["unknown_effect: git clone --upload-pack: runs a command or hook whose effect is not known"]],
  ["git clone --config core.fsmonitor=./x r d", ["unknown_effect: git clone --config: runs a command or hook whose effect is not known"]],
  ["git clone https://h/x//", ["fs_write path=@/x"]],
  ["git clone https://h/x/.gitfoo", ["fs_write path=@/.gitfoo"]],
  ["git clone https://h/o/x.github.io", ["fs_write path=@/x.github.io"]],
  ["git clone --bare", ["unresolved_argument: git clone: the destination is not known"]],
  ["git config -l x", ["unknown_effect: git config x: changes configuration or refs the ontology does not model"]],
];

const VARIABLE_CASES: Case[] = [
  // Variables that load or run other code (approved as reads).
  ["LD_PRELOAD=./evil.so ls", ["unknown_effect: ls: LD_PRELOAD changes the code or configuration it loads"]],
  ["DYLD_INSERT_LIBRARIES=x.dylib cat a.txt", ["unknown_effect: cat: DYLD_INSERT_LIBRARIES changes the code or configuration it loads"]],
  ["PATH=.:$PATH ls", ["unknown_effect: ls: PATH changes the code or configuration it loads"]],
  ["BASH_ENV=./x.sh bash -c ls", ["unknown_effect: bash: BASH_ENV changes the code or configuration it loads"]],
  ["GIT_EXTERNAL_DIFF=./x git diff", ["unknown_effect: git: GIT_EXTERNAL_DIFF changes the code or configuration it loads"]],
  ["GIT_DIR=/elsewhere/.git git status", ["unknown_effect: git: GIT_DIR changes the code or configuration it loads"]],
  ["HOME=/tmp/x git status", ["unknown_effect: git: HOME changes the code or configuration it loads"]],
  ["npm_config_script_shell=./x npm ls", ["unknown_effect: npm: npm_config_script_shell changes the code or configuration it loads"]],
  ["NODE_OPTIONS='--require ./x.js' npm ls", ["unknown_effect: npm: NODE_OPTIONS changes the code or configuration it loads"]],
  ["KUBECONFIG=./k.yaml kubectl get pods", ["unknown_effect: kubectl: KUBECONFIG changes the code or configuration it loads"]],
  ["PAGER=./x man ls", ["unknown_effect: man: PAGER names a program it may run"]],
  ["GH_BROWSER=./x gh pr view", ["unknown_effect: gh: GH_BROWSER names a program it may run"]],
  ["EDITOR=$E git log", ["unknown_effect: git: EDITOR names a program it may run"]],
  ["env LD_PRELOAD=./evil.so ls", ["unknown_effect: env: LD_PRELOAD changes the code or configuration it loads"]],
  ["env PATH=/tmp/x:/bin rm a.txt", ["unknown_effect: env: PATH changes the code or configuration it loads", "fs_remove path=@/a.txt"].reverse()],
  // Variables that run nothing else.
  ["PAGER=cat GIT_PAGER= MANPAGER=less git log", []],
  ["LANG=C LC_ALL=C TZ=UTC NODE_ENV=test ls", []],
  ["GIT_AUTHOR_NAME=x GIT_COMMITTER_EMAIL=y git log", []],
  ["PATH=/usr/bin:/bin:/usr/local/sbin ls", []],
  ["env -i PATH=/bin ls", []],
  ["A=1 rm a.txt", ["fs_remove path=@/a.txt"]],
];

// A variable set on its own is in the environment of the commands after it when it is exported (or was
// already), and in an agent's persistent shell of its later calls too: a code variable set so is asked
// (`export LD_PRELOAD=./evil.so; ls` was approved as a read).
const SET_ALONE = (v: string, why = "changes the code or configuration it loads") => `unknown_effect: ${v} set for the commands after it: ${v} ${why}`;
const SET_ALONE_CASES: Case[] = [
  ["export LD_PRELOAD=./evil.so; ls", [SET_ALONE("LD_PRELOAD")]],
  ["LD_PRELOAD=./evil.so; export LD_PRELOAD; cat a.txt", [SET_ALONE("LD_PRELOAD")]],
  ["PATH=.:$PATH; ls", [SET_ALONE("PATH")]],
  ["export GIT_DIR=/elsewhere/.git && git status", [SET_ALONE("GIT_DIR")]],
  ["declare -x PAGER=./x; man ls", [SET_ALONE("PAGER", "names a program it may run")]],
  ["readonly NODE_OPTIONS='--require ./x.js'; npm ls", [SET_ALONE("NODE_OPTIONS")]],
  ["LD_PRELOAD=x", [SET_ALONE("LD_PRELOAD")]],
  // `unset PATH; ls` runs ./ls: bash looks in the working directory without a PATH (was approved).
  ["unset PATH; ls", [SET_ALONE("PATH")]],
  ["builtin unset -v PATH; ls", ["unknown_effect: unset sets a variable for the commands after it: PATH changes the code or configuration it loads"]],
  ["command unset $V", ["unknown_effect: unset sets a variable for the commands after it: $V is not known"]],
  ["unset -f PATH; builtin unset -f PATH", []],
  ["unset X LD_PRELOAD; builtin unset Y", []],
  // Variables that run nothing else, set alone.
  ["X=1; export X; ls", []],
  ["export PAGER=cat LANG=C; git log", []],
  ["export PATH=/usr/bin:/bin; ls", []],
  // Builtins that set a variable as an assignment does (`read`, `printf -v`, `getopts`): `ls` after
  // `read PATH <<< .` runs ./ls (were approved as reads).
  ["read -r PATH <<< '.'; ls", ["unknown_effect: read sets a variable for the commands after it: PATH changes the code or configuration it loads"]],
  ["read -a LD_PRELOAD < a.txt", ["unknown_effect: read sets a variable for the commands after it: LD_PRELOAD changes the code or configuration it loads"]],
  ["printf -v PATH '%s' .; ls", ["unknown_effect: printf sets a variable for the commands after it: PATH changes the code or configuration it loads"]],
  ["getopts ab PAGER", ["unknown_effect: getopts sets a variable for the commands after it: PAGER names a program it may run"]],
  ["read $V < a.txt", ["unknown_effect: read sets a variable for the commands after it: $V is not known"]],
  ["read -p 'name? ' -r x y < a.txt", []],
  ["printf -v out '%s' a", []],
  ["printf '%s' PATH", []],
  ["getopts ab opt", []],
];

// git's parse-options takes any unique prefix of a long option: `git reset --har` is `--hard`, `git clean
// --forc` deletes the untracked files (checked with git 2.x). A word that abbreviates an option the rule
// reads is asked (each was approved, or read as a milder command).
const ABBREVIATED_CASES: Case[] = [
  ["git reset --har", ["unresolved_argument: git reset --har: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git clean --forc -d", ["unresolved_argument: git clean --forc: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git checkout --forc main", ["unresolved_argument: git checkout --forc: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git branch --del x", ["unresolved_argument: git branch --del: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git log --outp=a.txt", ["unresolved_argument: git log --outp=a.txt: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git diff --out=a.txt", ["unresolved_argument: git diff --out=a.txt: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git clean --dry -f", ["unresolved_argument: git clean --dry: an abbreviated long option (the command takes a unique prefix as the option): write it in full"]],
  ["git log --oneline --stat", []],
  ["git config --local --list", []],
  ["git push --force-with-lease", ["remote_write command=git push --force-with-lease"]],
  ["git stash --keep-index", ["git_stash_push dir=@"]],
  ["git reset -- --har", ["git_stage paths=[\"--har\"] dir=@"]],
];

describe("git: a long option written as a prefix is not read as another", () => {
  it.each(ABBREVIATED_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("git: settings, options and forms that run a program, write a file or discard work", () => {
  it.each(GIT_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("variables set for a command that make it load or run other code", () => {
  it.each(VARIABLE_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

describe("variables set on their own that make the commands after them load or run other code", () => {
  it.each(SET_ALONE_CASES)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});
