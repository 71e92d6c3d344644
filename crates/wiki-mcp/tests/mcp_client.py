"""Drive `wiki mcp` with the official MCP Python SDK (the `mcp` package) and print a transcript.

Run by tests/client.rs, which builds the vault and asserts the transcript's exact values.
Environment: WIKI_BIN (the wiki binary), WIKI_MCP_VAULT, WIKI_MCP_WORKSPACE, WIKI_MCP_AGENT
(optional). The session: initialize, list tools (every inputSchema checked as a JSON Schema),
call every tool, bad calls, an apply that commits, a search that sees a page edited by hand
between two calls, the context prompt and resource, ping. Structural checks fail here (exit 1
with a traceback); a missing `mcp` package fails the import: nothing is skipped.
"""

import asyncio
import json
import os
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError


def result_record(result):
    texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
    assert len(texts) == 1, f"one text content expected: {result.content!r}"
    if not result.isError:
        assert isinstance(result.structuredContent, dict), result
    return {
        "isError": bool(result.isError),
        "text": texts[0],
        "structured": result.structuredContent,
    }


async def call(session, name, arguments):
    return result_record(await session.call_tool(name, arguments))


def check_schemas(tools):
    names = []
    for tool in tools:
        schema = tool.inputSchema
        assert schema.get("type") == "object", (tool.name, schema)
        jsonschema.Draft202012Validator.check_schema(schema)
        names.append(tool.name)
    by_name = {t.name: t.inputSchema for t in tools}
    valid = {
        "wiki_search": {"query": "alpha", "mode": "raw-claim", "corpus": "all", "maxResults": 3},
        "wiki_get": {"lookup": "entities/alpha.md", "fromLine": 2, "lineCount": 5},
        "wiki_apply": {
            "op": "add_claim",
            "page": "entity.alpha",
            "claimId": "claim.alpha.x",
            "text": "Alpha is fast.",
            "confidence": 0.5,
            "evidence": [{"sourceId": "source.notes", "lines": "1-2", "weight": 1}],
        },
        "memory_get": {"path": "MEMORY.md#L1-L2"},
        "memory_recall": {"query": "peter", "k": 5, "since": "30d", "entity": ["Peter"],
                          "kind": ["opinion", "world"], "noRecord": True},
        "memory_facts": {"at": "2026-04", "entity": ["Peter"], "kind": ["experience"]},
        "memory_triggers": {"message": "hello", "project": ["github.com/acme/app"]},
    }
    invalid = {
        "wiki_search": {"query": "alpha", "mode": "fuzzy"},
        "wiki_get": {"lookup": "alpha", "extra": 1},
        "wiki_apply": {"op": "create_synthesis", "evidence": [{"bogus": 1}]},
        "wiki_status": {"x": 1},
        "memory_recall": {"query": "x", "kind": ["fuzzy"]},
        "memory_facts": {"entity": [3]},
        "memory_triggers": {},
    }
    for name, args in valid.items():
        jsonschema.validate(args, by_name[name], cls=jsonschema.Draft202012Validator)
    for name, args in invalid.items():
        try:
            jsonschema.validate(args, by_name[name], cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"{name} schema accepted {args!r}")
    evidence = by_name["wiki_apply"]["$defs"]["evidence"]["properties"]
    return names, sorted(evidence)


async def session_run(out):
    args = ["--vault", os.environ["WIKI_MCP_VAULT"]]
    if os.environ.get("WIKI_MCP_AGENT"):
        args += ["--agent", os.environ["WIKI_MCP_AGENT"]]
    args += ["mcp", "--workspace", os.environ["WIKI_MCP_WORKSPACE"]]
    params = StdioServerParameters(command=os.environ["WIKI_BIN"], args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["protocolVersion"] = init.protocolVersion
            out["serverName"] = init.serverInfo.name
            out["capabilities"] = sorted(
                k for k in ("tools", "prompts", "resources")
                if getattr(init.capabilities, k) is not None
            )
            tools = (await session.list_tools()).tools
            out["tools"], out["evidenceKeys"] = check_schemas(tools)
            out["readOnly"] = {t.name: t.annotations.readOnlyHint for t in tools}

            calls = out["calls"] = {}
            calls["wiki_status"] = await call(session, "wiki_status", {})
            calls["wiki_search"] = await call(session, "wiki_search", {"query": "postgresql"})
            calls["wiki_get"] = await call(
                session, "wiki_get", {"lookup": "claim.alpha.db", "fromLine": 2, "lineCount": 2}
            )
            calls["wiki_apply"] = await call(session, "wiki_apply", {
                "op": "create_synthesis",
                "title": "Alpha Synthesis",
                "body": "Alpha runs on PostgreSQL.",
                "sourceIds": ["source.notes"],
            })
            calls["wiki_lint"] = await call(session, "wiki_lint", {})
            calls["memory_search"] = await call(session, "memory_search", {"query": "deploy key"})
            calls["memory_get"] = await call(session, "memory_get", {"path": "MEMORY.md#L3"})
            calls["memory_recall"] = await call(
                session, "memory_recall", {"query": "what does Peter prefer", "k": 2}
            )
            calls["memory_recall_filtered"] = await call(
                session, "memory_recall", {"entity": ["@Peter"], "kind": ["opinion"], "noRecord": True}
            )
            calls["memory_facts"] = await call(session, "memory_facts", {"since": "30d"})
            calls["memory_facts_filtered"] = await call(
                session, "memory_facts", {"entity": ["peter"], "kind": ["opinion"], "at": "2026-04"}
            )
            calls["memory_triggers"] = await call(
                session, "memory_triggers", {"message": "reply in portuguese please"}
            )
            calls["memory_triggers_none"] = await call(
                session, "memory_triggers", {"message": "what is the weather"}
            )

            bad = out["bad"] = {}
            bad["apply_missing_body"] = await call(
                session, "wiki_apply", {"op": "create_synthesis", "title": "X", "sourceIds": ["s"]}
            )
            bad["apply_confidence"] = await call(
                session, "wiki_apply", {"op": "update_metadata", "lookup": "alpha", "confidence": "1.5"}
            )
            bad["search_mode"] = await call(session, "wiki_search", {"query": "x", "mode": "fuzzy"})
            bad["unknown_argument"] = await call(session, "wiki_get", {"lookup": "a", "page": 2})
            bad["recall_kind"] = await call(session, "memory_recall", {"query": "x", "kind": ["fuzzy"]})
            bad["recall_since_at"] = await call(
                session, "memory_recall", {"query": "x", "since": "3d", "at": "2025"}
            )
            bad["recall_nothing"] = await call(session, "memory_recall", {"entity": []})
            bad["facts_since"] = await call(session, "memory_facts", {"since": "soon"})
            bad["facts_entity"] = await call(session, "memory_facts", {"entity": [3]})
            bad["triggers_message"] = await call(session, "memory_triggers", {"message": " "})
            try:
                await session.call_tool("wiki_nope", {})
                raise AssertionError("an unknown tool must be a protocol error")
            except McpError as e:
                bad["unknown_tool"] = {"code": e.error.code, "message": e.error.message}

            # A page edited by hand between two calls is seen by the second.
            calls["before_edit"] = await call(session, "wiki_search", {"query": "zebracorn"})
            page = os.path.join(os.environ["WIKI_MCP_VAULT"], "entities", "alpha.md")
            with open(page, "a", encoding="utf-8") as f:
                f.write("\nThe zebracorn migration is planned.\n")
            calls["after_edit"] = await call(session, "wiki_search", {"query": "zebracorn"})

            prompts = (await session.list_prompts()).prompts
            out["prompts"] = [p.name for p in prompts]
            prompt = await session.get_prompt("wiki_context", {"maxChars": "4000"})
            out["prompt"] = [m.content.text for m in prompt.messages]
            resources = (await session.list_resources()).resources
            out["resources"] = [[str(r.uri), r.mimeType] for r in resources]
            read = await session.read_resource("wiki://context")
            out["resource"] = [c.text for c in read.contents]
            await session.send_ping()
            out["ping"] = True


def main():
    out = {}
    asyncio.run(session_run(out))
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
