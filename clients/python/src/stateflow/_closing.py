"""The shape the client's streamed answers share: an iterator that is also a context manager,
whose ``close`` ends it (a watch, a streamed completion)."""

from __future__ import annotations

from typing import Iterator, TypeVar

T = TypeVar("T")


class ClosingIterator(Iterator[T]):
    """Iterates ``self._items``; leaving a ``with`` block calls :meth:`close`."""

    _items: Iterator[T]

    def __iter__(self) -> ClosingIterator[T]:
        return self

    def __next__(self) -> T:
        return next(self._items)

    def __enter__(self) -> ClosingIterator[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError
