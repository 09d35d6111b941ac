"""Errands for other agents: an MCP server (``errands mcp``) over the official SDK.

- ``catalogue``: what each tool does, in plain Python over a data folder: reads from the
  store, changes through the running engine's channel (or under the data folder's lock when
  none runs), exactly as the command line does;
- ``server``: the tools with their JSON schemas, and errors a model can read;
- ``snippets``: what each MCP client's configuration needs to start it.
"""
