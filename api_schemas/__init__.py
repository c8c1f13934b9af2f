"""Pydantic models of everything on the wire; they generate ``openapi/openapi.json``."""
