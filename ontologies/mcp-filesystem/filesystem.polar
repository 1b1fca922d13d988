% Reversibility ontology for the official MCP filesystem server, @modelcontextprotocol/server-filesystem
% (2026.8.31), written from its tools' own descriptions and annotations (quoted before each tool).
% Layer B is read from the server before each mutating call (projection.json, `reads`): the kind of
% what is at a path (get_file_info), a text file's content (read_text_file), and whether the places an
% inverse needs are free. The server has no delete tool, so what a call *creates* can only be moved
% aside: the path is free again, and the moved copy is the declared residue (`moved_aside`).
%
% Known limits, said here so nobody reads more into a verdict: the content is read as UTF-8 text (a
% file that is not valid UTF-8 is not restored: its content is not projected, so the call is refused);
% the state can change between the read and the call (another client); a restored file is a new file
% with the old text and permission bits (`file_metadata`).

% ---------------------------------------------------------------------------------------------------
% Layer B

slot_definition(fs_path, kind, string).          % "file" | "directory" | "other" | "absent" (get_file_info)
slot_definition(fs_path, content, string).       % a file's text before the call (read_text_file)
slot_definition(fs_path, parent_kind, string).   % what the parent directory is, for an absent path
slot_definition(fs_path, aside, string).         % a free path beside it to move a new file or directory to
slot_definition(text_file, content, string).     % an existing text file's content before the call
slot_definition(move_source, kind, string).      % what is at the source
slot_definition(move_source, destination_kind, string). % what is at the destination ("absent": free)
slot_definition(move_source, resolved, string).  % the path the server moves: symlinks and Unicode spellings resolved

% The restored file has the old text and permission bits, but a new inode and modification time.
loss_class_definition(file_metadata, weight = 0.01).
% Undoing a creation moves the new file or directory to `<path>.polar-undo`: the path is as before,
% and the moved copy is left beside it.
loss_class_definition(moved_aside, weight = 0.10).

% ---------------------------------------------------------------------------------------------------
% "Create a new file or completely overwrite an existing file with new content. Use with caution as it
% will overwrite existing files without warning." (destructiveHint true, idempotentHint true)
tool(write_file, acts_on = fs_path, key = path).
% Over an existing text file: writing the content read before the call back restores it.
bounded_reversibility(write_file, fs_path.kind == "file", file_metadata, 1.0,
    id = "filesystem.write_file.restore",
    args = { path: call.path, content: fs_path.content }).
% A new file: no tool deletes it, so it is moved aside (only when the path was free and `aside` is).
compensates(move_file, write_file, fs_path.kind, moved_aside, 0.95,
    id = "filesystem.write_file.move_aside",
    args = { source: call.path, destination: fs_path.aside }).

% "Make line-based edits to a text file. Each edit replaces exact line sequences with new content."
% (destructiveHint true) Writing back the content read before the call undoes any edit (dryRun too).
tool(edit_file, acts_on = text_file, key = path).
compensates(write_file, edit_file, text_file.content, file_metadata, 1.0,
    id = "filesystem.edit_file.restore",
    args = { path: call.path, content: text_file.content }).

% "Move or rename files and directories. … If the destination exists, the operation will fail."
% (destructiveHint true) Moving it back undoes it, while the destination was free before the call. The
% server resolves the source before it moves (a symlink moves its target; an NFD spelling of an NFC
% name moves the NFC file), so what goes back goes to the path it resolved (`resolved`, read from the
% server): a link's target returns under its link, a file returns under its own name.
tool(move_file, acts_on = move_source, key = source).
bounded_reversibility(move_file,
    move_source.kind in ["file", "directory"] and move_source.destination_kind == "absent",
    none, 1.0,
    id = "filesystem.move_file.back",
    args = { source: call.destination, destination: move_source.resolved }).

% "Create a new directory or ensure a directory exists. Can create multiple nested directories in one
% operation. If the directory already exists, this operation will succeed silently." (destructiveHint
% false, idempotentHint true)
tool(create_directory, acts_on = fs_path, key = path).
% It was there already: the call changes nothing, and running it again is its own (empty) undo.
bounded_reversibility(create_directory, fs_path.kind == "directory", none, 1.0,
    id = "filesystem.create_directory.exists",
    args = { path: call.path }).
% A new directory under an existing parent: moved aside (`aside` is only read when the parent exists,
% so nested parents the call would also create never count as undone).
compensates(move_file, create_directory, fs_path.kind, moved_aside, 0.95,
    id = "filesystem.create_directory.move_aside",
    args = { source: call.path, destination: fs_path.aside }).

% Reading tools (readOnlyHint true).
read_only(read_file, read_text_file, read_media_file, read_multiple_files, list_directory,
    list_directory_with_sizes, directory_tree, search_files, get_file_info, list_allowed_directories).
