#!/usr/bin/env python3
"""polar-guard's bridge to tau2-bench's own environment code.

Loads one domain's environment (airline, retail, telecom) from a tau2-bench checkout (``--tau2-src``)
or the installed ``tau2`` package and answers JSON lines on stdin/stdout: run a tool call exactly as
tau2-bench runs it (``Environment.get_response``), dump and hash the canonical state, take cheap
snapshots, restore them, diff against them, reset to the initial db, apply a task's initial state.

Protocol: one request per line ``{"id": n, "op": "...", ...}``; one answer per line
``{"id": n, "ok": true, "result": ...}`` or ``{"id": n, "ok": false, "error": {"code", "message"}}``.
The first line the bridge writes is ``{"ready": true, ...}`` or ``{"ready": false, "error": ...}``
(e.g. code ``missing-dependency`` with the module's name), then it exits when stdin closes.

Snapshots are copy-on-access: each map-valued db field (airline flights/users/reservations, retail
products/users/orders) is wrapped so that the first access to a record while a write tool runs saves
a copy of it; every other field (telecom's lists, the user db) is copied whole at snapshot time. A
snapshot then costs what the calls since it touched, not the size of the db (airline's is 7 MB).
Read tools (tau2-bench's ``mutates_state`` false) run untracked, as tau2-bench's own replay assumes
they change nothing.
"""

import argparse
import copy
import importlib.util
import json
import os
import sys
import tempfile
import types

ABSENT = object()
DOMAINS = ("airline", "retail", "telecom")


def emit(obj):
    sys.stdout.write(json.dumps(obj, default=str, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def fail_start(code, message, **extra):
    emit({"ready": False, "error": dict(code=code, message=message, **extra)})
    sys.exit(3)


# --------------------------------------------------------------------------------------------------
# Loading tau2 without its __init__ (which imports the whole LLM runner)


def resolve_tau2_package(src):
    """The folder of the ``tau2`` package: ``src`` may be a checkout, its ``src`` or the package."""
    if src:
        for cand in (os.path.join(src, "src", "tau2"), os.path.join(src, "tau2"), src):
            if os.path.isfile(os.path.join(cand, "environment", "environment.py")):
                return os.path.abspath(cand)
        fail_start("no-tau2", "no tau2 package under `%s` (looked for src/tau2, tau2 and the folder itself)" % src)
    spec = importlib.util.find_spec("tau2")
    if spec is None or not spec.submodule_search_locations:
        fail_start("no-tau2", "the `tau2` package is not installed and no --tau2-src was given")
    return os.path.abspath(list(spec.submodule_search_locations)[0])


def install_addict_stand_in():
    """tau2.utils.pydantic_utils needs ``addict.Dict`` only for a recursive merge of plain dicts
    (task initialization data); give it that when the real package is absent."""
    if importlib.util.find_spec("addict") is not None:
        return False

    class Dict(dict):
        def __init__(self, *args, **kwargs):
            super().__init__()
            for k, v in dict(*args, **kwargs).items():
                self[k] = Dict(v) if isinstance(v, dict) and not isinstance(v, Dict) else v

        def update(self, other=(), **kwargs):
            for k, v in dict(other, **kwargs).items():
                if isinstance(v, dict) and isinstance(self.get(k), dict):
                    mine = self[k] if isinstance(self[k], Dict) else Dict(self[k])
                    mine.update(v)
                    self[k] = mine
                else:
                    self[k] = Dict(v) if isinstance(v, dict) and not isinstance(v, Dict) else v

        def to_dict(self):
            return {k: (v.to_dict() if isinstance(v, Dict) else v) for k, v in self.items()}

    mod = types.ModuleType("addict")
    mod.Dict = Dict
    sys.modules["addict"] = mod
    return True


def data_dir_for(data):
    """tau2-bench reads ``$TAU2_DATA_DIR/tau2/domains/<domain>``; ``data`` is the folder holding
    ``domains/`` (tau2-bench's ``data/tau2``)."""
    data = os.path.abspath(data)
    if not os.path.isdir(os.path.join(data, "domains")):
        fail_start("bad-data", "`%s` has no `domains/` folder" % data)
    if os.path.basename(data) == "tau2":
        return os.path.dirname(data)
    link_root = tempfile.mkdtemp(prefix="polar-tau2-data-")
    os.symlink(data, os.path.join(link_root, "tau2"))
    return link_root


def load_tau2(pkg_dir):
    mod = types.ModuleType("tau2")
    mod.__path__ = [pkg_dir]
    mod.__file__ = os.path.join(pkg_dir, "__init__.py")
    sys.modules["tau2"] = mod
    parent = os.path.dirname(pkg_dir)
    if parent not in sys.path:
        sys.path.insert(0, parent)


# --------------------------------------------------------------------------------------------------
# Copy-on-access snapshots


def dump(value):
    if hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    if isinstance(value, list):
        return [dump(v) for v in value]
    return value


class Snapshot:
    def __init__(self, sid, whole):
        self.id = sid
        self.saved = {}  # (db index, field) -> {key: record copy or ABSENT}
        self.whole = whole  # (db index, field) -> deep copy of the field's value


class Journal:
    """Snapshots over the environment's dbs, oldest first."""

    def __init__(self):
        self.stack = []
        self.tracking = True
        self.next_id = 1

    def save(self, coll, key, present, record):
        if not self.tracking:
            return
        # One copy shared by every snapshot that lacks the record: saved copies are never mutated
        # (restore puts a fresh copy back).
        saved = None
        for snap in self.stack:
            slot = snap.saved.setdefault(coll.tag, {})
            if key not in slot:
                if saved is None:
                    saved = copy.deepcopy(record) if present else ABSENT
                slot[key] = saved

    def save_all(self, coll):
        for k in dict.keys(coll):
            self.save(coll, k, True, dict.__getitem__(coll, k))


class Tracked(dict):
    """A db map that tells the journal which records a write may change before it changes them."""

    journal = None
    tag = None

    def _touch(self, key):
        if dict.__contains__(self, key):
            self.journal.save(self, key, True, dict.__getitem__(self, key))
        else:
            self.journal.save(self, key, False, None)

    def __getitem__(self, key):
        self._touch(key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._touch(key)
        return dict.get(self, key, default)

    def __setitem__(self, key, value):
        self._touch(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        self._touch(key)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        self._touch(key)
        return dict.pop(self, key, *default)

    def setdefault(self, key, default=None):
        self._touch(key)
        return dict.setdefault(self, key, default)

    def values(self):
        self.journal.save_all(self)
        return dict.values(self)

    def items(self):
        self.journal.save_all(self)
        return dict.items(self)

    def __iter__(self):
        self.journal.save_all(self)
        return dict.__iter__(self)

    def popitem(self):
        self.journal.save_all(self)
        return dict.popitem(self)

    def clear(self):
        self.journal.save_all(self)
        dict.clear(self)

    def update(self, *args, **kwargs):
        for k in dict(*args, **kwargs):
            self._touch(k)
        dict.update(self, *args, **kwargs)


class Bridge:
    def __init__(self, domain, env_module, solo):
        self.domain = domain
        self.env_module = env_module
        self.solo = solo
        self.env = env_module.get_environment(solo_mode=True) if solo else env_module.get_environment()
        self.pristine = self.current_dbs()
        self.journal = Journal()
        self.wrap_all()
        self.initial = self.take()
        self.recorded = {}

    # the dbs, as (name, toolkit) pairs: "db" is the agent's, "user_db" telecom's user side
    def toolkits(self):
        out = [("db", self.env.tools)]
        if getattr(self.env, "user_tools", None) is not None and getattr(self.env.user_tools, "db", None) is not None:
            out.append(("user_db", self.env.user_tools))
        return out

    def current_dbs(self):
        return [tk.db for _, tk in self.toolkits()]

    def fields(self):
        for i, (_, tk) in enumerate(self.toolkits()):
            db = tk.db
            for name in type(db).model_fields:
                yield i, db, name

    def wrap_all(self):
        for i, db, name in self.fields():
            value = getattr(db, name)
            if isinstance(value, dict) and not isinstance(value, Tracked):
                wrapped = Tracked(value)
                wrapped.journal = self.journal
                wrapped.tag = (i, name)
                setattr(db, name, wrapped)
            elif isinstance(value, Tracked):
                value.journal = self.journal
                value.tag = (i, name)

    def take(self):
        whole = {}
        for i, db, name in self.fields():
            value = getattr(db, name)
            if not isinstance(value, Tracked):
                whole[(i, name)] = copy.deepcopy(value)
        snap = Snapshot(self.journal.next_id, whole)
        self.journal.next_id += 1
        self.journal.stack.append(snap)
        return snap

    def find(self, sid):
        for pos, snap in enumerate(self.journal.stack):
            if snap.id == sid:
                return pos, snap
        raise BridgeError("no-snapshot", "no snapshot `%s` (released or restored past)" % sid)

    def restore(self, sid):
        pos, snap = self.find(sid)
        dbs = self.current_dbs()
        for (i, name), saved in snap.saved.items():
            coll = getattr(dbs[i], name)
            for key, record in saved.items():
                if record is ABSENT:
                    if dict.__contains__(coll, key):
                        dict.__delitem__(coll, key)
                else:
                    dict.__setitem__(coll, key, copy.deepcopy(record))
        for (i, name), value in snap.whole.items():
            setattr(dbs[i], name, copy.deepcopy(value))
        del self.journal.stack[pos + 1:]
        snap.saved = {}

    def release(self, sid):
        pos, _ = self.find(sid)
        if pos == 0:
            raise BridgeError("no-snapshot", "the base snapshot cannot be released")
        del self.journal.stack[pos]

    def changes(self, snap):
        """The records that differ from ``snap`` (before and after, null when absent), and, when any
        whole-copied field of a db changed, every whole-copied field of that db as it is now."""
        dbs = self.current_dbs()
        names = [n for n, _ in self.toolkits()]
        records = []
        for (i, name), saved in snap.saved.items():
            coll = getattr(dbs[i], name)
            for key, record in saved.items():
                before = None if record is ABSENT else dump(record)
                after = dump(dict.__getitem__(coll, key)) if dict.__contains__(coll, key) else None
                if before != after:
                    records.append({"path": [names[i], name, key], "before": before, "after": after})
        whole = {}
        for (i, name), value in snap.whole.items():
            if dump(value) != dump(getattr(dbs[i], name)):
                whole[names[i]] = True
        fields = {}
        for n in whole:
            i = names.index(n)
            fields[n] = {name: dump(getattr(dbs[i], name)) for (j, name) in snap.whole if j == i}
        return {"records": records, "whole": fields}

    def diff(self, sid, limit):
        _, snap = self.find(sid)
        dbs = self.current_dbs()
        names = [n for n, _ in self.toolkits()]
        out = []
        for (i, name), saved in snap.saved.items():
            coll = getattr(dbs[i], name)
            for key, record in saved.items():
                before = ABSENT if record is ABSENT else dump(record)
                after = dump(dict.__getitem__(coll, key)) if dict.__contains__(coll, key) else ABSENT
                leaf_diff([names[i], name, key], before, after, out)
        for (i, name), value in snap.whole.items():
            leaf_diff([names[i], name], dump(value), dump(getattr(dbs[i], name)), out)
        return {"equal": len(out) == 0, "count": len(out), "diffs": out[:limit]}

    # ----------------------------------------------------------------------------------------------

    def call(self, name, arguments, requestor, call_id, with_changes=False, recorded=None):
        from tau2.data_model.message import ToolCall

        arguments = self.recorded_arguments(recorded, name, arguments)
        if with_changes:
            snap = self.take()
            try:
                out = self.call(name, arguments, requestor, call_id)
                out["changes"] = self.changes(snap)
            finally:
                self.journal.stack.remove(snap)
            return out

        mutating = self.env._is_mutating_tool(name) if self.env._has_tool(name) else True
        self.journal.tracking = mutating
        try:
            msg = self.env.get_response(ToolCall(id=call_id, name=name, arguments=arguments, requestor=requestor))
        finally:
            self.journal.tracking = True
        return {"content": msg.content, "error": bool(msg.error), "mutating": mutating}

    def load_results(self, path):
        """Reads a results file with Python's json, as tau2-bench does, and keeps every tool call's
        arguments by (simulation index, position among its tool calls): a JSON number `2.0` stays a float (JavaScript, which
        has one number type, would hand us 2, and the tool would print `2 GB` instead of `2.0 GB`)."""
        with open(path, "r", encoding="utf-8") as fp:
            doc = json.load(fp)
        if isinstance(doc, list):
            sims = doc
        elif isinstance(doc, dict) and isinstance(doc.get("simulations"), list):
            sims = doc["simulations"]
        elif isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            sims = [doc]
        else:
            raise BridgeError("bad-results", "`%s` has no simulations" % path)
        table = {}
        for i, sim in enumerate(sims):
            k = 0  # the call's position among the simulation's tool calls (ids may be empty or repeat)
            for m in (sim or {}).get("messages") or []:
                for tc in (m or {}).get("tool_calls") or []:
                    if isinstance(tc, dict) and isinstance(tc.get("arguments"), dict):
                        table[(i, k)] = (tc.get("name"), tc["arguments"])
                    k += 1
        self.recorded[os.path.abspath(path)] = table
        return len(table)

    def recorded_arguments(self, ref, name, arguments):
        if not ref:
            return arguments
        table = self.recorded.get(os.path.abspath(str(ref.get("file"))))
        if table is None:
            raise BridgeError("no-results", "results file `%s` was not loaded" % ref.get("file"))
        hit = table.get((int(ref.get("simulation", -1)), int(ref.get("call", -1))))
        if hit is None or hit[0] != name:
            raise BridgeError("no-call", "no recorded call `%s` at position %s in simulation %s" % (name, ref.get("call"), ref.get("simulation")))
        return hit[1]

    def reset(self):
        # Back to the pristine db objects (a task's initialization data builds new ones).
        tks = self.toolkits()
        for (_, tk), db in zip(tks, self.pristine):
            tk.db = db
        self.journal.stack = [self.initial]
        self.restore(self.initial.id)

    def initialize(self, data, actions):
        from tau2.data_model.tasks import EnvFunctionCall  # noqa: F401  (validates the shape below)

        if data:
            agent = data.get("agent_data")
            user = data.get("user_data")
            # tau2-bench's Environment.set_state: update_db builds a new db instance.
            if agent is not None:
                self.env.tools.update_db(agent)
            if user is not None:
                self.env.user_tools.update_db(user)
            if agent is not None or user is not None:
                # New db objects: track them under a fresh base snapshot; reset goes back to the
                # pristine ones.
                self.journal.stack = []
                self.wrap_all()
                base = self.take()
                self.journal.stack = [base]
        results = []
        for a in actions or []:
            call = EnvFunctionCall.model_validate(a)
            try:
                res = self.env.run_env_function_call(call)
                results.append({"ok": True, "result": self.env.to_json_str(res) if res is not None else None})
            except Exception as e:  # reported, the replay says which action failed
                results.append({"ok": False, "error": "%s: %s" % (type(e).__name__, e)})
        return results

    def tools(self):
        """Every tool with its side, whether it mutates, and its parameters (required: no default)."""
        import inspect

        out = {}
        for side, tk in (("assistant", self.env.tools), ("user", getattr(self.env, "user_tools", None))):
            if tk is None:
                continue
            for name, fn in tk.tools.items():
                params = []
                for p in inspect.signature(fn).parameters.values():
                    if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                        continue
                    params.append({"name": p.name, "required": p.default is inspect.Parameter.empty})
                out[name] = {"side": side, "mutating": tk.tool_mutates_state(name), "params": params}
        return out

    def state(self):
        return {n: tk.db.model_dump() for n, tk in self.toolkits()}

    def hashes(self):
        return {n: tk.get_db_hash() for n, tk in self.toolkits()}


def leaf_diff(path, before, after, out):
    if before is ABSENT or after is ABSENT:
        out.append({"path": path, "before": None if before is ABSENT else before, "after": None if after is ABSENT else after,
                    "kind": "created" if before is ABSENT else "deleted"})
        return
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for k in sorted(set(before) | set(after), key=str):
            leaf_diff(path + [k], before.get(k, ABSENT), after.get(k, ABSENT), out)
        return
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for k, (b, a) in enumerate(zip(before, after)):
            leaf_diff(path + [k], b, a, out)
        return
    out.append({"path": path, "before": before, "after": after, "kind": "changed"})


class BridgeError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domain", required=True, choices=DOMAINS)
    ap.add_argument("--tau2-src", default=os.environ.get("POLAR_TAU2_SRC") or None)
    ap.add_argument("--data", required=True, help="the folder holding domains/<domain>/ (tau2-bench's data/tau2)")
    ap.add_argument("--solo", action="store_true", help="tau2-bench's solo mode (telecom without a user)")
    args = ap.parse_args()

    os.environ["TAU2_DATA_DIR"] = data_dir_for(args.data)
    pkg = resolve_tau2_package(args.tau2_src)
    stand_in = install_addict_stand_in()
    load_tau2(pkg)
    try:
        # tau2's logging goes to stderr through loguru; keep it quiet, stdout is the protocol.
        from loguru import logger

        logger.remove()
        logger.add(sys.stderr, level="ERROR")
        env_module = importlib.import_module("tau2.domains.%s.environment" % args.domain)
        bridge = Bridge(args.domain, env_module, args.solo)
    except ModuleNotFoundError as e:
        fail_start("missing-dependency", "python module `%s` is missing" % e.name, module=e.name)
    except Exception as e:  # noqa: BLE001  (reported to the client as the start failure)
        fail_start("load-failed", "%s: %s" % (type(e).__name__, e))

    emit({"ready": True, "domain": args.domain, "tau2": pkg, "addictStandIn": stand_in, "solo": args.solo,
          "python": sys.version.split()[0], "initialSnapshot": bridge.initial.id})

    handlers = {
        "ping": lambda r: "pong",
        "call": lambda r: bridge.call(r["name"], r.get("arguments") or {}, r.get("requestor", "assistant"),
                                      str(r.get("callId", "polar")), bool(r.get("changes")), r.get("recorded")),
        "results": lambda r: bridge.load_results(r["file"]),
        "calls": lambda r: [bridge.call(c["name"], c.get("arguments") or {}, c.get("requestor", "assistant"),
                                        str(c.get("callId", "polar")), bool(c.get("changes"))) for c in r["calls"]],
        "release": lambda r: bridge.release(r["snapshot"]),
        "state": lambda r: bridge.state(),
        "tools": lambda r: bridge.tools(),
        "hash": lambda r: bridge.hashes(),
        "snapshot": lambda r: bridge.take().id,
        "restore": lambda r: bridge.restore(r["snapshot"]),
        "diff": lambda r: bridge.diff(r["snapshot"], int(r.get("limit", 50))),
        "reset": lambda r: bridge.reset(),
        "solo": lambda r: bridge.env.set_solo_mode(bool(r["on"])),
        "initialize": lambda r: bridge.initialize(r.get("data"), r.get("actions")),
    }
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            op = req.get("op")
            if op not in handlers:
                raise BridgeError("bad-op", "unknown op `%s`" % op)
            emit({"id": rid, "ok": True, "result": handlers[op](req)})
        except BridgeError as e:
            emit({"id": rid, "ok": False, "error": {"code": e.code, "message": str(e)}})
        except (KeyError, TypeError, ValueError) as e:
            emit({"id": rid, "ok": False, "error": {"code": "bad-request", "message": "%s: %s" % (type(e).__name__, e)}})
        except Exception as e:  # noqa: BLE001
            emit({"id": rid, "ok": False, "error": {"code": "internal", "message": "%s: %s" % (type(e).__name__, e)}})


if __name__ == "__main__":
    main()
