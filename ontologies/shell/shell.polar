% Reversibility ontology for a coding agent's workspace: shell commands, git and file edits.
% The dispatcher (src/shell/dispatch.ts) turns a command line or a file-edit tool call into the typed
% calls below; Layer B (src/shell/workspace.ts) is read from the workspace for exactly the paths and
% the repository those calls touch. The inverse tools (git_restore_path, restore_point_apply, …) are
% run by the undo of src/shell/undo.ts, never by the agent.
%
% Sources cited per annotation: POSIX.1-2024 (XCU: rm, mv, cp, mkdir, redirection 2.7) and the git
% manual pages (git-reset, git-restore, git-checkout, git-switch, git-clean, git-stash, git-branch,
% git-tag, git-commit, git-push, git-reflog, gitrevisions).

% ---------------------------------------------------------------------------------------------------
% Layer B

% A path the call touches, keyed by its absolute path.
slot_definition(ws_path, kind, string).          % "file" | "directory" | "symlink" | "other" | "absent"
% What git can give back: "clean" (tracked, unmodified, staged nothing, git's mode; for a directory:
% every entry under it is, and nothing untracked, ignored or empty is in it), "modified", "staged",
% "untracked", "ignored", "dirty" (a directory holding any of those), "outside" (no repository).
slot_definition(ws_path, git, string).
slot_definition(ws_path, inside, bool).          % its real path is inside the workspace
slot_definition(ws_path, restore_point, string). % a restore point holding it as it is now
slot_definition(ws_path, data, string).          % what is consumed (never read: the T4 slot)

% The repository the call acts on ("repo": one per workspace).
slot_definition(git_repo, head, string).         % HEAD's commit id; absent in an empty repository
slot_definition(git_repo, branch, string).       % the checked-out branch ("" when detached)
slot_definition(git_repo, dirty, bool).          % tracked changes in the work tree or the index
slot_definition(git_repo, untracked, bool).      % untracked files (not ignored)
slot_definition(git_repo, ignored, bool).        % ignored files
slot_definition(git_repo, stashes, number).      % entries in the stash
slot_definition(git_repo, restore_point, string). % a restore point of the work tree, index, refs, stash
slot_definition(git_repo, data, string).         % what is consumed (never read)

% A ref the call names (branch or tag), keyed by its full name (refs/heads/x, refs/tags/v1).
slot_definition(git_ref, exists, bool).          % always read (an entity with no slot counts as absent)
slot_definition(git_ref, target, string).        % the commit (or tag object) it points at
slot_definition(git_ref, data, string).

% What no restore can give back: content that was only in the work tree, the index or a ref.
loss_class_definition(uncommitted_work, weight = 0.90).
% A ref recreated by `git branch`/`git tag` at its old target: the reflog of a deleted ref is gone.
loss_class_definition(reflog_entries, weight = 0.01).
% Remote-tracking refs moved by a fetch: what the remote has is not ours to put back.
loss_class_definition(remote_tracking_moved, weight = 0.05).
% A program of unknown effect in the environment (package installs): undo is a reinstall at best.
loss_class_definition(environment_changed, weight = 0.50).
sink_definition(remote).                         % another machine: a git remote, a registry, a URL

% ---------------------------------------------------------------------------------------------------
% Inverse tools (run by the undo, never judged as forward calls).
tool(git_restore_path, params = [path]).         % git restore --source=HEAD --staged --worktree -- path
tool(restore_point_apply, params = [point]).     % put back what the restore point holds
tool(nothing).                                   % the call changed nothing: nothing to undo
tool(git_reset_to, params = [target]).           % git reset --hard <old HEAD> (on a tree that was clean)
tool(git_uncommit, params = [target]).           % git reset --soft <old HEAD> (HEAD and branch only)
tool(fs_move_back, params = [source, destination]). % mv <destination> <source>
tool(fs_move_back_git, params = [source, destination]). % mv back, then git restore the destination
tool(fs_move_back_restore, params = [source, destination, point]). % mv back, then the restore point
tool(git_switch_to, params = [branch, target]).  % git switch <old branch> (or detach at the old HEAD)
tool(git_ref_create, params = [ref, target]).    % git update-ref <ref> <old target>
tool(git_unstage, params = [paths]).             % git reset -q -- <paths> (index entries back to HEAD)

% ---------------------------------------------------------------------------------------------------
% Files.
%
% Calls of one command line are judged on the state before the line. When two of them touch the same
% path (or one a path under the other's), the guard does not trust the per-call inverses: under the
% snapshot policy it keeps every touched path in one restore point (whose edges come first), under the
% others it asks (reason `overlap`).

% rm, rmdir, unlink, find -delete, git rm's work-tree half (POSIX rm: "remove the directory entry").
tool(fs_remove, acts_on = ws_path, key = path, params = [path]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, fs_remove, ws_path.kind, 1.0, id = "shell.fs_remove.restore_point",
    when = present(ws_path.restore_point), args = { point: ws_path.restore_point }).
% A tracked, unmodified path is in HEAD: `git restore --source=HEAD -- <path>` (git-restore(1)).
inverse_of(git_restore_path, fs_remove, ws_path.kind, 1.0, id = "shell.fs_remove.git",
    when = ws_path.git == "clean" and ws_path.kind != "absent", args = { path: call.path }).
% Nothing there: rm fails (or -f ignores it), nothing changes (POSIX rm, -f).
inverse_of(nothing, fs_remove, ws_path.kind, 1.0, id = "shell.fs_remove.absent", when = ws_path.kind == "absent").
% Modified, staged, untracked, ignored or outside a repository, with no copy kept: gone.
irreversibly_consumes(fs_remove, ws_path.data, uncommitted_work, 1.0, id = "shell.fs_remove.lost",
    when = ws_path.kind != "absent" and ws_path.git != "clean" and not present(ws_path.restore_point)).

% A file replaced or changed in place: `>`, `>>`, tee, cp/mv onto it, sed -i, truncate, touch, chmod,
% the write_file / edit_file / apply_patch tools (POSIX 2.7.2 "Redirecting Output": the file is
% truncated to zero length first).
tool(fs_write, acts_on = ws_path, key = path, params = [path]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, fs_write, ws_path.kind, 1.0, id = "shell.fs_write.restore_point",
    when = present(ws_path.restore_point), args = { point: ws_path.restore_point }).
% A new file: removing it puts the path back as it was.
inverse_of(fs_remove, fs_write, ws_path.kind, 1.0, id = "shell.fs_write.created",
    when = ws_path.kind == "absent", args = { path: call.path }).
inverse_of(git_restore_path, fs_write, ws_path.kind, 1.0, id = "shell.fs_write.git",
    when = ws_path.git == "clean" and ws_path.kind != "absent", args = { path: call.path }).
irreversibly_consumes(fs_write, ws_path.data, uncommitted_work, 1.0, id = "shell.fs_write.lost",
    when = ws_path.kind != "absent" and ws_path.git != "clean" and not present(ws_path.restore_point)).

% mv A B (POSIX mv: "move files"): keyed by the destination. A free destination: `mv B A` undoes it.
% Over an existing B, B's old content is gone unless git or a restore point has it.
tool(fs_move, acts_on = ws_path, key = destination, params = [source, destination]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(fs_move_back_restore, fs_move, ws_path.kind, 1.0, id = "shell.fs_move.restore_point",
    when = present(ws_path.restore_point),
    args = { source: call.source, destination: call.destination, point: ws_path.restore_point }).
inverse_of(fs_move_back, fs_move, ws_path.kind, 1.0, id = "shell.fs_move.back",
    when = ws_path.kind == "absent", args = { source: call.source, destination: call.destination }).
inverse_of(fs_move_back_git, fs_move, ws_path.kind, 1.0, id = "shell.fs_move.git",
    when = ws_path.git == "clean" and ws_path.kind != "absent",
    args = { source: call.source, destination: call.destination }).
irreversibly_consumes(fs_move, ws_path.data, uncommitted_work, 1.0, id = "shell.fs_move.lost",
    when = ws_path.kind != "absent" and ws_path.git != "clean" and not present(ws_path.restore_point)).

% mkdir (POSIX mkdir): a new directory is removed again; an existing one is left alone (-p).
tool(fs_mkdir, acts_on = ws_path, key = path, params = [path]).
inverse_of(restore_point_apply, fs_mkdir, ws_path.kind, 1.0, id = "shell.fs_mkdir.restore_point",
    when = present(ws_path.restore_point), args = { point: ws_path.restore_point }).
inverse_of(fs_remove, fs_mkdir, ws_path.kind, 1.0, id = "shell.fs_mkdir.created",
    when = ws_path.kind == "absent", args = { path: call.path }).
inverse_of(nothing, fs_mkdir, ws_path.kind, 1.0, id = "shell.fs_mkdir.exists", when = ws_path.kind == "directory").
% A file, a symbolic link (to a directory under -p: an existing directory, left alone) or anything
% else at the path: mkdir fails ("File exists"), nothing changes. With the two edges above, every kind
% has a T1 edge and none loses anything: mkdir is creation-only (src/shell/creation.ts).
inverse_of(nothing, fs_mkdir, ws_path.kind, 1.0, id = "shell.fs_mkdir.fails",
    when = ws_path.kind != "absent" and ws_path.kind != "directory").

% ---------------------------------------------------------------------------------------------------
% git: the work tree, the index, HEAD and refs as a whole.

% git reset --hard, checkout -f, switch -f/--discard-changes, checkout -- ., restore ., stash (push):
% "Resets the index and working tree. Any changes to tracked files in the working tree since <commit>
% are discarded" (git-reset(1)). On a clean tree only HEAD moves; the old HEAD is in the reflog
% (git-reflog(1)), and `git reset --soft <old>` brings it back.
tool(git_discard, acts_on = git_repo, key = "repo", params = [target]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_discard, git_repo.head, 1.0, id = "shell.git_discard.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
% Files untracked or ignored here but tracked in the target are overwritten without a word: only
% `reset --hard HEAD` (or a tree with none) is safe without a restore point.
inverse_of(git_reset_to, git_discard, git_repo.head, 1.0, id = "shell.git_discard.clean",
    when = git_repo.dirty == false and present(git_repo.head)
      and (call.target == "HEAD" or (git_repo.untracked == false and git_repo.ignored == false)),
    args = { target: git_repo.head }).
irreversibly_consumes(git_discard, git_repo.data, uncommitted_work, 1.0, id = "shell.git_discard.lost",
    when = (git_repo.dirty != false or (call.target != "HEAD" and (git_repo.untracked != false or git_repo.ignored != false)))
      and not present(git_repo.restore_point)).

% git clean -f[d]: "Remove untracked files from the working tree"; with -x the ignored ones too
% (git-clean(1)). Nothing untracked: nothing changes.
tool(git_clean, acts_on = git_repo, key = "repo", params = [ignored]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_clean, git_repo.untracked, 1.0, id = "shell.git_clean.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(nothing, git_clean, git_repo.untracked, 1.0, id = "shell.git_clean.nothing",
    when = git_repo.untracked == false and (call.ignored == false or git_repo.ignored == false)).
irreversibly_consumes(git_clean, git_repo.data, uncommitted_work, 1.0, id = "shell.git_clean.lost",
    when = (git_repo.untracked != false or (call.ignored != false and git_repo.ignored != false))
      and not present(git_repo.restore_point)).

% git stash drop / clear: "Remove a single stash entry" / "Remove all the stash entries … those
% entries will then be subject to pruning" (git-stash(1)). The dropped commits stay in the object
% store until gc; a restore point keeps their ids and `git stash store` puts them back.
tool(git_stash_drop, acts_on = git_repo, key = "repo", params = [all]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_stash_drop, git_repo.stashes, 1.0, id = "shell.git_stash_drop.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(nothing, git_stash_drop, git_repo.stashes, 1.0, id = "shell.git_stash_drop.empty",
    when = git_repo.stashes == 0).
irreversibly_consumes(git_stash_drop, git_repo.data, uncommitted_work, 1.0, id = "shell.git_stash_drop.lost",
    when = git_repo.stashes != 0 and not present(git_repo.restore_point)).

% git stash (push): saves the changes and resets the tree; `git stash pop` would undo it, but the
% restore point is exact (index and modes too), and a clean tree makes it a no-op.
tool(git_stash_push, acts_on = git_repo, key = "repo").
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_stash_push, git_repo.stashes, 1.0, id = "shell.git_stash_push.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(nothing, git_stash_push, git_repo.stashes, 1.0, id = "shell.git_stash_push.clean",
    when = git_repo.dirty == false and git_repo.untracked == false).

% git commit (also --amend), git reset --soft/--mixed <commit>, rebase, merge, cherry-pick, pull: HEAD
% and the branch move; the old HEAD is in the reflog ("ORIG_HEAD", git-reflog(1)). With nothing
% staged or modified, `git reset --soft <old>` puts HEAD and the branch back with the same index;
% otherwise the index and work tree are kept by a restore point. The undo is `git reset --hard <old>`:
% on a tree that was clean it puts back HEAD, the branch, the index and the tracked files.
tool(git_move_head, acts_on = git_repo, key = "repo", params = [target]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_move_head, git_repo.head, 1.0, id = "shell.git_move_head.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(git_reset_to, git_move_head, git_repo.head, 1.0, id = "shell.git_move_head.reflog",
    when = git_repo.dirty == false and git_repo.untracked == false and git_repo.ignored == false
      and present(git_repo.head), args = { target: git_repo.head }).

% git commit of staged changes: HEAD moves, the index is unchanged (git-commit(1)): reset --soft back.
tool(git_commit, acts_on = git_repo, key = "repo").
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_commit, git_repo.head, 1.0, id = "shell.git_commit.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(git_uncommit, git_commit, git_repo.head, 1.0, id = "shell.git_commit.reflog",
    when = present(git_repo.head), args = { target: git_repo.head }).

% git switch / checkout <branch> without -f: git refuses when local changes would be overwritten
% (git-switch(1)), so switching back restores HEAD; the work tree carries the changes both ways.
tool(git_switch, acts_on = git_repo, key = "repo", params = [target]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_switch, git_repo.head, 1.0, id = "shell.git_switch.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(git_switch_to, git_switch, git_repo.head, 1.0, id = "shell.git_switch.back",
    when = present(git_repo.head) and git_repo.dirty == false,
    args = { branch: git_repo.branch, target: git_repo.head }).

% git add / rm --cached / mv's index half: the index entries change. With nothing staged before,
% `git reset -q -- <paths>` puts them back to HEAD (git-reset(1), "git reset [<pathspec>]").
tool(git_stage, acts_on = git_repo, key = "repo", params = [paths]).
% Kept by a restore point: put back exactly (first, so the search prefers it whenever one is taken).
inverse_of(restore_point_apply, git_stage, git_repo.dirty, 1.0, id = "shell.git_stage.restore_point",
    when = present(git_repo.restore_point), args = { point: git_repo.restore_point }).
inverse_of(git_unstage, git_stage, git_repo.dirty, 1.0, id = "shell.git_stage.unstage",
    when = git_repo.dirty == false, args = { paths: call.paths }).

% git branch / tag creation: deleting the new ref undoes it; an existing one is left (git refuses).
tool(git_ref_add, acts_on = git_ref, key = ref, params = [ref]).
inverse_of(git_ref_delete, git_ref_add, git_ref.target, 1.0, id = "shell.git_ref_add.created",
    when = not present(git_ref.target), args = { ref: call.ref }).
% git branch -d/-D, tag -d: "the branch's reflog is deleted" (git-branch(1)); its commits stay until
% gc, so `git update-ref <ref> <old target>` recreates it, without the reflog.
tool(git_ref_delete, acts_on = git_ref, key = ref, params = [ref]).
compensates(git_ref_create, git_ref_delete, git_ref.target, reflog_entries, 1.0, id = "shell.git_ref_delete.recreate",
    when = present(git_ref.target), args = { ref: call.ref, target: git_ref.target }).
inverse_of(nothing, git_ref_delete, git_ref.target, 1.0, id = "shell.git_ref_delete.absent",
    when = not present(git_ref.target)).

% git fetch: only remote-tracking refs and FETCH_HEAD move (git-fetch(1)); nothing of ours is lost.
tool(git_fetch, acts_on = git_repo, key = "repo").
compensates(nothing, git_fetch, git_repo.head, remote_tracking_moved, 1.0, id = "shell.git_fetch.tracking").

% ---------------------------------------------------------------------------------------------------
% Effects outside the workspace.

% git push (plain or forced), npm publish, curl -X POST, scp, rsync to a host, ssh with a command,
% gh pr create, docker push: what another machine now holds is not ours to take back.
tool(remote_write, params = [command]).
external_side_effect(remote_write, remote, 1.0, id = "shell.remote_write").

% Package installs (npm install, pip install): the environment changes in ways nobody lists.
slot_definition(environment, name, string).      % always "env" (an entity with no slot counts as absent)
slot_definition(environment, data, string).
tool(env_change, acts_on = environment, key = "env", params = [command]).
irreversibly_consumes(env_change, environment.data, environment_changed, 1.0, id = "shell.env_change").
