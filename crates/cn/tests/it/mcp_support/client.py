"""Drive an MCP server over stdio with the official Python MCP client (PyPI `mcp`).

usage: client.py COMMAND [ARGS...] -- CALLS_JSON

CALLS_JSON is a list of [tool, arguments]. Prints one JSON object: the server's name, its
tools (name, description, input schema) and each call's result (isError, text, structured).
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main() -> None:
    sep = sys.argv.index("--")
    command, args = sys.argv[1], sys.argv[2:sep]
    calls = json.loads(sys.argv[sep + 1])
    params = StdioServerParameters(command=command, args=args, env={"CN_LOG": "error"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            results = []
            for name, arguments in calls:
                r = await session.call_tool(name, arguments, read_timeout_seconds=60)
                text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                results.append(
                    {"isError": bool(r.is_error), "text": text, "structured": r.structured_content}
                )
    print(
        json.dumps(
            {
                "server": init.server_info.name,
                "tools": [
                    {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                    for t in listed.tools
                ],
                "results": results,
            }
        )
    )


asyncio.run(main())
