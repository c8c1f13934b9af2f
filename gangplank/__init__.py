"""Gangplank's Python client and command line."""

from gangplank.client import AsyncClient, Client, GangplankError

__all__ = ["AsyncClient", "Client", "GangplankError"]
