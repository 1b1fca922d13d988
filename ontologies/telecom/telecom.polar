% τ²-bench telecom: Layer A reversibility ontology — the agent's tools, then (second section) the
% user-side device tools the user simulator performs (user_tools.py, state in user_db.toml), which the
% agent itself calls in τ²-bench's solo ("no-user") mode. One file, so one guard covers both modes.
%
% Authored from ../shared/tau2/tools/telecom.json (the tool manifest, with `side` agent/user) and
% domains/telecom/main_policy.md + tech_support_manual.md, with the paper's authoring table (Appendix
% C.5, first matching row wins). docs/ontologies.md has the per-tool table. τ²-bench's telecom clock is
% 2025-02-25T12:08:00 (main_policy.md).
%
% The device tools take no argument naming the device, so they declare no acts_on entity: they are
% always grounded, their annotations are unconditional, and an inverse that needs an old device
% setting cannot read it (see docs/ontologies.md, "Known gaps").

% ---------------------------------------------------------------------------------------------------
% Layer B vocabulary (ontologies/telecom/projection.json; db.toml and user_db.toml)

slot_definition(customer, account_status, string).
slot_definition(line, customer_id, string).
slot_definition(line, status, string).
slot_definition(line, roaming_enabled, bool).
slot_definition(line, data_refueling_gb, number).
slot_definition(line, contract_end_date, date).
slot_definition(line, suspension_start_date, date).
slot_definition(bill, customer_id, string).
slot_definition(bill, status, string).
slot_definition(bill, total_due, number).

slot_definition(device, airplane_mode, bool).
slot_definition(device, data_enabled, bool).
slot_definition(device, roaming_enabled, bool).
slot_definition(device, data_saver_mode, bool).
slot_definition(device, wifi_enabled, bool).
slot_definition(device, wifi_connected, bool).
slot_definition(device, wifi_calling_enabled, bool).
slot_definition(device, vpn_connected, bool).
slot_definition(device, vpn_details, object).          % the VPN session (server, protocol), null when none
slot_definition(device, wifi_ssid, string).
slot_definition(device, wifi_signal_strength, string).
slot_definition(device, sim_card_missing, bool).
slot_definition(device, network_mode_preference, string).
slot_definition(device, active_apn_settings, object).
% An installed app's permissions (device.app_statuses.<app>.permissions), one bool slot each.
slot_definition(app, sms, bool).
slot_definition(app, storage, bool).
slot_definition(app, phone, bool).
slot_definition(app, network, bool).

% ---------------------------------------------------------------------------------------------------
% Residues and sinks

% Suspending interrupts service until the device is rebooted after a resume, and the suspension message
% announces a $5/month holding fee (manifest, suspend_line `returns`, `notes`).
loss_class_definition(service_interruption, weight = 0.05,
    residue = [line.suspension_start_date]).
% Suspending again restarts suspension_start_date at today's date, and a line resumed from `Pending
% Activation` comes back as `Suspended` (manifest, suspend_line / resume_line `mutates`, `checks`).
loss_class_definition(suspension_reset, weight = 0.05,
    residue = [line.suspension_start_date, line.status]).
% Charged to the customer's (draft) bill; no refund or credit tool exists (manifest, refuel_data).
loss_class_definition(billed_charge, weight = 0.10).
% Turning the radio off drops the Wi-Fi association (and, for airplane mode, the VPN session); toggling
% back does not reconnect them (manifest, toggle_airplane_mode / toggle_wifi `mutates`, `notes`).
loss_class_definition(connection_reset, weight = 0.05,
    residue = [device.wifi_connected, device.wifi_ssid, device.wifi_signal_strength, device.vpn_connected,
               device.vpn_details]).
% Reconnecting gives the default VPN server, not the one that was in use (manifest, disconnect_vpn).
loss_class_definition(vpn_details_lost, weight = 0.05,
    residue = [device.vpn_details]).
% A reboot restarts network services; the APN reset it may apply can be written back, the restart not.
loss_class_definition(device_restart, weight = 0.05).
% A permission granted for good: no revoke tool (manifest, grant_app_permission notes).
loss_class_definition(permission_granted, weight = 0.10).
% A reseated SIM: no tool marks it missing again (manifest, reseat_sim_card).
loss_class_definition(sim_reseated, weight = 0.10).

sink_definition(customer_notice, external = true).  % a payment request appears on the customer's side
sink_definition(payment, external = true).          % money moves from the customer (make_payment)
sink_definition(human_handoff, external = true).

% ---------------------------------------------------------------------------------------------------
% Agent tools (manifest side = agent)

% params / optional_params: each tool's parameters as ../shared/tau2/tools/telecom.json lists them
% (`name = default` marks an optional one); an inverse must give every required one.
tool(suspend_line, acts_on = line, key = line_id, params = [customer_id, line_id, reason]).
tool(resume_line, acts_on = line, key = line_id, params = [customer_id, line_id]).
tool(enable_roaming, acts_on = line, key = line_id, params = [customer_id, line_id]).
tool(disable_roaming, acts_on = line, key = line_id, params = [customer_id, line_id]).
tool(refuel_data, acts_on = line, key = line_id, params = [customer_id, line_id, gb_amount]).
tool(send_payment_request, acts_on = bill, key = bill_id, params = [customer_id, bill_id]).
tool(transfer_to_human_agents, params = [summary]).

read_only(get_customer_by_phone, get_customer_by_id, get_customer_by_name, get_details_by_id,
          get_bills_for_customer, get_data_usage).

% enable_roaming / disable_roaming — T1: each sets lines[line_id].roaming_enabled and nothing else on
% the line (the user-side mirror is re-synced from it); the roaming change is free (policy "Data
% Roaming"). An exact pair on one slot — while the call changes the setting: on a line already in the
% requested state the tool only answers "Roaming was already enabled/disabled" (tools.py, manifest
% `checks`), and the other tool would then change what the call did not. That no-op is undone by
% nothing: the T2 edge (the call itself again, which changes nothing) covers it.
inverse_of(disable_roaming, enable_roaming, line.roaming_enabled, 1.0,
    id = "telecom.roaming.disable_undoes_enable",
    when = line.roaming_enabled == false,
    args = { customer_id: call.customer_id, line_id: call.line_id }).
bounded_reversibility(enable_roaming, line.roaming_enabled == true, none, 0.99,
    id = "telecom.roaming.enable_noop",
    args = { customer_id: call.customer_id, line_id: call.line_id }).
inverse_of(enable_roaming, disable_roaming, line.roaming_enabled, 1.0,
    id = "telecom.roaming.enable_undoes_disable",
    when = line.roaming_enabled == true,
    args = { customer_id: call.customer_id, line_id: call.line_id }).
bounded_reversibility(disable_roaming, line.roaming_enabled == false, none, 0.99,
    id = "telecom.roaming.disable_noop",
    args = { customer_id: call.customer_id, line_id: call.line_id }).

% suspend_line — T3: resume_line restores status `Active` and clears suspension_start_date, which is
% what an active line had; the service gap and the announced holding fee remain.
compensates(resume_line, suspend_line, line.status, service_interruption, 0.90,
    id = "telecom.suspend.resume",
    args = { customer_id: call.customer_id, line_id: call.line_id }).

% resume_line — T3: suspend_line puts the line back to `Suspended` (it requires `Active`, which a
% resumed line is), but with today's suspension_start_date; `reason` is only logged.
compensates(suspend_line, resume_line, line.status, suspension_reset, 0.90,
    id = "telecom.resume.suspend",
    args = { customer_id: call.customer_id, line_id: call.line_id,
             reason: "reverting a line resumption" }).

% refuel_data — T4: a charge of gb × the plan's price per GB on the customer's bill (it may even create
% a draft bill with a random id); no refund or credit tool exists (manifest notes).
irreversibly_consumes(refuel_data, line.data_refueling_gb, billed_charge, 1.0,
    id = "telecom.refuel.charge").

% send_payment_request — T5: the customer is notified (a payment request appears on the user side;
% manifest external), and the bill's previous status (e.g. `Overdue`) is overwritten with no tool to
% put it back.
external_side_effect(send_payment_request, customer_notice, 1.0, id = "telecom.payment_request").

% transfer_to_human_agents — T5: hand-off to a human ends the conversation (manifest: external).
external_side_effect(transfer_to_human_agents, human_handoff, 1.0, id = "telecom.transfer").

% ---------------------------------------------------------------------------------------------------
% User-side device tools (manifest side = user; user_tools.py)

% The device tools take no argument naming the phone (manifest: `params` empty, or only the new
% setting): every call acts on the one user device, which the projection asserts as `device(device)`
% (user_db.toml [device]). The constant key lets bounds, conditions and inverse arguments read it.
tool(toggle_airplane_mode, acts_on = device, key = "device", params = []).
tool(toggle_data, acts_on = device, key = "device", params = []).
tool(toggle_roaming, acts_on = device, key = "device", params = []).
tool(toggle_data_saver_mode, acts_on = device, key = "device", params = []).
tool(toggle_wifi, acts_on = device, key = "device", params = []).
tool(toggle_wifi_calling, acts_on = device, key = "device", params = []).
tool(set_network_mode_preference, acts_on = device, key = "device", params = [mode]).
tool(set_apn_settings, acts_on = device, key = "device", params = [apn_settings]).
tool(reset_apn_settings, acts_on = device, key = "device", params = []).
tool(reboot_device, acts_on = device, key = "device", params = []).
tool(reseat_sim_card, acts_on = device, key = "device", params = []).
tool(connect_vpn, acts_on = device, key = "device", params = []).
tool(disconnect_vpn, acts_on = device, key = "device", params = []).
tool(grant_app_permission, acts_on = app, key = app_name, params = [app_name, permission]).
tool(make_payment, params = []).

read_only(check_status_bar, check_network_status, check_network_mode_preference, run_speed_test,
          check_sim_status, check_data_restriction_status, check_apn_settings, check_wifi_status,
          check_wifi_calling_status, check_vpn_status, check_installed_apps, check_app_status,
          check_app_permissions, can_send_mms, check_payment_request).

% Plain switches — T1: each flips one boolean and nothing a second flip does not restore (manifest:
% "Self-inverse"); the network search they trigger is recomputed from the switches.
inverse_of(toggle_data, toggle_data, device.data_enabled, 1.0,
    id = "telecom.device.toggle_data", args = {}).
inverse_of(toggle_roaming, toggle_roaming, device.roaming_enabled, 1.0,
    id = "telecom.device.toggle_roaming", args = {}).
inverse_of(toggle_data_saver_mode, toggle_data_saver_mode, device.data_saver_mode, 1.0,
    id = "telecom.device.toggle_data_saver", args = {}).
inverse_of(toggle_wifi_calling, toggle_wifi_calling, device.wifi_calling_enabled, 1.0,
    id = "telecom.device.toggle_wifi_calling", args = {}).

% Radio switches — T3: a second flip restores the switch, but turning the radio off cleared the Wi-Fi
% association (airplane mode on also drops the VPN), which toggling back does not restore (manifest:
% "Self-inverse except VPN disconnect and wifi disconnect are not restored").
compensates(toggle_airplane_mode, toggle_airplane_mode, device.airplane_mode, connection_reset, 0.90,
    id = "telecom.device.toggle_airplane", args = {}).
compensates(toggle_wifi, toggle_wifi, device.wifi_enabled, connection_reset, 0.90,
    id = "telecom.device.toggle_wifi", args = {}).

% Settings written wholesale — T1: writing the old value back is exact (manifest: set_network_mode_preference
% and set_apn_settings overwrite the setting; "Overwrites all APN fields"). The old value is the
% device's slot before the call (constant key above), so the inverse carries it.
inverse_of(set_network_mode_preference, set_network_mode_preference, device.network_mode_preference, 1.0,
    id = "telecom.device.network_mode",
    args = { mode: device.network_mode_preference }).
inverse_of(set_apn_settings, set_apn_settings, device.active_apn_settings, 1.0,
    id = "telecom.device.apn_settings",
    args = { apn_settings: device.active_apn_settings }).
% reset_apn_settings only sets reset_at_reboot (applied by the next reboot, manifest): writing the old
% settings back with set_apn_settings clears it — an exact inverse by a different tool.
inverse_of(set_apn_settings, reset_apn_settings, device.active_apn_settings, 1.0,
    id = "telecom.device.apn_reset",
    args = { apn_settings: device.active_apn_settings }).
% reboot_device — T3: a pending APN reset takes effect and network services restart (manifest);
% set_apn_settings writes the old APN back, the restart itself cannot be undone.
compensates(set_apn_settings, reboot_device, device.active_apn_settings, device_restart, 0.90,
    id = "telecom.device.reboot",
    args = { apn_settings: device.active_apn_settings }).

% VPN — connect_vpn is undone exactly by disconnect_vpn (T1); disconnect_vpn is compensated by
% connect_vpn, which connects to the default server rather than the one in use (T3). Each only while
% it changes something: connect_vpn on a connected VPN answers "VPN already connected." and
% disconnect_vpn on none "No active VPN connection to disconnect." (user_tools.py, manifest); the no-op
% is undone by the same call again (T2).
inverse_of(disconnect_vpn, connect_vpn, device.vpn_connected, 1.0,
    id = "telecom.device.vpn_connect", when = device.vpn_connected == false, args = {}).
bounded_reversibility(connect_vpn, device.vpn_connected == true, none, 0.99,
    id = "telecom.device.vpn_connect_noop", args = {}).
compensates(connect_vpn, disconnect_vpn, device.vpn_connected, vpn_details_lost, 0.90,
    id = "telecom.device.vpn_disconnect", when = device.vpn_connected == true, args = {}).
bounded_reversibility(disconnect_vpn, device.vpn_connected == false, none, 0.99,
    id = "telecom.device.vpn_disconnect_noop", args = {}).

% grant_app_permission — T2: there is no revoke tool (manifest notes), so the call is undoable only
% when it changes nothing: the permission was already granted.
bounded_reversibility(grant_app_permission,
    (call.permission == "sms" and app.sms == true)
        or (call.permission == "storage" and app.storage == true)
        or (call.permission == "phone" and app.phone == true)
        or (call.permission == "network" and app.network == true),
    none, 0.99,
    id = "telecom.device.grant_permission",
    args = { app_name: call.app_name, permission: call.permission }).
% ... otherwise T4: a grant that changes a permission cannot be taken back by any tool (manifest notes:
% "No revoke tool for the user (remove_app_permission is not a tool)"), so the permission slot is
% consumed. It applies unless the permission is known to be granted already (UNKNOWN fails closed).
% (One edge per permission, so each names the slot it consumes.)
irreversibly_consumes(grant_app_permission, app.sms, permission_granted, 1.0,
    id = "telecom.device.grant_sms_final", when = call.permission == "sms" and app.sms != true).
irreversibly_consumes(grant_app_permission, app.storage, permission_granted, 1.0,
    id = "telecom.device.grant_storage_final", when = call.permission == "storage" and app.storage != true).
irreversibly_consumes(grant_app_permission, app.phone, permission_granted, 1.0,
    id = "telecom.device.grant_phone_final", when = call.permission == "phone" and app.phone != true).
irreversibly_consumes(grant_app_permission, app.network, permission_granted, 1.0,
    id = "telecom.device.grant_network_final", when = call.permission == "network" and app.network != true).

% reseat_sim_card — T2 while the SIM is in place: the manifest calls it an "Idempotent fix" that only
% sets sim_card_missing := false (the network search it triggers is recomputed from the switches, as for
% the toggles above), so on a present SIM it changes nothing and is its own undo.
bounded_reversibility(reseat_sim_card, device.sim_card_missing == false, none, 0.99,
    id = "telecom.device.reseat_noop", args = {}).
% ... otherwise T4: no tool takes a SIM out again (manifest: no tool sets sim_card_missing := true), so a
% reseat that changed the flag cannot be undone. UNKNOWN (no device state) fails closed.
irreversibly_consumes(reseat_sim_card, device.sim_card_missing, sim_reseated, 1.0,
    id = "telecom.device.reseat_final",
    when = device.sim_card_missing != false).

% make_payment — T5: real money moves from the customer and the bill becomes `Paid`; no refund tool
% (manifest: external, "irreversible").
external_side_effect(make_payment, payment, 1.0, id = "telecom.device.make_payment").
