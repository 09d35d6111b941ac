"""Agent runs: the model provider, the tools a model may call, the permission model that
decides each call, and the loop that ties them to the engine's runner contract.

Plain Python and asyncio; nothing here imports Qt.
"""
