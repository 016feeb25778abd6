"""The MCP server: the library's memory tools, resources and prompt for AI agents."""
