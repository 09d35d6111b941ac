"""What running runs are printing, as they print it: the last ``LIMIT`` bytes of each.

A runner hands each chunk of output to ``ctx.on_output`` (the command runner, after taking
out Errands' secrets); it lands here in memory, bounded, so a child printing 50 MB a
second costs a copy of each chunk and nothing more. Positions count every byte the run
printed since it started, so a reader asking "what came after byte N" learns both what is
new and whether some of it was already dropped (``cut``). Readers that follow a run wait
on a per-run event, woken by the next chunk or by the run's end: nothing polls.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

LIMIT = 256 * 1024     # bytes kept per running run


@dataclass(frozen=True)
class Piece:
    """Output from byte ``start`` to ``end`` of what the run printed; ``cut`` when bytes the
    reader asked for were dropped before it asked; ``ended`` once the run's attempts are
    over (nothing more will come here)."""
    text: str
    start: int
    end: int
    cut: bool
    ended: bool


class Stream:
    """One run's output so far (its last ``limit`` bytes)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self.data = bytearray()
        self.start = 0          # position of data[0] in everything the run printed
        self.ended = False
        self._changed = asyncio.Event()

    @property
    def end(self) -> int:
        return self.start + len(self.data)

    def add(self, chunk: bytes) -> None:
        if not chunk or self.ended:
            return
        self.data += chunk
        extra = len(self.data) - self.limit
        if extra > 0:
            del self.data[:extra]
            self.start += extra
        self._wake()

    def finish(self) -> None:
        self.ended = True
        self._wake()

    def touch(self) -> None:
        """Something else about the run changed (an agent's transcript): followers look."""
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def after(self, position: int | None) -> Piece:
        """What came after ``position`` (None: all that is kept)."""
        first = self.start if position is None else max(position, self.start)
        cut = position is not None and position < self.start
        chunk = bytes(self.data[first - self.start:]) if first < self.end else b""
        # a character split across chunks waits for its remaining bytes
        text, used = _complete_text(chunk, final=self.ended)
        return Piece(text, first, first + used, cut, self.ended and first + used >= self.end)

    async def changed(self, timeout: float) -> None:
        """Until more output, the run's end, or ``timeout`` seconds."""
        try:   # (the inner wait is cancelled with the timeout: nothing is left pending)
            await asyncio.wait_for(self._changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass


def _complete_text(chunk: bytes, *, final: bool) -> tuple[str, int]:
    """The chunk as text and how many of its bytes that used: an incomplete UTF-8 sequence
    at its end is left for the next read (replaced once nothing more can come)."""
    if final:
        return chunk.decode("utf-8", "replace"), len(chunk)
    cut = len(chunk)
    for back in range(1, min(4, len(chunk)) + 1):
        byte = chunk[-back]
        if byte & 0xC0 != 0x80:          # the lead byte of the last character
            need = 2 if byte >= 0xC0 else 1
            need = 3 if byte >= 0xE0 else need
            need = 4 if byte >= 0xF0 else need
            if byte >= 0x80 and need > back:
                cut = len(chunk) - back
            break
    return chunk[:cut].decode("utf-8", "replace"), cut


KEPT_ENDED = 100   # ended streams kept, so a follower between two reads still sees the end


class Live:
    """The streams of the runs under way (the engine's ``live`` part), and of the last few
    that ended."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self.streams: dict[str, Stream] = {}
        self._ended: deque[str] = deque()   # the ended ones kept, oldest first

    def open(self, run_id: str) -> Stream:
        """The run's stream, made at its first attempt (kept across retries)."""
        stream = self.streams.get(run_id)
        if stream is None or stream.ended:
            stream = self.streams[run_id] = Stream(self.limit)
        return stream

    def finish(self, run_id: str) -> None:
        """The run ended: followers are told; the stream stays readable a while (the last
        ``KEPT_ENDED``), later readers go to the stored run."""
        stream = self.streams.get(run_id)
        if stream is None or stream.ended:
            return
        stream.finish()
        self._ended.append(run_id)   # (a thousand runs ending together: no scan each)
        while len(self._ended) > KEPT_ENDED:
            gone = self._ended.popleft()
            if self.streams.get(gone) is not None and self.streams[gone].ended:
                del self.streams[gone]

    def get(self, run_id: str) -> Stream | None:
        return self.streams.get(run_id)
