"""Workflows: the same tasks on a code path fixed in advance (code decides every next step)."""

from .city_compare import run_workflow

__all__ = ["run_workflow"]
