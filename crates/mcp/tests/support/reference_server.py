"""An MCP server built on the official Python SDK (PyPI `mcp`, `MCPServer`, what v1 called
FastMCP): a tool `add`, a resource `note://greeting`. `--http` serves streamable HTTP on a
free loopback port and prints `PORT <n>` first; without it, stdio."""

import socket
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("cn-reference", log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.resource("note://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting for the client to read."""
    return "hello from the reference server"


if "--http" in sys.argv:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
else:
    server.run("stdio")
