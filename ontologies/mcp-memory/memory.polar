% Reversibility ontology for the official MCP knowledge-graph server, @modelcontextprotocol/server-memory
% (2026.8.31), written from its tools' own descriptions and annotations (quoted before each tool) and
% from what the tools are documented to change. Layer B comes from the server itself: before a mutating
% call is judged, the gateway calls the read-only tool named in projection.json (`reads`) and projects
% its answer. The entity types below are the *situations* in which a call's inverse is exact: an entity
% of such a type is put in Layer B only when the server's state makes it so (docs/mcp.md, "Ontologies").
% Where a situation does not hold, the call is not grounded and fails closed (`missing_entity`), and
% the gateway tells the model what would make it undoable (`ungrounded` in projection.json).
%
% Weights: 1.0 for an exact inverse; a re-created item that the server appends at the end of its list
% pays `list_position` (read_graph returns the entities and relations in file order).

% ---------------------------------------------------------------------------------------------------
% Layer B: what the server says, per situation.

slot_definition(free_name, free, bool).              % no entity has the name, no relation mentions it
slot_definition(deletable_node, spec, list).         % [{name, entityType, observations}] as the server holds them
slot_definition(absent_relation, absent, bool).      % none of the relations exists yet
slot_definition(held_relation, relations, list).     % [{from, to, relationType}] of those the server holds
slot_definition(observed_node, added, list).         % [{entityName, observations}]: contents the entity does not have yet
slot_definition(observed_node_deletions, removed, list). % [{entityName, contents}]: every present copy of what goes

% Residue: the item is back, but at the end of its list in read_graph (order is not meaning in a graph).
loss_class_definition(list_position, weight = 0.01).

% ---------------------------------------------------------------------------------------------------
% Tools. The server's arguments are batches (lists); the projection derives the key argument the guard
% judges by (`entity_name`, `relation_from`: the first item), and the reads cover every item.

% "Create multiple new entities in the knowledge graph" (readOnlyHint false, destructiveHint false).
% The server skips a name that exists already, so deleting it again is exact only for new names.
tool(create_entities, acts_on = free_name, key = entity_name).
inverse_of(delete_entities, create_entities, free_name.free, 1.0,
    id = "memory.create_entities.delete",
    args = { entityNames: call.entity_names }).

% "Delete multiple entities and their associated relations from the knowledge graph"
% (destructiveHint true). Re-creating them with their type and observations as read before the call
% restores them; their relations would need a second call, so the gateway only grounds a deletion of
% entities no relation mentions (delete the relations first: that is undoable on its own).
tool(delete_entities, acts_on = deletable_node, key = entity_name).
compensates(create_entities, delete_entities, deletable_node.spec, list_position, 1.0,
    id = "memory.delete_entities.recreate",
    args = { entities: deletable_node.spec }).

% "Create multiple new relations between entities in the knowledge graph" (destructiveHint false).
% Existing relations are skipped, so only a batch of relations that are all new is undone exactly.
tool(create_relations, acts_on = absent_relation, key = relation_from).
inverse_of(delete_relations, create_relations, absent_relation.absent, 1.0,
    id = "memory.create_relations.delete",
    args = { relations: call.relation_list }).

% "Delete multiple relations from the knowledge graph" (destructiveHint true). Re-created from the
% server's own copies of the ones that existed (a relation that did not exist is not re-created).
tool(delete_relations, acts_on = held_relation, key = relation_from).
compensates(create_relations, delete_relations, held_relation.relations, list_position, 1.0,
    id = "memory.delete_relations.recreate",
    args = { relations: held_relation.relations }).

% "Add new observations to existing entities in the knowledge graph" (destructiveHint false). The server
% adds only contents the entity lacks; deleting exactly those (read before the call) is exact.
tool(add_observations, acts_on = observed_node, key = entity_name).
inverse_of(delete_observations, add_observations, observed_node.added, 1.0,
    id = "memory.add_observations.delete",
    args = { deletions: observed_node.added }).

% "Delete specific observations from entities in the knowledge graph" (destructiveHint true). Every
% copy of a deleted content goes; adding the copies back (read before the call) restores them at the
% end of the entity's observations.
tool(delete_observations, acts_on = observed_node_deletions, key = entity_name).
compensates(add_observations, delete_observations, observed_node_deletions.removed, list_position, 1.0,
    id = "memory.delete_observations.readd",
    args = { observations: observed_node_deletions.removed }).

% "Read the entire knowledge graph", "Search for nodes …", "Open specific nodes …" (readOnlyHint true).
read_only(read_graph, search_nodes, open_nodes).
