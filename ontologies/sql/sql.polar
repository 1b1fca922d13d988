% Reversibility ontology for SQL statements (SQLite and PostgreSQL), issue 25.
% The dispatcher (src/sql/parse.ts) turns a statement string into the typed calls below, one per table
% a statement writes; Layer B (src/sql/state.ts) is read from the database for exactly those tables and
% the rows the statement's WHERE matches, in a read-only transaction and bounded. The inverse tools
% (sql_put_back, sql_restore_rows, …) are run by the undo of src/sql/undo.ts, never by the agent.
%
% Sources cited per annotation: the SQLite documentation (lang_delete.html, lang_update.html,
% lang_insert.html, lang_droptable.html, lang_createtable.html, foreignkeys.html, lang_createtrigger.html,
% autoinc.html, lang_transaction.html) and the PostgreSQL 17 documentation (sql-delete, sql-update,
% sql-insert, sql-truncate, sql-droptable, sql-createtable, ddl-constraints "Foreign Keys",
% sql-createtrigger, rules, functions-sequence, sql-begin, "Transactional DDL" in mvcc/ sql-rollback).

% ---------------------------------------------------------------------------------------------------
% Layer B: one entity per relation a call names, keyed by its resolved name ("main.t", "public.t").
slot_definition(sql_table, exists, bool).        % the relation (table, index or view) exists
slot_definition(sql_table, rows, number).        % rows the statement would change (absent: over the bound)
slot_definition(sql_table, triggers, bool).      % the table has a trigger or rule (the undo's statements would fire it too)
slot_definition(sql_table, cascades, bool).      % rows of other tables would change through foreign-key actions
slot_definition(sql_table, sequence, bool).      % an INSERT draws values from a sequence / AUTOINCREMENT
slot_definition(sql_table, in_txn, bool).        % PostgreSQL: the caller's transaction is open
slot_definition(sql_table, restore_point, string). % a restore point holds what the statement changes
slot_definition(sql_table, data, string).        % what is consumed (never read: the T4 slot)

% Rows deleted or overwritten with no copy kept.
loss_class_definition(row_data, weight = 0.90).
% A whole table (and its definition) dropped or truncated with no copy kept.
loss_class_definition(table_data, weight = 0.95).
% Rows of other tables changed by ON DELETE / ON UPDATE actions, not read.
loss_class_definition(cascaded_rows, weight = 0.90).
% What a trigger or rule does is code the guard does not read.
loss_class_definition(trigger_effects, weight = 0.80).
% A schema change with no copy of the old definition.
loss_class_definition(schema_change, weight = 0.85).
% A sequence's value is not given back by deleting the rows that used it: declared residue
% (PostgreSQL functions-sequence: "nextval operations are never rolled back"; SQLite autoinc.html:
% the sqlite_sequence row keeps the largest ROWID ever used).
loss_class_definition(sequence_advanced, weight = 0.01).

% ---------------------------------------------------------------------------------------------------
% Inverse tools (run by the undo, never judged as forward calls).
tool(nothing).                                    % the statement changed nothing
tool(sql_put_back, params = [point]).             % re-insert the rows the restore point holds
tool(sql_restore_rows, params = [point]).         % set the rows back to the restore point's values, by key
tool(sql_delete_inserted, params = [point]).      % delete, by key, the rows that were not there before
tool(sql_recreate, params = [point]).             % create the dropped relation again from its definition, then its rows
tool(sql_drop_created, params = [table, kind]).   % drop the relation the statement created
tool(sql_rollback).                               % ROLLBACK of the caller's open transaction

% ---------------------------------------------------------------------------------------------------
% DELETE (SQLite lang_delete.html; PostgreSQL sql-delete): removes the rows the WHERE matches (all
% rows without one). Re-inserting the pre-image (every column, read before) gives the same rows back.
tool(sql_delete, acts_on = sql_table, key = table, params = [table]).
inverse_of(sql_put_back, sql_delete, sql_table.rows, 1.0, id = "sql.delete.pre_image",
    when = present(sql_table.restore_point) and sql_table.triggers != true, args = { point: sql_table.restore_point }).
% No row matched: nothing changes (a statement trigger aside, below).
inverse_of(nothing, sql_delete, sql_table.rows, 1.0, id = "sql.delete.none",
    when = sql_table.rows == 0 and sql_table.triggers != true).
irreversibly_consumes(sql_delete, sql_table.data, row_data, 1.0, id = "sql.delete.lost",
    when = sql_table.rows != 0 and not present(sql_table.restore_point)).
% ON DELETE CASCADE / SET NULL / SET DEFAULT (PostgreSQL ddl-constraints "Foreign Keys"; SQLite
% foreignkeys.html section 4.3, only with PRAGMA foreign_keys on): rows of the children change too.
% A restore point that holds them is taken only when they fit the bound.
irreversibly_consumes(sql_delete, sql_table.data, cascaded_rows, 1.0, id = "sql.delete.cascade",
    when = sql_table.cascades == true and not present(sql_table.restore_point)).
% CREATE TRIGGER … ON DELETE (SQLite lang_createtrigger.html; PostgreSQL sql-createtrigger, rules).
irreversibly_consumes(sql_delete, sql_table.data, trigger_effects, 1.0, id = "sql.delete.trigger",
    when = sql_table.triggers == true).

% UPDATE (SQLite lang_update.html; PostgreSQL sql-update): the matched rows' columns change. Setting
% them back to the pre-image, by key, undoes it; keys changed by the UPDATE are kept by a restore point
% of the whole table.
tool(sql_update, acts_on = sql_table, key = table, params = [table]).
inverse_of(sql_restore_rows, sql_update, sql_table.rows, 1.0, id = "sql.update.pre_image",
    when = present(sql_table.restore_point) and sql_table.triggers != true, args = { point: sql_table.restore_point }).
inverse_of(nothing, sql_update, sql_table.rows, 1.0, id = "sql.update.none",
    when = sql_table.rows == 0 and sql_table.triggers != true).
irreversibly_consumes(sql_update, sql_table.data, row_data, 1.0, id = "sql.update.lost",
    when = sql_table.rows != 0 and not present(sql_table.restore_point)).
% ON UPDATE CASCADE / SET NULL / SET DEFAULT of a referenced key (ddl-constraints; foreignkeys.html).
irreversibly_consumes(sql_update, sql_table.data, cascaded_rows, 1.0, id = "sql.update.cascade",
    when = sql_table.cascades == true and not present(sql_table.restore_point)).
irreversibly_consumes(sql_update, sql_table.data, trigger_effects, 1.0, id = "sql.update.trigger",
    when = sql_table.triggers == true).

% INSERT (SQLite lang_insert.html; PostgreSQL sql-insert): new rows; deleting them by key undoes it.
% The restore point holds the rows of the scope before (ON CONFLICT DO UPDATE / INSERT OR REPLACE:
% the rows it overwrites), so the undo deletes what is new and puts back what was overwritten.
tool(sql_insert, acts_on = sql_table, key = table, params = [table]).
inverse_of(sql_delete_inserted, sql_insert, sql_table.exists, 1.0, id = "sql.insert.by_key",
    when = present(sql_table.restore_point) and sql_table.triggers != true and sql_table.sequence != true,
    args = { point: sql_table.restore_point }).
% A sequence (serial, identity) or AUTOINCREMENT advanced: declared residue (functions-sequence:
% "to avoid blocking concurrent transactions … nextval operations are never rolled back").
compensates(sql_delete_inserted, sql_insert, sql_table.exists, sequence_advanced, 1.0, id = "sql.insert.sequence",
    when = present(sql_table.restore_point) and sql_table.triggers != true and sql_table.sequence == true,
    args = { point: sql_table.restore_point }).
irreversibly_consumes(sql_insert, sql_table.data, row_data, 1.0, id = "sql.insert.unkept",
    when = not present(sql_table.restore_point)).
irreversibly_consumes(sql_insert, sql_table.data, trigger_effects, 1.0, id = "sql.insert.trigger",
    when = sql_table.triggers == true).

% TRUNCATE (PostgreSQL sql-truncate: "quickly removes all rows … it reclaims disk space immediately";
% not MVCC-safe, fires ON TRUNCATE triggers, not ON DELETE ones). Kept by a restore point (a copy of
% the table's rows): re-inserted. RESTART IDENTITY resets owned sequences: declared residue.
tool(sql_truncate, acts_on = sql_table, key = table, params = [table]).
inverse_of(sql_put_back, sql_truncate, sql_table.rows, 1.0, id = "sql.truncate.copy",
    when = present(sql_table.restore_point) and sql_table.triggers != true, args = { point: sql_table.restore_point }).
inverse_of(nothing, sql_truncate, sql_table.rows, 1.0, id = "sql.truncate.empty",
    when = sql_table.rows == 0 and sql_table.triggers != true and sql_table.cascades != true).
irreversibly_consumes(sql_truncate, sql_table.data, table_data, 1.0, id = "sql.truncate.lost",
    when = sql_table.rows != 0 and not present(sql_table.restore_point)).
% TRUNCATE … CASCADE: "Automatically truncate all tables that have foreign-key references".
irreversibly_consumes(sql_truncate, sql_table.data, cascaded_rows, 1.0, id = "sql.truncate.cascade",
    when = sql_table.cascades == true and not present(sql_table.restore_point)).
irreversibly_consumes(sql_truncate, sql_table.data, trigger_effects, 1.0, id = "sql.truncate.trigger",
    when = sql_table.triggers == true).

% DROP TABLE / INDEX / VIEW (SQLite lang_droptable.html: "completely removed from the database
% schema and the disk file … The dropped table is completely removed"; PostgreSQL sql-droptable).
% PostgreSQL DDL is transactional (PostgreSQL wiki/docs sql-begin, "Transactional DDL"): inside the
% caller's open transaction a ROLLBACK takes it back, with the transaction's other work (a compensation).
tool(sql_drop, acts_on = sql_table, key = table, params = [table, kind]).
inverse_of(sql_recreate, sql_drop, sql_table.exists, 1.0, id = "sql.drop.copy",
    when = present(sql_table.restore_point) and sql_table.exists == true and sql_table.triggers != true,
    args = { point: sql_table.restore_point }).
inverse_of(nothing, sql_drop, sql_table.exists, 1.0, id = "sql.drop.absent",
    when = sql_table.exists == false).
compensates(sql_rollback, sql_drop, sql_table.exists, schema_change, 0.05, id = "sql.drop.rollback",
    when = sql_table.in_txn == true and sql_table.exists == true and not present(sql_table.restore_point)).
irreversibly_consumes(sql_drop, sql_table.data, table_data, 1.0, id = "sql.drop.lost",
    when = sql_table.exists == true and not present(sql_table.restore_point) and sql_table.in_txn != true).
% The table's triggers come back with its definition and would fire on the rows put back (SQLite
% lang_createtrigger.html; PostgreSQL sql-createtrigger): not restorable by the guard.
irreversibly_consumes(sql_drop, sql_table.data, trigger_effects, 1.0, id = "sql.drop.trigger",
    when = sql_table.triggers == true and sql_table.in_txn != true).
% SQLite foreignkeys.html 5: "an implicit DELETE FROM … is run before the table is dropped", firing
% ON DELETE actions; PostgreSQL DROP … CASCADE drops dependent views and foreign-key constraints.
irreversibly_consumes(sql_drop, sql_table.data, cascaded_rows, 1.0, id = "sql.drop.cascade",
    when = sql_table.cascades == true).

% CREATE TABLE / INDEX / VIEW / TABLE AS (SQLite lang_createtable.html; PostgreSQL sql-createtable):
% a new relation; dropping it undoes it. An existing one: CREATE fails or IF NOT EXISTS does nothing.
tool(sql_create, acts_on = sql_table, key = table, params = [table, kind]).
inverse_of(sql_drop_created, sql_create, sql_table.exists, 1.0, id = "sql.create.new",
    when = sql_table.exists == false, args = { table: call.table, kind: call.kind }).
inverse_of(nothing, sql_create, sql_table.exists, 1.0, id = "sql.create.exists",
    when = sql_table.exists == true and call.replace != true).
irreversibly_consumes(sql_create, sql_table.data, schema_change, 1.0, id = "sql.create.replace",
    when = sql_table.exists == true and call.replace == true).

% ALTER TABLE (SQLite lang_altertable.html; PostgreSQL sql-altertable): the old definition (and, for
% DROP COLUMN / a type change, the column's data) is not kept; inside PostgreSQL's open transaction a
% ROLLBACK takes it back.
tool(sql_alter, acts_on = sql_table, key = table, params = [table]).
compensates(sql_rollback, sql_alter, sql_table.exists, schema_change, 0.05, id = "sql.alter.rollback",
    when = sql_table.in_txn == true).
irreversibly_consumes(sql_alter, sql_table.data, schema_change, 1.0, id = "sql.alter.lost",
    when = sql_table.in_txn != true).
