"""User-facing errors: each names what is wrong and how to fix it, in one line."""

from __future__ import annotations

from typing import Any


class RecourseSimError(Exception):
    """Base class of every error recoursesim raises on purpose.

    The command line prints ``str(error)`` on one line and exits with status 2.
    """


class ConfigError(RecourseSimError, ValueError):
    """A parameter, scenario field or input that cannot be used as given.

    Args:
        field: Dotted name of the offending field (``"selection.k"``), or a short label.
        problem: What is wrong with the value.
        fix: What the user should do instead.
    """

    def __init__(self, field: str, problem: str, fix: str) -> None:
        self.field = field
        self.problem = problem
        self.fix = fix
        super().__init__(f"{field}: {problem}; fix: {fix}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by the three parts, so the error crosses process boundaries (workers, Dask)."""
        return (type(self), (self.field, self.problem, self.fix), self.__dict__)

    def under(self, prefix: str) -> ConfigError:
        """Return the same error with ``prefix`` prepended to the field name.

        A field already under ``prefix`` (a component that names its own section, such as
        ``recourse.name``) is kept as it is, so no field reads ``recourse.recourse.name``.
        """
        if not self.field:
            field = prefix
        elif self.field == prefix or self.field.startswith(f"{prefix}."):
            field = self.field
        else:
            field = f"{prefix}.{self.field}"
        return ConfigError(field, self.problem, self.fix)


class DataError(ConfigError):
    """Input data that cannot be used: a missing column, NaN features, a single class."""
